// The termination-signal flag: the handler only stores the signal number.
#include "platform/signals.h"

#include <signal.h>

#include <atomic>

namespace ream {
namespace {

std::atomic<int> g_received{0};

void OnSignal(int sig) {
  int expected = 0;
  g_received.compare_exchange_strong(expected, sig);
}

}  // namespace

void TerminationSignals::Install() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void TerminationSignals::Restore() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
}

int TerminationSignals::Received() { return g_received.load(); }

}  // namespace ream
