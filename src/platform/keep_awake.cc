// SCHED_IDLE pollers pinned to CPUs (see keep_awake.h).
#include "platform/keep_awake.h"

#include "platform/affinity.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <condition_variable>

namespace ream {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

Result<std::unique_ptr<KeepAwake>> KeepAwake::Start(const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.empty()) return InvalidArgument("keep-awake: no CPU to keep awake");
  std::unique_ptr<KeepAwake> k(new KeepAwake());
  k->cpus_ = cpus;
  std::mutex mu;
  std::condition_variable cv;
  size_t started = 0;
  std::string error;
  for (int cpu : cpus) {
    k->threads_.emplace_back([&, cpu, self = k.get()] {
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
      while (!self->stop_.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 64; ++i) CpuRelax();
      }
    });
  }
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return started == cpus.size(); });
  }
  if (!error.empty()) return Unavailable(error);  // the destructor stops the others
  return k;
}

KeepAwake::~KeepAwake() {
  stop_.store(true);
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace ream
