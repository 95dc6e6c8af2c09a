// The record of every kernel object a ream run creates, written *before* each object is
// created, so that objects survive in the record even when ream is SIGKILLed. One file per
// sandbox in the state directory (default /run/ream, a tmpfs: stale records vanish at
// reboot, like the objects themselves), named "<pid>-<n>.state":
//
//   owner <pid> <process start time in clock ticks>
//   cgroup /sys/fs/cgroup/cpu/ream-<pid>-<n>
//   resctrl /sys/fs/resctrl/ream-<pid>-<n>   (or /sys/fs/resctrl/mon_groups/ream-<pid>-<n>: monitoring only)
//   netns ream-<pid>-<n>
//   veth ream<pid>h<n>
//   qdisc ream<pid>h<n>            (host side)   qdisc ream-<pid>-<n>/ream<pid>n<n> (in the netns)
//   statsdir /run/ream/ream-<pid>-<n>.overhead   (libream-overhead.so's statistics, net_overhead)
//   tmpdir /tmp/ream-<pid>-<n>.tmp             (the workload's private TMPDIR, removed whole)
//   scratchdir /tmp/ream-agents-<pid>-<n>       (ream's own small files: ssh sessions' stderr;
//                                                in a "<pid>-scratch<n>.state" of its own)
//
// A run is dead when its owner pid no longer exists or was reused (the start time differs);
// CleanupDeadRuns removes the objects of dead runs, newest first, then their files.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "platform/platform.h"

namespace ream {

// The bound on each ip, tc or virsh command a sandbox runs to make or remove an object.
inline constexpr auto kSandboxCommandTimeout = std::chrono::milliseconds(10000);

// Where ream records its objects, shared by every ream process on the machine.
inline constexpr char kDefaultStateDir[] = "/run/ream";

struct StateEntry {
  std::string kind;  // cgroup | resctrl | netns | veth | qdisc | statsdir | tmpdir | scratchdir | ...
  std::string id;
};

class StateFile {
 public:
  // Creates <dir>/<name>.state with the owner line (the directory too, when missing).
  static Result<std::unique_ptr<StateFile>> Create(Platform& platform, const std::string& dir,
                                                   const std::string& name);
  // Appends one entry; call before creating the object.
  Status Record(const std::string& kind, const std::string& id);
  const std::vector<StateEntry>& entries() const { return entries_; }
  const std::string& path() const { return path_; }
  // Removes the file (after its objects are gone).
  Status Remove();

 private:
  StateFile(Platform& p, std::string path) : p_(p), path_(std::move(path)) {}
  Platform& p_;
  std::string path_;
  std::vector<StateEntry> entries_;
};

// The owner line for this process: "owner <pid> <starttime>".
Result<std::string> OwnerLine(Platform& platform, int pid);
// Whether the process named by an owner line still runs (same pid, same start time).
bool OwnerAlive(Platform& platform, const std::string& owner_line);

// Removes one recorded object; Ok when it is already gone. Processes still in a cgroup are
// killed first.
Status RemoveStateObject(Platform& platform, const StateEntry& entry);
// Removes `entries` newest first (qdiscs and veths before namespaces, resctrl and cgroups).
// Every cgroup's processes are killed before anything else. Returns the failures.
std::vector<Status> RemoveStateObjects(Platform& platform, const std::vector<StateEntry>& entries);

// A directory of ream's own small files (the stderr of its ssh sessions), recorded in a state
// file of its own before it is made, so that `ream cleanup` removes it after a SIGKILL; the
// destructor removes its files, itself and the record. Named "<prefix>-<pid>-<n>" under
// `base` ("": /tmp; prefix "ream-..."), recorded in "<pid>-scratch<n>.state"; unique within this process.
class ScratchDir {
 public:
  static Result<std::unique_ptr<ScratchDir>> Create(Platform& platform, const std::string& state_dir,
                                                    const std::string& base, const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  ScratchDir(Platform& p, std::string path, std::unique_ptr<StateFile> state)
      : p_(p), path_(std::move(path)), state_(std::move(state)) {}
  Platform& p_;
  std::string path_;
  std::unique_ptr<StateFile> state_;
};

struct CleanupReport {
  int dead_runs = 0;                 // state files of dead owners processed
  int live_runs = 0;                 // state files left alone because their owner runs
  std::vector<std::string> removed;  // "cgroup /sys/fs/cgroup/cpu/ream-12-1", ...
  std::vector<std::string> errors;
};
// Removes the leftovers of every dead run recorded in `dir`. Missing dir: nothing to do.
CleanupReport CleanupDeadRuns(Platform& platform, const std::string& dir = kDefaultStateDir);

}  // namespace ream
