// ProcessExit's description and the Platform defaults for fakes that cannot run processes.
#include <string.h>

#include "platform/platform.h"

namespace ream {

std::string ProcessExit::Describe() const {
  if (!signaled) return "exited with status " + std::to_string(exit_code);
  const char* abbrev = ::sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) +
         (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
}

Status ChildProcess::WriteStdin(const std::string& /*data*/, std::chrono::milliseconds /*timeout*/) {
  return Unsupported("the stdin of process " + std::to_string(pid()) + " is not a pipe (SpawnOptions::pipe_stdin)");
}

Result<std::unique_ptr<ChildProcess>> Platform::Spawn(const SpawnOptions& options) {
  return Unsupported("this platform cannot start processes ('" +
                     (options.argv.empty() ? std::string() : options.argv[0]) + "')");
}
Status Platform::Kill(int pid, int /*sig*/) {
  return Unsupported("this platform cannot signal processes (pid " + std::to_string(pid) + ")");
}
Result<std::pair<int, int>> Platform::DeviceOf(const std::string& path) {
  return Unsupported("this platform cannot stat " + path);
}
int64_t Platform::ThreadCpuNanos() { return 0; }
Result<std::unique_ptr<EventCounter>> Platform::OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                                    const std::vector<int>& /*cpus*/) {
  return Unsupported("this platform has no hardware counters (cgroup " + cgroup_dir + ")");
}
Result<RunAs> Platform::LookupUser(const std::string& name) {
  return Unsupported("this platform has no user database (user '" + name + "')");
}
bool Platform::IsSymlink(const std::string& /*path*/) { return false; }
Status Platform::ChangeOwner(const std::string& path, int /*uid*/, int /*gid*/) {
  return Unsupported("this platform cannot change the owner of " + path);
}
Status Platform::ChangeMode(const std::string& path, unsigned /*mode*/) {
  return Unsupported("this platform cannot change the mode of " + path);
}
Status Platform::RemoveTreeNoFollow(const std::string& path) {
  return Unsupported("this platform cannot remove the tree " + path);
}

}  // namespace ream
