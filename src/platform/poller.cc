// epoll_pwait2 with a nanosecond timeout, eventfd wake-ups and the termination signalfd.
#include "platform/poller.h"

#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>

namespace ream::net {

Result<Poller> Poller::Create() {
  Poller p;
  p.fd_.reset(epoll_create1(EPOLL_CLOEXEC));
  if (!p.fd_.valid()) return ErrnoStatus(errno, "epoll_create1()");
  return p;
}

Status Poller::Add(int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (epoll_ctl(fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) return ErrnoStatus(errno, "epoll_ctl(ADD)");
  return Status::Ok();
}

Status Poller::Modify(int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (epoll_ctl(fd_.get(), EPOLL_CTL_MOD, fd, &ev) != 0) return ErrnoStatus(errno, "epoll_ctl(MOD)");
  return Status::Ok();
}

void Poller::Remove(int fd) { epoll_ctl(fd_.get(), EPOLL_CTL_DEL, fd, nullptr); }

Result<int> Poller::Wait(epoll_event* events, int max_events, int64_t timeout_ns) {
  int n;
  if (timeout_ns < 0) {
    n = epoll_wait(fd_.get(), events, max_events, -1);
  } else if (timeout_ns == 0) {
    n = epoll_wait(fd_.get(), events, max_events, 0);
  } else {
    timespec ts{static_cast<time_t>(timeout_ns / 1000000000), static_cast<long>(timeout_ns % 1000000000)};
    n = epoll_pwait2(fd_.get(), events, max_events, &ts, nullptr);
    if (n < 0 && errno == ENOSYS) {
      n = epoll_wait(fd_.get(), events, max_events, static_cast<int>((timeout_ns + 999999) / 1000000));
    }
  }
  if (n < 0) {
    if (errno == EINTR) return 0;
    return ErrnoStatus(errno, "epoll_wait()");
  }
  return n;
}

Result<Notifier> Notifier::Create() {
  Notifier n;
  n.fd_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!n.fd_.valid()) return ErrnoStatus(errno, "eventfd()");
  return n;
}

void Notifier::Notify() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(fd_.get(), &one, sizeof one);
}

void Notifier::Drain() {
  uint64_t v;
  [[maybe_unused]] ssize_t n = ::read(fd_.get(), &v, sizeof v);
}

Result<Fd> BlockTerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return Internal("pthread_sigmask failed");
  Fd fd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "signalfd()");
  return fd;
}

}  // namespace ream::net
