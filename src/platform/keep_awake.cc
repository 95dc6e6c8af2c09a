// Keeping CPUs out of idle: the kernel's idle polling, or SCHED_IDLE pollers (see keep_awake.h).
#include "platform/keep_awake.h"

#include "platform/affinity.h"
#include "platform/platform.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace ream {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

std::string CpuDir(int cpu) { return "/sys/devices/system/cpu/cpu" + std::to_string(cpu); }
std::string QosFile(int cpu) { return CpuDir(cpu) + "/power/pm_qos_resume_latency_us"; }

// The file's first line, "" when it cannot be read.
std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// One write(2) of `value`; the errno's text when it fails.
std::string WriteValue(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ssize_t n = ::write(fd, value.data(), value.size());
  std::string err = n == static_cast<ssize_t>(value.size()) ? "" : std::strerror(n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

// The strictest constraint, as sysfs spells it: a resume latency of 0 µs.
constexpr char kNoLatency[] = "n/a";

}  // namespace

Status KeepAwake::KernelCanPoll(int cpu) {
  const std::string name = ReadLine(CpuDir(cpu) + "/cpuidle/state0/name");
  if (name.empty()) return Unavailable("CPU " + std::to_string(cpu) + " has no cpuidle driver (no idle states in sysfs)");
  if (name != "POLL") {
    return Unavailable("CPU " + std::to_string(cpu) + "'s shallowest idle state is " + name + ", not the polling one");
  }
  if (ReadLine(CpuDir(cpu) + "/cpuidle/state0/disable") == "1") {
    return Unavailable("CPU " + std::to_string(cpu) + "'s polling idle state is disabled");
  }
  if (::access(QosFile(cpu).c_str(), W_OK) != 0) {
    return Unavailable("cannot write " + QosFile(cpu) + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

KeepAwake::Via KeepAwake::FromEnvironment() {
  const char* v = std::getenv("REAM_KEEP_AWAKE");
  return v && std::string(v) == "pollers" ? Via::kPollers : Via::kBest;
}

Result<std::unique_ptr<KeepAwake>> KeepAwake::Start(const std::vector<int>& cpus_in, Via via) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.empty()) return InvalidArgument("keep-awake: no CPU to keep awake");
  if (via == Via::kBest) via = FromEnvironment();
  std::unique_ptr<KeepAwake> k(new KeepAwake());
  k->cpus_ = cpus;
  std::vector<int> kernel, threads;
  for (int cpu : cpus) {
    if (cpu < 0) return InvalidArgument("keep-awake: CPU " + std::to_string(cpu) + " is negative");
    Status can = via == Via::kBest ? KernelCanPoll(cpu) : Unavailable("REAM_KEEP_AWAKE=pollers");
    if (can.ok()) {
      kernel.push_back(cpu);
    } else {
      threads.push_back(cpu);
      if (via == Via::kBest && k->why_pollers_.empty()) k->why_pollers_ = can.message();
    }
  }
  // Pollers first: a CPU that cannot be pinned to is refused before anything is changed.
  if (!threads.empty()) REAM_RETURN_IF_ERROR(k->StartPollers(threads));
  if (!kernel.empty()) REAM_RETURN_IF_ERROR(k->StartKernel(kernel));
  return k;
}

Status KeepAwake::StartPollers(const std::vector<int>& cpus) {
  thread_cpus_ = cpus;
  std::mutex mu;
  std::condition_variable cv;
  size_t started = 0;
  std::string error;
  for (int cpu : cpus) {
    threads_.emplace_back([&, cpu, this] {
      std::string why;
      if (Status pinned = PinCallingThread(cpu); !pinned.ok()) {
        why = "keep-awake: " + pinned.message();
      } else {
        sched_param sp{};
        if (int e2 = pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); e2 != 0) {
          why = std::string("keep-awake: SCHED_IDLE refused: ") + std::strerror(e2);
        }
      }
      {
        std::lock_guard<std::mutex> l(mu);
        ++started;
        if (!why.empty() && error.empty()) error = why;
      }
      cv.notify_all();
      if (!why.empty()) return;
      while (!stop_.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 64; ++i) CpuRelax();
      }
    });
  }
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return started == cpus.size(); });
  }
  if (!error.empty()) return Unavailable(error);  // the destructor stops the others
  return Status::Ok();
}

