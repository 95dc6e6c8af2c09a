// A Platform that forwards every call to another one (leveldb's EnvWrapper), so a test can
// override just the calls it cares about — a WriteFile that fails with a chosen Status, a
// clock it drives — and keep the real (or fixture) behaviour for everything else.
//
//   class FullDisk : public ForwardingPlatform {
//     using ForwardingPlatform::ForwardingPlatform;
//     Status WriteFile(const std::string& p, const std::string&) override {
//       return IoError("write " + p + ": No space left on device");
//     }
//   };
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "platform/platform.h"

namespace ream {

class ForwardingPlatform : public Platform {
 public:
  // `target` must outlive this wrapper.
  explicit ForwardingPlatform(Platform& target) : target_(target) {}
  Platform& target() { return target_; }

  Result<std::string> ReadFile(const std::string& path) override { return target_.ReadFile(path); }
  Status WriteFile(const std::string& path, const std::string& content) override {
    return target_.WriteFile(path, content);
  }
  Status AppendFile(const std::string& path, const std::string& content) override {
    return target_.AppendFile(path, content);
  }
  Result<std::unique_ptr<std::ostream>> OpenForWriting(const std::string& path) override {
    return target_.OpenForWriting(path);
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    return target_.RenameFile(from, to);
  }
  bool Exists(const std::string& path) override { return target_.Exists(path); }
  bool IsDirectory(const std::string& path) override { return target_.IsDirectory(path); }
  Result<std::vector<DirEntry>> ListDir(const std::string& path) override {
    return target_.ListDir(path);
  }
  Status MakeDir(const std::string& path) override { return target_.MakeDir(path); }
  Status RemoveDir(const std::string& path) override { return target_.RemoveDir(path); }
  Status RemoveFile(const std::string& path) override { return target_.RemoveFile(path); }
  Result<std::string> RealPath(const std::string& path) override { return target_.RealPath(path); }
  Result<CommandResult> Run(const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout) override {
    return target_.Run(argv, timeout);
  }
  Result<std::string> FindExecutable(const std::string& name) override {
    return target_.FindExecutable(name);
  }
  Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options) override {
    return target_.Spawn(options);
  }
  Status Kill(int pid, int sig) override { return target_.Kill(pid, sig); }
  Result<std::pair<int, int>> DeviceOf(const std::string& path) override {
    return target_.DeviceOf(path);
  }
  int64_t ThreadCpuNanos() override { return target_.ThreadCpuNanos(); }
  Result<RunAs> LookupUser(const std::string& name) override { return target_.LookupUser(name); }
  bool IsSymlink(const std::string& path) override { return target_.IsSymlink(path); }
  Status ChangeOwner(const std::string& path, int uid, int gid) override {
    return target_.ChangeOwner(path, uid, gid);
  }
  Status RemoveTreeNoFollow(const std::string& path) override { return target_.RemoveTreeNoFollow(path); }
  int64_t MonotonicNanos() override { return target_.MonotonicNanos(); }
  int64_t WallNanos() override { return target_.WallNanos(); }
  void SleepFor(std::chrono::nanoseconds duration) override { target_.SleepFor(duration); }
  Status ProbePerfLlcMisses() override { return target_.ProbePerfLlcMisses(); }
  Result<std::unique_ptr<EventCounter>> OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                             const std::vector<int>& cpus) override {
    return target_.OpenCgroupLlcMisses(cgroup_dir, cpus);
  }
  Result<int> KvmApiVersion() override { return target_.KvmApiVersion(); }
  Result<int64_t> FilesystemMagic(const std::string& path) override {
    return target_.FilesystemMagic(path);
  }
  int ProcessId() override { return target_.ProcessId(); }
  int EffectiveUserId() override { return target_.EffectiveUserId(); }

 private:
  Platform& target_;
};

// The target's files, commands and processes with a manual clock: MonotonicNanos and
// WallNanos read a counter (starting at `start_ns`) that SleepFor and Advance move, so code
// that waits (retries, readiness polls, timeouts) runs instantly and deterministically in
// tests on the real machine or on a fixture tree. Thread-safe.
class FakeClockPlatform : public ForwardingPlatform {
 public:
  explicit FakeClockPlatform(Platform& target, int64_t start_ns = 0)
      : ForwardingPlatform(target), now_ns_(start_ns) {}

  int64_t MonotonicNanos() override { return now_ns_; }
  int64_t WallNanos() override { return now_ns_; }
  void SleepFor(std::chrono::nanoseconds duration) override {
    if (duration.count() <= 0) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      sleeps_.push_back(duration);
    }
    now_ns_ += duration.count();
  }

  void Advance(std::chrono::nanoseconds duration) { now_ns_ += duration.count(); }
  // Every SleepFor asked, in order.
  std::vector<std::chrono::nanoseconds> sleeps() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

 private:
  std::atomic<int64_t> now_ns_;
  mutable std::mutex mu_;
  std::vector<std::chrono::nanoseconds> sleeps_;
};

// A forwarding platform whose file, command and clock calls can each be intercepted by a
// hook, for fault-injection tests (experiment/fault_injection_test.cc): a hook returns
// the fault, or std::nullopt to let the call through to the target. Hooks are set before the
// code under test runs (they are not guarded) and may be called from any thread (the
// monitor samples on its own), so what they change while it runs must be atomic.
class FaultPlatform : public ForwardingPlatform {
 public:
  using ForwardingPlatform::ForwardingPlatform;

  std::function<std::optional<Result<std::string>>(const std::string& path)> on_read;
  std::function<std::optional<Status>(const std::string& path, const std::string& content)> on_write;
  std::function<std::optional<Result<CommandResult>>(const std::vector<std::string>& argv)> on_run;
  // Added to the target's clocks at each reading (a jump: the offset changes).
  std::atomic<int64_t> monotonic_offset_ns{0};
  std::atomic<int64_t> wall_offset_ns{0};

  Result<std::string> ReadFile(const std::string& path) override {
    if (on_read) {
      if (auto r = on_read(path)) return std::move(*r);
    }
    return ForwardingPlatform::ReadFile(path);
  }
  Status WriteFile(const std::string& path, const std::string& content) override {
    if (on_write) {
      if (auto s = on_write(path, content)) return std::move(*s);
    }
    return ForwardingPlatform::WriteFile(path, content);
  }
  Result<CommandResult> Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) override {
    if (on_run) {
      if (auto r = on_run(argv)) return std::move(*r);
    }
    return ForwardingPlatform::Run(argv, timeout);
  }
  int64_t MonotonicNanos() override { return ForwardingPlatform::MonotonicNanos() + monotonic_offset_ns.load(); }
  int64_t WallNanos() override { return ForwardingPlatform::WallNanos() + wall_offset_ns.load(); }
};

}  // namespace ream
