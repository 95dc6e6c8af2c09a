// The real machine's Platform: POSIX files, fork/exec for commands, clock_gettime, and the
// perf_event_open / KVM probes.
#include <fcntl.h>
#include <grp.h>
#include <linux/kvm.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <ctime>
#include <dirent.h>

#include "platform/clock.h"
#include "platform/platform.h"
#include "platform/posix_process.h"
#include "platform/program_search.h"

extern char** environ;

namespace ream {
namespace {

// perf: the LLC read misses (the generic cache event; on Intel and AMD the L3's demand read
// misses, the lines filled from memory).
perf_event_attr LlcReadMissAttr() {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HW_CACHE;
  attr.config = PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
  attr.exclude_hv = 1;
  return attr;
}

// perf_event_open's errno as a Status that names it ("... (ENOENT)"): perf's errnos are its
// only explanation (ENOENT / EOPNOTSUPP / ENODEV: no such counter on this CPU or VM; EACCES:
// perf_event_paranoid; EINVAL: a flag this kernel does not know).
Status PerfStatus(int err, const std::string& what) {
  const char* name = ::strerrorname_np(err);
  Status s = ErrnoStatus(err, what);
  std::string msg = s.message() + " (" + (name ? name : "errno " + std::to_string(err)) + ")";
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
    return Unsupported(msg + ": no hardware counter for this event on this CPU/VM");
  }
  return Status(s.code(), msg);
}

class PerfEventCounter : public EventCounter {
 public:
  ~PerfEventCounter() override {
    for (int fd : fds) ::close(fd);
  }
  Result<uint64_t> Read() override {
    uint64_t sum = 0;
    for (int fd : fds) {
      uint64_t v = 0;
      ssize_t n = ::read(fd, &v, sizeof v);
      if (n != static_cast<ssize_t>(sizeof v)) {
        return n < 0 ? ErrnoStatus(errno, "reading a perf LLC-miss counter")
                     : IoError("reading a perf LLC-miss counter: short read");
      }
      sum += v;
    }
    return sum;
  }
  std::vector<int> fds;
};

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

Status WriteAll(const std::string& path, const std::string& content, int flags) {
  int fd = ::open(path.c_str(), flags | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "open " + path);
  FdCloser closer(fd);
  // One write(2): cgroupfs and resctrl parse each write as one value.
  ssize_t n = ::write(fd, content.data(), content.size());
  if (n < 0) return ErrnoStatus(errno, "write '" + Trim(content) + "' to " + path);
  if (static_cast<size_t>(n) != content.size()) return IoError("short write to " + path);
  return Status::Ok();
}

// RemoveTreeNoFollow's walk: removes what directory `fd` (owned, closed here) holds, entering
// only real directories on device `dev`, each opened relative to its parent. The first error.
Status RemoveContentsAt(int fd, dev_t dev, const std::string& where) {
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    Status s = ErrnoStatus(errno, "reading " + where);
    ::close(fd);
    return s;
  }
  // Every name first, then the removals: readdir's view of a directory being changed is
  // unspecified.
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  Status first;
  auto note = [&](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  const int dfd = ::dirfd(d);
  for (const std::string& name : names) {
    const std::string at = where + "/" + name;
    struct stat st {};
    if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) note(ErrnoStatus(errno, "lstat " + at));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (st.st_dev != dev) {
        note(IoError("not removing " + at + ": another file system is mounted there"));
        continue;
      }
      int sub = ::openat(dfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        if (errno != ENOENT) note(ErrnoStatus(errno, "opening " + at));
        continue;
      }
      note(RemoveContentsAt(sub, dev, at));
      if (::unlinkat(dfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) note(ErrnoStatus(errno, "rmdir " + at));
    } else if (::unlinkat(dfd, name.c_str(), 0) != 0 && errno != ENOENT) {
      note(ErrnoStatus(errno, "unlink " + at));
    }
  }
  ::closedir(d);
  return first;
}

