// What `ream agent` and the coordinator's remote load driver say to each other over an ssh
// session's stdin and stdout: one JSON object per line, each with a "type". Pure functions, so
// both ends and the merge are unit-tested without ssh (agent_protocol_test.cc).
//
//   coordinator                                      agent
//   {"type":"hello","protocol":1}               ->   {"type":"hello","protocol":1,"version":..,"pid":..}
//   {"type":"clock"}                             ->   {"type":"clock","mono_ns":..,"real_ns":..}
//   {"type":"run","id":7,"options":{..}}         ->   {"type":"result","id":7,"generator":{..},..}
//                                                      or {"type":"error","id":7,"message":..}
//   (any line during a run: stop it; end of stdin: stop and exit)
//
// Each agent runs its own schedule on its own clock (options.start_at_ns is in the agent's
// CLOCK_MONOTONIC, the coordinator's common start moved by the measured offset) and times its
// own requests, so no latency mixes two hosts' clocks. The histograms travel in ream's own
// encoding (Histogram::Encode: exact buckets, sum and extremes), so the merge is lossless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/generator.h"
#include "platform/status.h"

namespace ream::agent {

inline constexpr int kProtocolVersion = 1;

// A line's "type" and "id" as both ends read them: "" / 0 when absent or of another type (a
// line `{"type":1}` must not throw out of either end).
std::string MessageType(const nlohmann::json& m);
uint64_t MessageId(const nlohmann::json& m);

// Every LoadOptions field an agent needs, and back. InvalidArgument naming the field on a
// malformed document (a different ream on the other end).
nlohmann::json LoadOptionsToJson(const LoadOptions& options);
Result<LoadOptions> LoadOptionsFromJson(const nlohmann::json& j);

// One clock exchange: the coordinator's monotonic clock when it sent the request and when the
// reply came, and the agent's monotonic clock in the reply.
struct ClockSample {
  int64_t sent_ns = 0, agent_ns = 0, received_ns = 0;
};
// The agent's clock minus the coordinator's, from the sample with the shortest round trip
// (the NTP idea: its midpoint is closest to the agent's read).
struct ClockEstimate {
  int64_t offset_ns = 0;
  int64_t rtt_ns = 0;
  int samples = 0;
  nlohmann::json ToJson() const;
};
ClockEstimate BestClock(const std::vector<ClockSample>& samples);

// The level's options for agent `index` of `count`: its share of the rate and of the
// connections (at least its threads), its own seed, the workload's address as the agents reach
// it, and its start instant in its own clock.
LoadOptions AgentShare(const LoadOptions& total, int index, int count, const std::string& workload_host,
                       int64_t agent_start_at_ns);

// The agent's "result" message for `result` of run `id`.
nlohmann::json ResultMessage(uint64_t id, const LoadResult& result);

// One agent's part of a level, as the coordinator saw it.
struct AgentOutcome {
  std::string name;                      // "ssh:client1"
  double target_qps = 0;                 // its share
  uint64_t seed = 0;
  std::optional<nlohmann::json> result;  // its "result" message
  std::string failure;                   // why there is none; makes the point invalid
  ClockEstimate clock;
  int64_t start_at_ns = 0;               // the start it was given, in its clock
};

// One point from the agents' parts: counters summed, histograms added bucket by bucket (never
// percentiles averaged), validity judged again on the sums, and the per-agent figures kept
// under "agents" (achieved rate, timely ratio, lateness, latency, clock) so a client host
// that fell behind is named. An agent's failure makes the point invalid with the agent named.
// Corrupt when an agent's document cannot be read.
Result<nlohmann::json> MergeAgentResults(const LoadOptions& total, const std::vector<AgentOutcome>& agents);

// What ssh's exit status and stderr mean, for people: a host that asked for a password
// (BatchMode), a host key that did not match or is unknown, a host that refused or did not
// answer, a remote without the command.
std::string DescribeSshFailure(const std::string& host, int exit_code, const std::string& stderr_text);

// The remote shell script that reports what the host has: `ream --version`, the per-user
// cache directory (made when absent), whether `cached_name` is already in it, and the machine's architecture
// (lines "version=", "cache=", "cached=yes", "arch="). Parsed by ParseProbe.
std::string ProbeScript(const std::string& cached_name);
struct RemoteProbe {
  std::string version;    // the first line of `ream --version`, "" when it has none
  std::string cache_dir;  // e.g. /home/u/.cache/ream
  bool cached = false;
  std::string arch;       // uname -m
};
Result<RemoteProbe> ParseProbe(const std::string& out);

}  // namespace ream::agent
