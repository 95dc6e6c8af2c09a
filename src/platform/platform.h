// The one narrow interface through which ream touches the operating system: files under
// /proc, /sys, cgroupfs and resctrl; running commands (ip, tc); clocks; a few probing
// syscalls. Everything above platform/ takes a Platform&, so unit tests run on a fake
// file tree (RootedPlatform) and integration tests on the real machine (PosixPlatform).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "platform/process.h"
#include "platform/status.h"

namespace ream {

struct CommandResult {
  int exit_code = -1;  // the command's exit status; 128+N when killed by signal N
  std::string out;     // standard output
  std::string err;     // standard error
  // "exit 2: RTNETLINK answers: ..." — the first line of stderr, for messages.
  std::string Describe() const;
};

struct DirEntry {
  std::string name;
  bool is_dir = false;
};

// Hardware event counters opened by the platform (perf events), read as one sum. Closed when
// destroyed.
class EventCounter {
 public:
  virtual ~EventCounter() = default;
  // The events counted since the counter was opened, summed over its CPUs. IoError when a
  // read fails.
  virtual Result<uint64_t> Read() = 0;
};

class Platform {
 public:
  virtual ~Platform() = default;

  // Files. Paths are absolute host paths ("/sys/fs/cgroup/..."); a fake maps them.
  // ReadFile: NotFound when absent, PermissionDenied, IoError otherwise.
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // WriteFile writes (truncating) in one write(2), as cgroupfs and resctrl expect; the
  // kernel's errno (EINVAL for a rejected value, ...) is in the Status.
  virtual Status WriteFile(const std::string& path, const std::string& content) = 0;
  virtual Status AppendFile(const std::string& path, const std::string& content) = 0;
  // A stream writing `path` (created or truncated) as it goes, for output that grows during a
  // run (ream run --events). PermissionDenied / NotFound / IoError when it cannot be created.
  virtual Result<std::unique_ptr<std::ostream>> OpenForWriting(const std::string& path) = 0;
  // rename(2): replaces `to` atomically (a report written to a temporary file, then moved).
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  virtual bool Exists(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  // Entries other than "." and "..", sorted by name. NotFound when the directory is absent.
  virtual Result<std::vector<DirEntry>> ListDir(const std::string& path) = 0;
  // MakeDir: AlreadyExists when present. RemoveDir: rmdir(2), NotFound when absent.
  virtual Status MakeDir(const std::string& path) = 0;
  virtual Status RemoveDir(const std::string& path) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Canonical path of a symlink's target or of a path, for /sys device links.
  virtual Result<std::string> RealPath(const std::string& path) = 0;

  // Runs argv[0] (searched in PATH) to completion with no stdin, capturing output.
  // NotFound when the program does not exist; Timeout (after killing it) past `timeout`.
  virtual Result<CommandResult> Run(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout) = 0;
  // Absolute path of an executable in PATH, NotFound otherwise.
  virtual Result<std::string> FindExecutable(const std::string& name) = 0;

  // Processes, for the sandboxes. The defaults answer Unsupported, so fakes need not
  // implement them. Spawn: the errno of the step that failed (joining a cgroup, entering the
  // network namespace, exec) in the Status; NotFound when argv[0] is not found.
  virtual Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options);
  // kill(2) on any process (the leftovers of a dead run). NotFound when there is none.
  virtual Status Kill(int pid, int sig);
  // (major, minor) of the device holding `path` (stat's st_dev).
  virtual Result<std::pair<int, int>> DeviceOf(const std::string& path);
  // CPU time consumed so far by the calling thread (the monitor measures its own cost).
  virtual int64_t ThreadCpuNanos();
  // The account `name` from the user database (getpwnam_r, getgrouplist), for
  // SpawnOptions::run_as. NotFound naming the user when there is none.
  virtual Result<RunAs> LookupUser(const std::string& name);
  // lstat(2): whether `path` itself is a symbolic link (false when absent or unreadable).
  virtual bool IsSymlink(const std::string& path);
  // chown(2), for a directory a workload running as another user must write into.
  virtual Status ChangeOwner(const std::string& path, int uid, int gid);
  // chmod(2), for a file a workload running as another user must execute.
  virtual Status ChangeMode(const std::string& path, unsigned mode);
  // rm -r of a directory a workload wrote into, safe as root against what it planted there:
  // no symbolic link is followed (one is removed as a link; `path` itself being one is
  // InvalidArgument), nothing on another file system is entered (a mount point inside is an
  // error, left in place), and each level is opened relative to its parent's descriptor, so a
  // directory renamed or swapped for a link mid-walk cannot lead out of the tree. NotFound
  // when `path` is absent; else the first error, after removing all it could.
  virtual Status RemoveTreeNoFollow(const std::string& path);

