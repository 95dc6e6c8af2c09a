// ream_test_workload: tiny workloads for the sandbox integration tests, each measuring
// itself independently of ream's monitor.
//   spin SECONDS   busy loop; prints "cpu_s=<utime+stime from /proc/self/stat> wall_s=<..>"
//   alloc MIB      allocates and touches MIB MiB, 1 MiB at a time; prints "allocated"
//   sink PORT      listens on PORT, prints "ready addr=$REAM_NODE_ADDRESS port=PORT",
//                  reads one connection to EOF, prints "received=<bytes> seconds=<first
//                  byte to EOF>"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ProcCpuSeconds() {
  std::ifstream f("/proc/self/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream rest(s.substr(s.rfind(')') + 2));
  std::vector<std::string> fields;
  std::string x;
  while (rest >> x) fields.push_back(x);
  // After the command: field 3 is index 0, so utime (14) and stime (15) are 11 and 12.
  double ticks = std::atof(fields.at(11).c_str()) + std::atof(fields.at(12).c_str());
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

int Spin(double seconds) {
  double cpu0 = ProcCpuSeconds();
  double start = Now();
  volatile uint64_t n = 0;
  while (Now() - start < seconds) {
    for (int i = 0; i < 100000; ++i) n = n + 1;
  }
  std::printf("cpu_s=%.3f wall_s=%.3f\n", ProcCpuSeconds() - cpu0, Now() - start);
  return 0;
}

int Alloc(long mib) {
  std::vector<char*> blocks;
  for (long i = 0; i < mib; ++i) {
    char* b = static_cast<char*>(std::malloc(1 << 20));
    if (!b) return 3;
    std::memset(b, 1, 1 << 20);
    blocks.push_back(b);
  }
  std::printf("allocated %ld MiB\n", mib);
  return 0;
}

int Sink(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 1) != 0) {
    std::perror("bind/listen");
    return 2;
  }
  const char* addr = std::getenv("REAM_NODE_ADDRESS");
  std::printf("ready addr=%s port=%d\n", addr ? addr : "127.0.0.1", port);
  std::fflush(stdout);
  int c = ::accept(s, nullptr, nullptr);
  if (c < 0) return 2;
  std::vector<char> buf(1 << 16);
  long long total = 0;
  double first = 0, last = 0;
  for (;;) {
    ssize_t n = ::read(c, buf.data(), buf.size());
    if (n <= 0) break;
    if (total == 0) first = Now();
    total += n;
    last = Now();
  }
  std::printf("received=%lld seconds=%.4f\n", total, last - first);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "spin") == 0) return Spin(std::atof(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "alloc") == 0) return Alloc(std::atol(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "sink") == 0) return Sink(std::atoi(argv[2]));
  std::fprintf(stderr, "usage: ream_test_workload spin SECONDS | alloc MIB | sink PORT\n");
  return 2;
}