Status KeepAwake::StartKernel(const std::vector<int>& cpus) {
  // The values to put back. A CPU already at "n/a" is held by someone else (another ream, tuned):
  // it is left as it is, and so is not restored.
  std::vector<std::pair<std::string, std::string>> restore;
  for (int cpu : cpus) {
    std::string v = ReadLine(QosFile(cpu));
    if (v.empty()) return Unavailable("keep-awake: cannot read " + QosFile(cpu));
    if (v != kNoLatency) restore.emplace_back(QosFile(cpu), v);
  }
  kernel_cpus_ = cpus;
  if (restore.empty()) return Status::Ok();
  // The guard, before anything changes: it inherits only the read end of a pipe whose write end
  // this process alone holds, and ignores the terminal's signals (and leaves the process group),
  // so that only this process's end — by any signal — wakes it. Everything it needs is prepared
  // here: after fork() in a threaded process it may only call async-signal-safe functions.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Unavailable(std::string("keep-awake: pipe: ") + std::strerror(errno));
  std::vector<const char*> paths, values;
  for (const auto& [path, value] : restore) {
    paths.push_back(path.c_str());
    values.push_back(value.c_str());
  }
  // The guard leaves this process's cgroups for each hierarchy's root (writing 0 to a
  // cgroup.procs file moves the writer): a sandbox that kills every process of the generator's
  // cgroup at its end must not kill the guard before it has put the values back.
  std::vector<std::string> roots;
  {
    std::ifstream mounts("/proc/mounts");
    for (std::string dev, dir, type, rest; mounts >> dev >> dir >> type && std::getline(mounts, rest);) {
      if (type == "cgroup" || type == "cgroup2") roots.push_back(dir + "/cgroup.procs");
    }
  }
  std::vector<const char*> root_procs;
  for (const auto& r : roots) root_procs.push_back(r.c_str());
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Unavailable(std::string("keep-awake: fork of the guard: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::setsid();
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(sig, &ign, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::prctl(PR_SET_NAME, "ream-qos-guard", 0, 0, 0);
    for (const char* procs : root_procs) {
      int fd = ::open(procs, O_WRONLY);
      if (fd >= 0) {
        (void)!::write(fd, "0", 1);
        ::close(fd);
      }
    }
    const int in = fds[0];
    if (in > 0) ::close_range(0, static_cast<unsigned>(in) - 1, 0);
    ::close_range(static_cast<unsigned>(in) + 1, ~0U, 0);
    char b;
    while (::read(in, &b, 1) < 0 && errno == EINTR) {
    }
    for (size_t i = 0; i < paths.size(); ++i) {
      int fd = ::open(paths[i], O_WRONLY);
      if (fd >= 0) {
        (void)!::write(fd, values[i], std::strlen(values[i]));
        ::close(fd);
      }
    }
    ::_exit(0);
  }
  ::close(fds[0]);
  guard_ = pid;
  guard_pipe_ = fds[1];
  for (const auto& [path, value] : restore) {
    if (std::string err = WriteValue(path, kNoLatency); !err.empty()) {
      RestoreKernel();
      return Unavailable("keep-awake: writing " + std::string(kNoLatency) + " to " + path + ": " + err);
    }
    restore_.emplace_back(path, value);
  }
  return Status::Ok();
}

void KeepAwake::RestoreKernel() {
  for (const auto& [path, value] : restore_) (void)WriteValue(path, value);
  restore_.clear();
  if (guard_pipe_ >= 0) ::close(guard_pipe_);  // the guard restores once more (the same values) and exits
  guard_pipe_ = -1;
  if (guard_ > 0) {
    int st;
    while (::waitpid(guard_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  guard_ = -1;
}

std::string KeepAwake::Describe() const {
  std::string s;
  if (!kernel_cpus_.empty()) {
    s = (kernel_cpus_.size() == 1 ? "CPU " : "CPUs ") + FormatCpuList(kernel_cpus_) + " " + kCpusPolledByKernel + " (PM QoS resume latency 0)";
  }
  if (!thread_cpus_.empty()) {
    if (!s.empty()) s += ", ";
    s += (thread_cpus_.size() == 1 ? "CPU " : "CPUs ") + FormatCpuList(thread_cpus_) + " " + kWorkloadCpusKeptAwake;
    if (!why_pollers_.empty()) s += " (" + why_pollers_ + ")";
  }
  return s;
}

KeepAwake::~KeepAwake() {
  stop_.store(true);
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  RestoreKernel();
}

}  // namespace ream
