// One cgroup per sandbox, on cgroup v1 (a directory in each controller's hierarchy) or v2
// (one directory in the unified tree), detected at run time. The knobs (cgroup_knobs.h) and
// the monitors read and write its files through here, by controller name.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/capabilities.h"
#include "platform/platform.h"

namespace ream {

class Cgroup {
 public:
  // Called with each directory just before it is created, so it can be recorded in the
  // run's state file first; a failure aborts the creation.
  using BeforeCreate = std::function<Status(const std::string& dir)>;

  // The v1 controllers a sandbox cgroup spans (each present hierarchy gets a directory).
  static const std::vector<std::string>& V1Controllers();

  // Creates `name` ("ream-<pid>-<n>") in every hierarchy. v1: cpuset.cpus/mems start as the
  // parent's so the group is usable at once. v2: enables cpuset, cpu, memory, io in the
  // root's cgroup.subtree_control where available. Unsupported when no hierarchy exists;
  // the mkdir's errno otherwise (after removing what was already created).
  static Result<std::unique_ptr<Cgroup>> Create(Platform& platform, const CgroupLayout& layout,
                                                const std::string& name,
                                                const BeforeCreate& before_create);
  // The cgroup another program made for process `pid` (libvirt's for a guest's QEMU), read from
  // /proc/<pid>/cgroup, to read its figures: the object only observes — its destructor and
  // Destroy() remove nothing. A leaf named in `parent_of` (libvirt's "emulator", "vcpu0", ...
  // in the cpu hierarchies) stands for its parent, the group that holds the whole process.
  // NotFound when the process has no cgroup in any mounted hierarchy.
  static Result<std::unique_ptr<Cgroup>> OfProcess(Platform& platform, const CgroupLayout& layout, int pid,
                                                   const std::function<bool(const std::string& leaf)>& parent_of);
  // Removes the cgroup (see RemoveCgroupDir) unless Destroy() already did, or only observes it.
  ~Cgroup();
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;

  int version() const { return version_; }
  // Another program's cgroup, read only (OfProcess): ream writes nothing there.
  bool observed() const { return observed_; }
  const std::string& name() const { return name_; }
  // Every directory created, in creation order.
  const std::vector<std::string>& dirs() const { return dirs_; }
  // The directory holding `controller`'s files ("cpu", "cpuacct", "memory", "blkio",
  // "cpuset"; on v2 every name maps to the one directory). "" when that v1 controller is
  // not mounted.
  std::string Dir(const std::string& controller) const;
  bool Has(const std::string& controller) const { return !Dir(controller).empty(); }

  // Reads/writes `file` of `controller`. Unsupported when the controller is absent; the
  // kernel's errno (EINVAL for a rejected value) otherwise, naming path and value.
  Result<std::string> Read(const std::string& controller, const std::string& file) const;
  Status Write(const std::string& controller, const std::string& file, const std::string& value);
  // The cgroup.procs file of every directory: a process written into all of them is in the
  // sandbox (SpawnOptions::join_files).
  std::vector<std::string> ProcsFiles() const;
  // Pids currently in the cgroup (any hierarchy).
  std::vector<int> Pids() const;

  // Kills what still runs inside, then removes every directory. The first error, if any.
  Status Destroy();

 private:
  Cgroup(Platform& p, int version, std::string name) : p_(p), version_(version), name_(std::move(name)) {}
  Platform& p_;
  int version_;
  std::string name_;
  std::vector<std::string> dirs_;
  std::vector<std::pair<std::string, std::string>> v1_dirs_;  // controller -> dir
  bool destroyed_ = false;
  bool observed_ = false;  // another program's: never removed
};

// SIGKILLs every process in the cgroup directory `dir` (and its child groups), waits up to
// ~2 s for them to leave and rmdirs it. Ok when `dir` is already gone. Used by Destroy and
// by the cleanup of dead runs.
Status RemoveCgroupDir(Platform& platform, const std::string& dir);

}  // namespace ream
