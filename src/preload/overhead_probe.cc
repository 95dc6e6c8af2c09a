// overhead_probe: the stand-in workload of overhead_test. It measures its own thread CPU time
// around N sends on a socket, N reads of them, and N writes to a pipe, and prints
//   socket_send_cpu_ns=A socket_recv_cpu_ns=B pipe_write_cpu_ns=C n=N
// Uses only libc, so what it measures is what libream-overhead.so (when preloaded) adds.
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {
long long ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 200;
  int sv[2];
  int pipefd[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(pipefd) != 0) {
    std::perror("overhead_probe: socketpair/pipe");
    return 1;
  }
  char byte = 'x';
  long long t0 = ThreadCpuNs();
  for (int i = 0; i < n; ++i) {
    if (send(sv[0], &byte, 1, 0) != 1) return 1;
  }
  long long t1 = ThreadCpuNs();
  for (int i = 0; i < n; ++i) {
    if (read(sv[1], &byte, 1) != 1) return 1;  // one byte each: one message per call
  }
  long long t2 = ThreadCpuNs();
  for (int i = 0; i < n; ++i) {
    if (write(pipefd[1], &byte, 1) != 1) return 1;
    if (read(pipefd[0], &byte, 1) != 1) return 1;
  }
  long long t3 = ThreadCpuNs();
  std::printf("socket_send_cpu_ns=%lld socket_recv_cpu_ns=%lld pipe_write_cpu_ns=%lld n=%d\n",
              t1 - t0, t2 - t1, t3 - t2, n);
  return 0;
}
