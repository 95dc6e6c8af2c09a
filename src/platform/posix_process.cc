// fork/exec of sandboxed children. The child waits on a pipe until the parent has written
// its pid into every cgroup/resctrl file, then enters the network namespace and execs; an
// exec failure travels back on a close-on-exec pipe, so Spawn reports it as a Status.
#include "platform/posix_process.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

extern char** environ;

namespace ream {
namespace {

constexpr size_t kMaxLines = 1000;

ProcessExit FromWaitStatus(int wstatus) {
  ProcessExit e;
  if (WIFSIGNALED(wstatus)) {
    e.signaled = true;
    e.signal = WTERMSIG(wstatus);
  } else {
    e.exit_code = WEXITSTATUS(wstatus);
  }
  return e;
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// write(2) on a pipe whose reader may be gone, without the SIGPIPE that would kill ream: the
// signal is blocked for the call and a pending one consumed (the usual recipe; pipes have no
// MSG_NOSIGNAL). errno is write's.
ssize_t WriteNoSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  bool was_pending = ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t n = ::write(fd, data, size);
  int e = errno;
  if (n < 0 && e == EPIPE && !was_pending) {
    struct timespec zero = {0, 0};
    while (::sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = e;
  return n;
}

class PosixChild final : public ChildProcess {
 public:
  PosixChild(pid_t pid, int pidfd, int stdout_fd, int stdin_fd, std::function<void(const std::string&)> on_line)
      : pid_(pid), pidfd_(pidfd), stdout_fd_(stdout_fd), stdin_fd_(stdin_fd), on_line_(std::move(on_line)) {
    if (stdout_fd_ >= 0) {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) == 0) {
        wake_r_ = p[0];
        wake_w_ = p[1];
      }
      reader_ = std::thread([this] { ReadLoop(); });
    } else {
      eof_ = true;
    }
  }

  ~PosixChild() override {
    if (!exit_) {
      ::kill(pid_, SIGKILL);
      int ws = 0;
      while (::waitpid(pid_, &ws, 0) < 0 && errno == EINTR) {
      }
    }
    if (reader_.joinable()) {
      // The workload's own children may hold stdout open: wake the reader instead of
      // waiting for EOF.
      if (wake_w_ >= 0) (void)!::write(wake_w_, "x", 1);
      reader_.join();
    }
    CloseFd(stdout_fd_);
    CloseFd(stdin_fd_);
    CloseFd(wake_r_);
    CloseFd(wake_w_);
    CloseFd(pidfd_);
  }

  int pid() const override { return pid_; }

  Status Signal(int sig) override {
    if (exit_) return NotFound("process " + std::to_string(pid_) + " has already ended");
    if (::kill(pid_, sig) != 0) return ErrnoStatus(errno, "kill " + std::to_string(pid_));
    return Status::Ok();
  }

  std::optional<ProcessExit> Poll() override {
    if (exit_) return exit_;
    int ws = 0;
    pid_t r = ::waitpid(pid_, &ws, WNOHANG);
    if (r == pid_) exit_ = FromWaitStatus(ws);
    return exit_;
  }

  Result<ProcessExit> Wait(std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto e = Poll()) return *e;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Timeout("process " + std::to_string(pid_) + " still running after " +
                       std::to_string(timeout.count()) + " ms");
      }
      if (pidfd_ >= 0) {
        struct pollfd pfd = {pidfd_, POLLIN, 0};
        ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      } else {
        std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(5)));
      }
    }
  }

  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  std::chrono::milliseconds timeout) override {
    if (stdout_fd_ < 0 && !reader_.joinable()) {
      return Unsupported("stdout of process " + std::to_string(pid_) + " is not captured");
    }
    std::unique_lock<std::mutex> lock(mu_);
    size_t next = 0;  // index into all lines ever seen
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      size_t first = total_lines_ - lines_.size();
      if (next < first) next = first;
      for (; next < total_lines_; ++next) {
        const std::string& l = lines_[next - first];
        if (match(l)) return l;
      }
      if (eof_) {
        return Unavailable("process " + std::to_string(pid_) +
                           " closed its stdout without printing the expected line");
      }
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && next == total_lines_ &&
          !eof_) {
        return Timeout("no matching line on the stdout of process " + std::to_string(pid_) +
                       " within " + std::to_string(timeout.count()) + " ms");
      }
    }
  }

  std::vector<std::string> Lines() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return {lines_.begin(), lines_.end()};
  }

  bool WaitForOutputEnd(std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [this] { return eof_; });
  }

  Status WriteStdin(const std::string& data, std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(stdin_mu_);
    if (stdin_fd_ < 0) return ChildProcess::WriteStdin(data, timeout);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    size_t done = 0;
    while (done < data.size()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Timeout("the stdin of process " + std::to_string(pid_) + " stayed full for " +
                       std::to_string(timeout.count()) + " ms");
      }
      struct pollfd pfd = {stdin_fd_, POLLOUT, 0};
      int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) continue;
      if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
        return Unavailable("process " + std::to_string(pid_) + " closed its stdin (it has exited)");
      }
      ssize_t n = WriteNoSigpipe(stdin_fd_, data.data() + done, data.size() - done);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0 && errno == EPIPE) {
        return Unavailable("process " + std::to_string(pid_) + " closed its stdin (it has exited)");
      }
      if (n < 0) return ErrnoStatus(errno, "writing to the stdin of process " + std::to_string(pid_));
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  void CloseStdin() override {
    std::lock_guard<std::mutex> lock(stdin_mu_);
    CloseFd(stdin_fd_);
  }

 private:
  void ReadLoop() {
    std::string partial;
    char buf[4096];
    auto take = [&](ssize_t n) {
      partial.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = partial.find('\n')) != std::string::npos) {
        AddLine(partial.substr(0, nl));
        partial.erase(0, nl + 1);
      }
    };
    for (;;) {
      struct pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {wake_r_, POLLIN, 0}};
      int r = ::poll(fds, wake_r_ >= 0 ? 2 : 1, -1);
      if (r < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (wake_r_ >= 0 && (fds[1].revents & POLLIN)) {
        // Woken to stop: what is already in the pipe is still passed on, without waiting for
        // an end that the process's own children may hold off.
        int fl = ::fcntl(stdout_fd_, F_GETFL);
        if (fl >= 0 && ::fcntl(stdout_fd_, F_SETFL, fl | O_NONBLOCK) == 0) {
          for (ssize_t n; (n = ::read(stdout_fd_, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);) {
            if (n > 0) take(n);
          }
        }
        break;
      }
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      take(n);
    }
    if (!partial.empty()) AddLine(partial);
    std::lock_guard<std::mutex> lock(mu_);
    eof_ = true;
    cv_.notify_all();
  }

  void AddLine(std::string line) {
    if (on_line_) on_line_(line);
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(std::move(line));
    ++total_lines_;
    if (lines_.size() > kMaxLines) lines_.pop_front();
    cv_.notify_all();
  }

  pid_t pid_;
  int pidfd_;
  int stdout_fd_;
  int stdin_fd_;
  std::mutex stdin_mu_;
  int wake_r_ = -1, wake_w_ = -1;
  std::function<void(const std::string&)> on_line_;
  std::optional<ProcessExit> exit_;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> lines_;
  size_t total_lines_ = 0;
  bool eof_ = false;
};