  // Clocks and sleeping (leveldb's Env::NowMicros / SleepForMicroseconds): code that waits
  // (cgroup removal retries, readiness polls) reads time and sleeps through here, so a fake
  // clock whose sleep only advances it makes those waits instant and checkable in tests.
  // Hot paths that must not pay a virtual call read platform/clock.h directly.
  virtual int64_t MonotonicNanos() = 0;
  virtual int64_t WallNanos() = 0;
  // Blocks the calling thread for `duration` (<= 0: returns at once).
  virtual void SleepFor(std::chrono::nanoseconds duration) = 0;

  // Probing syscalls used by `ream doctor` and the monitors.
  // Opens (and closes) a perf event counting LLC read misses for this process. Ok when the
  // kernel and hardware count it; otherwise the errno-derived reason.
  virtual Status ProbePerfLlcMisses() = 0;
  // Counts the LLC read misses of the tasks in the cgroup directory `cgroup_dir` (v2: the
  // group's directory; v1: its perf_event controller's), one perf event per CPU of `cpus`
  // (perf_event_open with PERF_FLAG_PID_CGROUP: a cgroup event counts only on the CPU it is
  // opened for). The errno of the first open that failed otherwise, named in the message
  // ("... (ENOENT)"); Unsupported when the CPU or VM has no such counter. The default (fakes)
  // is Unsupported.
  virtual Result<std::unique_ptr<EventCounter>> OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                                     const std::vector<int>& cpus);
  // KVM_GET_API_VERSION on /dev/kvm.
  virtual Result<int> KvmApiVersion() = 0;
  // Filesystem magic of the filesystem holding `path` (statfs f_type).
  virtual Result<int64_t> FilesystemMagic(const std::string& path) = 0;
  virtual int ProcessId() = 0;
  // geteuid(2): 0 when ream runs as root (cgroups, namespaces and veths need it).
  virtual int EffectiveUserId() = 0;
};

// The real machine.
std::unique_ptr<Platform> MakePosixPlatform();

// A fake for unit tests: every absolute path is looked up under `root` (a fixture tree
// copied from a real machine), and commands are answered by `runner` (nullptr: every
// command is NotFound). Clocks are a manual clock starting at 0 that SleepFor advances.
class RootedPlatform : public Platform {
 public:
  using Runner = std::function<Result<CommandResult>(const std::vector<std::string>&)>;
  explicit RootedPlatform(std::string root, Runner runner = nullptr);

  // Reports NotFound-as-Status when the root does not exist, for the caller to show.
  static Result<std::unique_ptr<RootedPlatform>> Open(const std::string& root,
                                                      Runner runner = nullptr);