class PosixPlatform final : public Platform {
 public:
  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "open " + path);
    FdCloser closer(fd);
    std::string out;
    char buf[16384];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(errno, "read " + path);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

  Status WriteFile(const std::string& path, const std::string& content) override {
    return WriteAll(path, content, O_CREAT | O_TRUNC);
  }
  Status AppendFile(const std::string& path, const std::string& content) override {
    return WriteAll(path, content, O_CREAT | O_APPEND);
  }

  Result<std::unique_ptr<std::ostream>> OpenForWriting(const std::string& path) override {
    // Created here with 0644 so the file never gets group/other write, whatever the umask
    // (an ofstream creates with 0666 & ~umask); the stream then truncates what exists.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus(errno, "creating " + path);
    ::close(fd);
    auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*out) return ErrnoStatus(errno, "creating " + path);
    return std::unique_ptr<std::ostream>(std::move(out));
  }

  bool IsSymlink(const std::string& path) override {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
  }

  Status ChangeOwner(const std::string& path, int uid, int gid) override {
    if (::chown(path.c_str(), static_cast<uid_t>(uid), static_cast<gid_t>(gid)) != 0) {
      return ErrnoStatus(errno, "chown " + path + " to " + std::to_string(uid) + ":" + std::to_string(gid));
    }
    return Status::Ok();
  }

  Status ChangeMode(const std::string& path, unsigned mode) override {
    if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
      char m[16];
      std::snprintf(m, sizeof m, "%o", mode);
      return ErrnoStatus(errno, "chmod " + std::string(m) + " " + path);
    }
    return Status::Ok();
  }

  Status RemoveTreeNoFollow(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ELOOP || errno == ENOTDIR) {
        return InvalidArgument("refusing to remove " + path + ": not a directory (a symbolic link or a file)");
      }
      return ErrnoStatus(errno, "opening " + path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      Status s = ErrnoStatus(errno, "fstat " + path);
      ::close(fd);
      return s;
    }
    Status first = RemoveContentsAt(fd, st.st_dev, path);
    // rmdir(2) of a name that became a link meanwhile fails (ENOTDIR): nothing is followed.
    if (::rmdir(path.c_str()) != 0 && first.ok()) first = ErrnoStatus(errno, "rmdir " + path);
    return first;
  }

  Result<RunAs> LookupUser(const std::string& name) override {
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    int rc = ::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found);
    if (rc != 0) return ErrnoStatus(rc, "looking up user '" + name + "'");
    if (found == nullptr) return NotFound("no user '" + name + "' on this machine");
    RunAs r;
    r.name = name;
    r.uid = static_cast<int>(pw.pw_uid);
    r.gid = static_cast<int>(pw.pw_gid);
    r.home = pw.pw_dir ? pw.pw_dir : "/";
    int n = 64;
    std::vector<gid_t> groups(static_cast<size_t>(n));
    while (::getgrouplist(name.c_str(), pw.pw_gid, groups.data(), &n) < 0) {
      groups.resize(static_cast<size_t>(n) * 2);
      n = static_cast<int>(groups.size());
    }
    for (int i = 0; i < n; ++i) r.groups.push_back(static_cast<int>(groups[static_cast<size_t>(i)]));
    return r;
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return ErrnoStatus(errno, "rename " + from + " to " + to);
    }
    return Status::Ok();
  }

  bool Exists(const std::string& path) override {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
  }
  bool IsDirectory(const std::string& path) override {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  Result<std::vector<DirEntry>> ListDir(const std::string& path) override {
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) return ErrnoStatus(errno, "opendir " + path);
    std::vector<DirEntry> out;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) is_dir = IsDirectory(path + "/" + name);
      out.push_back({name, is_dir});
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return out;
  }

  Status MakeDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0) return ErrnoStatus(errno, "mkdir " + path);
    return Status::Ok();
  }
  Status RemoveDir(const std::string& path) override {
    if (::rmdir(path.c_str()) != 0) return ErrnoStatus(errno, "rmdir " + path);
    return Status::Ok();
  }
  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return ErrnoStatus(errno, "unlink " + path);
    return Status::Ok();
  }
  Result<std::string> RealPath(const std::string& path) override {
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf) == nullptr) {
      const int err = errno;
      // /proc/self/exe names the running binary even for a user who cannot search the
      // directories it lies in (realpath(3) walks them): the kernel's link is already absolute
      // and resolved.
      if (err == EACCES && path == "/proc/self/exe") {
        const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
        if (n > 0) return std::string(buf, static_cast<size_t>(n));
      }
      return ErrnoStatus(err, "realpath " + path);
    }
    return std::string(buf);
  }

  Result<std::string> FindExecutable(const std::string& name) override {
    if (name.find('/') != std::string::npos) {
      if (::access(name.c_str(), X_OK) == 0) return name;
      return NotFound(name + " is not an executable file");
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    // Root's tools (ip, tc) live in sbin; search there even when PATH omits it.
    dirs += ":/usr/sbin:/sbin";
    for (const auto& dir : Split(dirs, ':')) {
      std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return NotFound("'" + name + "' not found in PATH");
  }

  Result<CommandResult> Run(const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout) override {
    if (argv.empty()) return InvalidArgument("empty command");
    REAM_ASSIGN_OR_RETURN(std::string exe, FindExecutable(argv[0]));
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe");
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      return ErrnoStatus(errno, "pipe");
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return ErrnoStatus(errno, "fork");
    if (pid == 0) {
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
      ::execve(exe.c_str(), args.data(), environ);
      ::_exit(127);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    CommandResult result;
    struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    int64_t deadline = MonotonicNanos() + static_cast<int64_t>(timeout.count()) * 1000000;
    bool timed_out = false;
    while (open_fds > 0) {
      int64_t left_ms = (deadline - MonotonicNanos()) / 1000000;
      if (left_ms <= 0) {
        timed_out = true;
        break;
      }
      int r = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left_ms, INT_MAX)));
      if (r < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buf[4096];
        ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      }
    }
    for (auto& f : fds)
      if (f.fd >= 0) ::close(f.fd);
    if (timed_out) ::kill(pid, SIGKILL);
    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
      return Timeout("'" + argv[0] + "' did not finish within " +
                     std::to_string(timeout.count()) + " ms");
    }
    if (WIFEXITED(wstatus)) {
      result.exit_code = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
      result.exit_code = 128 + WTERMSIG(wstatus);
    }
    return result;
  }

  int64_t MonotonicNanos() override { return MonotonicNowNs(); }
  int64_t WallNanos() override { return RealtimeNowNs(); }
  void SleepFor(std::chrono::nanoseconds duration) override {
    if (duration.count() <= 0) return;
    // nanosleep(2) on an absolute CLOCK_MONOTONIC deadline, resumed after a signal.
    int64_t deadline = MonotonicNowNs() + duration.count();
    timespec ts{static_cast<time_t>(deadline / 1'000'000'000),
                static_cast<long>(deadline % 1'000'000'000)};
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }

  Status ProbePerfLlcMisses() override {
    perf_event_attr attr = LlcReadMissAttr();
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return PerfStatus(errno, "perf_event_open(LLC read misses)");
    ::close(static_cast<int>(fd));
    return Status::Ok();
  }

  Result<std::unique_ptr<EventCounter>> OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                             const std::vector<int>& cpus) override {
    if (cpus.empty()) return InvalidArgument("an LLC-miss count of cgroup " + cgroup_dir + " needs its CPUs");
    int cg = ::open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg < 0) return ErrnoStatus(errno, "open " + cgroup_dir + " (for perf_event_open)");
    FdCloser closer(cg);
    // Counting from the open on (not disabled), user and kernel: the kernel's work for the
    // workload (its network stack, its page faults) moves memory too.
    perf_event_attr attr = LlcReadMissAttr();
    auto counter = std::make_unique<PerfEventCounter>();
    for (int cpu : cpus) {
      long fd = ::syscall(SYS_perf_event_open, &attr, cg, cpu, -1,
                          PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
      if (fd < 0) {
        return PerfStatus(errno, "perf_event_open(LLC read misses, cgroup " + cgroup_dir + ", CPU " +
                                     std::to_string(cpu) + ")");
      }
      counter->fds.push_back(static_cast<int>(fd));
    }
    return std::unique_ptr<EventCounter>(std::move(counter));
  }

  Result<int> KvmApiVersion() override {
    int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "open /dev/kvm");
    FdCloser closer(fd);
    int v = ::ioctl(fd, KVM_GET_API_VERSION, 0);
    if (v < 0) return ErrnoStatus(errno, "ioctl KVM_GET_API_VERSION");
    return v;
  }

  Result<int64_t> FilesystemMagic(const std::string& path) override {
    struct statfs st {};
    if (::statfs(path.c_str(), &st) != 0) return ErrnoStatus(errno, "statfs " + path);
    return static_cast<int64_t>(st.f_type);
  }

  int ProcessId() override { return static_cast<int>(::getpid()); }
  int EffectiveUserId() override { return static_cast<int>(::geteuid()); }

  Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options) override {
    if (options.argv.empty() || options.argv[0].empty()) {
      return InvalidArgument("no command to run");
    }
    const std::string& program = options.argv[0];
    if (options.run_as && program.find('/') == std::string::npos) {
      // Searched as the user who will run it, in the PATH the child gets: root's search could
      // pick a directory that user cannot enter, and the exec would then fail.
      const char* inherited = std::getenv("PATH");
      std::string path = inherited ? inherited : "";
      for (const auto& [k, v] : options.env) {
        if (k == "PATH") path = v;
      }
      REAM_ASSIGN_OR_RETURN(std::string exe, FindProgramAsUser(program, *options.run_as, path));
      return PosixSpawn(options, exe);
    }
    // ream's own binary by its path (`ream corun` starting `ream batch` or `ream pressure` as
    // the workload's user, who may execute the file but not reach it: a build under /root or in
    // a private temporary directory) is executed through /proc/self/exe, which the kernel
    // follows without searching the directories on the way.
    if (auto self = RealPath("/proc/self/exe"); self.ok() && program == *self) {
      return PosixSpawn(options, "/proc/self/exe");
    }
    REAM_ASSIGN_OR_RETURN(std::string exe, FindExecutable(program));
    if (!options.working_dir.empty() && exe.front() != '/') {
      // A relative program ("examples/nginx-serve.sh") names a file from ream's directory, and
      // starts there: the workload's user may execute it but not reach it by its full path (a
      // checkout in a private directory: exec of the absolute path was refused), while the
      // relative path from the directory it starts in needs no search of the ones above.
      SpawnOptions here = options;
      here.working_dir.clear();
      return PosixSpawn(here, exe);
    }
    return PosixSpawn(options, exe);
  }

  Status Kill(int pid, int sig) override {
    if (pid <= 0) return InvalidArgument("refusing to signal pid " + std::to_string(pid));
    if (::kill(pid, sig) != 0) return ErrnoStatus(errno, "kill " + std::to_string(pid));
    return Status::Ok();
  }

  Result<std::pair<int, int>> DeviceOf(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat " + path);
    return std::make_pair(static_cast<int>(major(st.st_dev)), static_cast<int>(minor(st.st_dev)));
  }

  int64_t ThreadCpuNanos() override { return ThreadCpuNs(); }
};

}  // namespace

std::unique_ptr<Platform> MakePosixPlatform() { return std::make_unique<PosixPlatform>(); }

}  // namespace ream
