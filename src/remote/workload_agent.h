// The workload side of `ream agent`: on the host a [nodes] workload =
// "ssh:HOST" names, the agent creates the run's sandbox with its partition, starts the workload
// in it, forwards its output and its end, samples it with the monitors for each point's window,
// and removes everything when told to or when its session ends. The coordinator's side is
// remote/remote_sandbox.h; the messages (one JSON object a line, beside the load agent's):
//
//   coordinator                                          agent
//   {"type":"host","user":"ream"}                    ->  {"type":"host","topology":{..},"hostname":..,
//                                                          "kernel":..,"capabilities":[..],"support":[..]}
//   {"type":"free_port"}                             ->  {"type":"free_port","port":N}
//   {"type":"find_program","program":"memcached"}    ->  {"type":"program","found":true,"message":""}
//   {"type":"sandbox_start","id":1,"options":{..},
//    "argv":[..],"argv0_is_ream":true}               ->  {"type":"sandbox","id":1,"name":..,"pid":..,"cpus":[..],..}
//                                                        {"type":"workload_line","sandbox":1,"line":..}  (each line)
//                                                        {"type":"workload_exit","sandbox":1,..,"stderr":[..]}  (once)
//   {"type":"monitor_start","interval_ns":N}         ->  {"type":"monitor_started"}
//   {"type":"monitor_stop"}                          ->  {"type":"monitor","report":{..}}
//   {"type":"sandbox_signal","signal":15}            ->  {"type":"signalled"}
//   {"type":"sandbox_stop"}                          ->  {"type":"sandbox_stopped","error":..,"stderr":[..]}
//   (any failure: {"type":"error","message":..}; end of stdin: the sandbox is stopped and removed)
//
// A sandbox needs root on its host: the "host" request is refused, saying so, by an agent that
// is not root, before any run.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "platform/status.h"
#include "sandbox/sandbox.h"

namespace ream {

class Monitor;

// The sandbox's options as they travel (remote/remote_sandbox.cc writes them): the
// partition, the generator's CPUs to avoid (none on another host), who the workload runs as,
// its extra environment, keep-awake, whether its stderr is kept, and the stop grace. What only makes sense on this host
// (callbacks, the state directory) does not travel.
nlohmann::json SandboxOptionsToJson(const SandboxOptions& o);
// InvalidArgument naming the field when `j` is not such a document.
Result<SandboxOptions> SandboxOptionsFromJson(const nlohmann::json& j);

class WorkloadAgent {
 public:
  // `send` writes one message to the coordinator (from the agent's thread and from the
  // workload's output reader; it must serialize them); false when the session is gone.
  WorkloadAgent(Platform& p, std::function<bool(const nlohmann::json&)> send);
  // Stops the workload and removes every object its sandbox created.
  ~WorkloadAgent();
  WorkloadAgent(const WorkloadAgent&) = delete;
  WorkloadAgent& operator=(const WorkloadAgent&) = delete;

  // Whether `type` is one of the messages above.
  static bool Handles(const std::string& type);
  // Answers one message; false when the answer could not be sent (the session is gone).
  bool Handle(const nlohmann::json& m);
  // Between messages, every few tens of ms while a sandbox exists: tells the coordinator once
  // when the workload has ended (after its last output line). False when sending failed.
  bool Tick();
  bool has_sandbox() const { return sandbox_ != nullptr; }

 private:
  bool Reply(nlohmann::json m) { return send_(m); }
  bool HandleChecked(const nlohmann::json& m);
  bool Error(const std::string& message, const nlohmann::json& request);
  bool Host(const nlohmann::json& m);
  bool StartSandbox(const nlohmann::json& m);
  // Stops and removes the sandbox (if any): {"error", "exit", "description"} of how it ended
  // (error "" and nulls when none ran).
  nlohmann::json StopSandbox();
  // The workload's exit as {"signaled", "exit_code", "signal"}, null while it runs.
  nlohmann::json ExitJson();

  Platform& p_;
  std::function<bool(const nlohmann::json&)> send_;
  std::unique_ptr<ProcessSandbox> sandbox_;
  uint64_t sandbox_id_ = 0;
  bool exit_sent_ = false;
  std::unique_ptr<Monitor> monitor_;
};

}  // namespace ream