  Result<std::string> ReadFile(const std::string& path) override;
  Status WriteFile(const std::string& path, const std::string& content) override;
  Status AppendFile(const std::string& path, const std::string& content) override;
  Result<std::unique_ptr<std::ostream>> OpenForWriting(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  bool Exists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Result<std::vector<DirEntry>> ListDir(const std::string& path) override;
  Status MakeDir(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Status RemoveFile(const std::string& path) override;
  Result<std::string> RealPath(const std::string& path) override;
  bool IsSymlink(const std::string& path) override;
  Status RemoveTreeNoFollow(const std::string& path) override;
  Result<CommandResult> Run(const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout) override;
  Result<std::string> FindExecutable(const std::string& name) override;
  int64_t MonotonicNanos() override { return now_ns_; }
  int64_t WallNanos() override { return now_ns_; }
  // Advances the manual clock by `duration` instead of waiting.
  void SleepFor(std::chrono::nanoseconds duration) override;
  Status ProbePerfLlcMisses() override;
  // perf's status when it is not Ok; else a counter reading `llc_misses` (SetCgroupLlcMisses)
  // for the cgroup directory the test names, Unsupported without one.
  Result<std::unique_ptr<EventCounter>> OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                             const std::vector<int>& cpus) override;
  Result<int> KvmApiVersion() override;
  Result<int64_t> FilesystemMagic(const std::string& path) override;
  int ProcessId() override { return 4242; }
  int EffectiveUserId() override { return 0; }

  void AdvanceNanos(int64_t ns) { now_ns_ += ns; }
  // The sleeps asked of SleepFor, in order.
  std::vector<std::chrono::nanoseconds> sleeps() const;
  // What the fake's probes answer (default: unsupported).
  void SetPerfStatus(Status s) { perf_status_ = std::move(s); }
  // The LLC misses a cgroup event opened on the fake reads (summed over its CPUs): the value
  // of `*misses` at each read. nullptr: no such counter (Unsupported).
  void SetCgroupLlcMisses(std::shared_ptr<std::atomic<uint64_t>> misses) { llc_misses_ = std::move(misses); }
  // The cgroup directories and CPU lists OpenCgroupLlcMisses was asked for, in order.
  std::vector<std::pair<std::string, std::vector<int>>> llc_miss_opens() const;
  void SetFilesystemMagic(int64_t magic) { fs_magic_ = magic; }
  // Every command Run() was asked to run, in order.
  const std::vector<std::vector<std::string>>& commands() const { return commands_; }
  const std::string& root() const { return root_; }
  std::string Map(const std::string& path) const;

 private:
  std::unique_ptr<Platform> host_;
  std::string root_;
  Runner runner_;
  // Atomic: a monitor's sampling thread reads the clock while the test advances it.
  std::atomic<int64_t> now_ns_ = 0;
  mutable std::mutex sleeps_mu_;
  std::vector<std::chrono::nanoseconds> sleeps_;
  Status perf_status_ = Unsupported("fake platform: no performance counters");
  std::shared_ptr<std::atomic<uint64_t>> llc_misses_;
  mutable std::mutex llc_mu_;
  std::vector<std::pair<std::string, std::vector<int>>> llc_miss_opens_;
  int64_t fs_magic_ = 0;
  std::vector<std::vector<std::string>> commands_;
};

// Small helpers shared by the layers above.
// Trims ASCII whitespace at both ends.
// FNV-1a of `bytes` as 16 hex digits: a content key (a spec's text, a binary), not a
// cryptographic hash.
std::string Fnv1aHex(std::string_view bytes);
std::string Trim(std::string_view s);
// A whole string (spaces trimmed) as a finite double; false for anything else.
bool ParseFiniteDouble(std::string_view s, double* out);
// Parses a duration with a unit: "20us", "1.5ms", "100ns", "2s", "0". InvalidArgument naming
// the text otherwise. `what` names the flag for the message.
Result<int64_t> ParseDurationNs(std::string_view text, std::string_view what);
// Splits on `sep`, dropping empty pieces when `skip_empty`.
std::vector<std::string> Split(std::string_view s, char sep, bool skip_empty = true);
// Parses a kernel CPU list ("0-3,8,10-11") into sorted CPU ids. InvalidArgument on garbage.
Result<std::vector<int>> ParseCpuList(std::string_view list);
// Formats sorted CPU ids as a kernel CPU list ("0-3,8").
std::string FormatCpuList(const std::vector<int>& cpus);

}  // namespace ream