// Writes "<what>: <strerror>" to the error pipe and exits; only async-signal-safe calls.
[[noreturn]] void ChildFail(int err_fd, int err, const char* what) {
  char msg[512];
  size_t n = 0;
  auto add = [&](const char* s) {
    while (*s && n + 1 < sizeof msg) msg[n++] = *s++;
  };
  add(what);
  add(": ");
  add(::strerror(err));  // not formally async-signal-safe, but reads a static table
  (void)!::write(err_fd, &err, sizeof err);
  (void)!::write(err_fd, msg, n);
  ::_exit(127);
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> PosixSpawn(const SpawnOptions& o,
                                                const std::string& exe) {
  // Everything the child needs is prepared before fork: after fork only async-signal-safe
  // calls are allowed (ream is multi-threaded).
  std::vector<std::pair<std::string, std::string>> env = o.env;
  if (o.run_as) {
    // The user's own HOME, USER and LOGNAME, not root's: a workload writing under $HOME
    // writes where that user may.
    env.emplace_back("HOME", o.run_as->home);
    env.emplace_back("USER", o.run_as->name);
    env.emplace_back("LOGNAME", o.run_as->name);
  }
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    bool overridden = false;
    for (const auto& [k, v] : env) overridden = overridden || entry.rfind(k + "=", 0) == 0;
    if (!overridden) env_store.push_back(entry);
  }
  for (const auto& [k, v] : env) env_store.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Dropping to run_as: the groups and the messages of each step, made before fork.
  std::vector<gid_t> groups;
  std::string who, fail_groups, fail_gid, fail_caps, fail_uid, fail_nnp;
  if (o.run_as) {
    for (int g : o.run_as->groups) groups.push_back(static_cast<gid_t>(g));
    who = "switching to user " + o.run_as->name + " (uid " + std::to_string(o.run_as->uid) + ", gid " +
          std::to_string(o.run_as->gid) + ")";
    fail_groups = who + ": setgroups";
    fail_gid = who + ": setgid";
    fail_caps = who + ": dropping capabilities";
    fail_uid = who + ": setuid";
    fail_nnp = who + ": PR_SET_NO_NEW_PRIVS";
  }

  // A program run as another user is opened here, by ream, and executed from that descriptor
  // (execveat): the user needs the right to execute the file, not to reach it, so a workload
  // built in a directory only root can enter (a checkout under /root, a private temporary
  // directory) still runs as the unprivileged user. ELF files only: a script's interpreter
  // would have to reopen it by a /dev/fd path that close-on-exec has closed.
  const std::string fail_chdir = "entering the working directory " + o.working_dir;
  int exe_fd = -1;
  if (o.run_as) {
    int fd = ::open(exe.c_str(), O_RDONLY | O_CLOEXEC);
    char magic[4] = {};
    if (fd >= 0 && ::pread(fd, magic, 4, 0) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0) {
      exe_fd = fd;
    } else if (fd >= 0) {
      ::close(fd);
    }
  }
  int netns_fd = -1;
  if (!o.netns_path.empty()) {
    netns_fd = ::open(o.netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (netns_fd < 0) return ErrnoStatus(errno, "open network namespace " + o.netns_path);
  }
  int go[2] = {-1, -1}, err[2] = {-1, -1}, out[2] = {-1, -1}, in[2] = {-1, -1};
  int errfile = -1;
  int outfile = -1;
  auto close_all = [&] {
    for (int* fd : {&go[0], &go[1], &err[0], &err[1], &out[0], &out[1], &in[0], &in[1], &errfile, &outfile, &netns_fd,
                    &exe_fd}) {
      CloseFd(*fd);
    }
  };
  if (!o.stderr_path.empty()) {
    errfile = ::open(o.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (errfile < 0) {
      Status s = ErrnoStatus(errno, "open " + o.stderr_path + " for the stderr of '" + o.argv[0] + "'");
      close_all();
      return s;
    }
  }
  if (!o.stdout_path.empty() && !o.capture_stdout) {
    outfile = ::open(o.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (outfile < 0) {
      Status s = ErrnoStatus(errno, "open " + o.stdout_path + " for the stdout of '" + o.argv[0] + "'");
      close_all();
      return s;
    }
  }
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      (o.capture_stdout && ::pipe2(out, O_CLOEXEC) != 0) || (o.pipe_stdin && ::pipe2(in, O_CLOEXEC) != 0)) {
    Status s = ErrnoStatus(errno, "pipe");
    close_all();
    return s;
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    Status s = ErrnoStatus(errno, "fork");
    close_all();
    return s;
  }
  if (pid == 0) {
    if (o.kill_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    // Signals ream turned into flags must not stay ignored/blocked in the workload.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    // A new process group, so a terminal's ^C reaches ream, which stops the sandbox in order.
    ::setpgid(0, 0);
    char c;
    ssize_t r;
    while ((r = ::read(go[0], &c, 1)) < 0 && errno == EINTR) {
    }
    if (r != 1) ::_exit(127);  // the parent gave up (a join file failed)
    if (netns_fd >= 0 && ::setns(netns_fd, CLONE_NEWNET) != 0) {
      ChildFail(err[1], errno, "entering the network namespace");
    }
    if (o.run_as) {
      // Groups and gid first (they need the privilege the uid change gives up), the bounding
      // and ambient sets emptied while CAP_SETPCAP is still held, then the uid: leaving uid 0
      // clears the permitted and effective sets.
      if (::setgroups(groups.size(), groups.data()) != 0) ChildFail(err[1], errno, fail_groups.c_str());
      if (::setgid(static_cast<gid_t>(o.run_as->gid)) != 0) ChildFail(err[1], errno, fail_gid.c_str());
      for (int cap = 0; cap < 64; ++cap) {
        // EINVAL: past the last capability this kernel knows.
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
          ChildFail(err[1], errno, fail_caps.c_str());
        }
      }
      (void)::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);  // EINVAL before 4.3
      if (::setuid(static_cast<uid_t>(o.run_as->uid)) != 0) ChildFail(err[1], errno, fail_uid.c_str());
      // The inheritable set survives setuid; empty it too, so no capability is left anywhere.
      struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
      struct __user_cap_data_struct data[2] = {};
      if (::syscall(SYS_capset, &hdr, data) != 0) ChildFail(err[1], errno, fail_caps.c_str());
      // A credential change clears the parent-death signal: set it again.
      if (o.kill_with_parent) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
      }
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ChildFail(err[1], errno, fail_nnp.c_str());
    }
    if (!o.working_dir.empty() && ::chdir(o.working_dir.c_str()) != 0) {
      ChildFail(err[1], errno, fail_chdir.c_str());
    }
    if (o.capture_stdout) ::dup2(out[1], 1);
    if (o.pipe_stdin) ::dup2(in[0], 0);
    if (errfile >= 0) ::dup2(errfile, 2);
    if (outfile >= 0) ::dup2(outfile, 1);
    if (exe_fd >= 0) {
      ::syscall(SYS_execveat, exe_fd, "", args.data(), envp.data(), AT_EMPTY_PATH);
      if (errno != ENOSYS) ChildFail(err[1], errno, "exec");
    }
    ::execve(exe.c_str(), args.data(), envp.data());
    ChildFail(err[1], errno, "exec");
  }
  CloseFd(exe_fd);
  CloseFd(go[0]);
  CloseFd(err[1]);
  CloseFd(out[1]);
  CloseFd(in[0]);
  CloseFd(errfile);
  CloseFd(outfile);
  CloseFd(netns_fd);
  auto abort_child = [&](Status s) -> Status {
    ::kill(pid, SIGKILL);
    int ws;
    while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    close_all();
    return s;
  };
  std::string spid = std::to_string(pid);
  for (const auto& f : o.join_files) {
    int fd = ::open(f.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return abort_child(ErrnoStatus(errno, "open " + f));
    ssize_t n = ::write(fd, spid.data(), spid.size());
    int e = errno;
    ::close(fd);
    if (n < 0) return abort_child(ErrnoStatus(e, "write pid " + spid + " to " + f));
  }
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (o.before_exec) o.before_exec();
  if (::write(go[1], "g", 1) != 1) return abort_child(ErrnoStatus(errno, "releasing the child"));
  CloseFd(go[1]);
  // exec succeeded when the error pipe closes with nothing in it.
  int child_errno = 0;
  char msg[512];
  ssize_t n;
  while ((n = ::read(err[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    ssize_t m = ::read(err[0], msg, sizeof msg);
    std::string what = m > 0 ? std::string(msg, static_cast<size_t>(m)) : "exec failed";
    int ws;
    while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (pidfd >= 0) ::close(pidfd);
    close_all();
    StatusCode code = child_errno == ENOENT ? StatusCode::kNotFound
                      : child_errno == EACCES || child_errno == EPERM
                          ? StatusCode::kPermissionDenied
                          : StatusCode::kIoError;
    return Status(code, "starting '" + o.argv[0] + "': " + what);
  }
  CloseFd(err[0]);
  int stdout_fd = out[0];
  out[0] = -1;
  int stdin_fd = in[1];
  in[1] = -1;
  if (stdin_fd >= 0) {
    // Writes never block ream for longer than WriteStdin's timeout.
    int fl = ::fcntl(stdin_fd, F_GETFL);
    if (fl >= 0) (void)::fcntl(stdin_fd, F_SETFL, fl | O_NONBLOCK);
  }
  return std::unique_ptr<ChildProcess>(
      new PosixChild(pid, pidfd, stdout_fd, stdin_fd, o.on_stdout_line));
}

}  // namespace ream
