// The coordinated-omission check: a server frozen by SIGSTOP for a second
// in the middle of a 1 000 QPS run must show in the tail — an open-loop generator keeps
// sending on schedule and times every request from its scheduled instant, so the requests
// due during the freeze wait up to a second — while the generator itself stays as timely as
// in the same run without the freeze. A closed-loop or blocking generator fails both halves:
// it stops sending while the server is frozen (few samples of the freeze, a short tail) and
// its sends after the freeze are late.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "load/generator.h"
#include "platform/keep_awake.h"
#include "platform/platform.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

struct Served {
  std::unique_ptr<ChildProcess> child;
  int port = 0;
};

// `ream serve synthetic` on `cpu` (no pinning when cpu < 0), its port read from its ready line.
Served StartServer(Platform& p, int cpu) {
  SpawnOptions so;
  if (cpu >= 0) so.argv = {"taskset", "-c", std::to_string(cpu)};
  for (const char* a : {REAM_BINARY, "serve", "synthetic", "--service", "const:20us", "--port", "0"}) {
    so.argv.push_back(a);
  }
  so.capture_stdout = true;
  auto child = p.Spawn(so);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  if (!child.ok()) return {};
  // "ready 127.0.0.1:45027 protocol=ream ..."
  auto line = (*child)->WaitForLine([](const std::string& l) { return l.rfind("ready ", 0) == 0; },
                                    milliseconds(10000));
  EXPECT_TRUE(line.ok()) << line.status().ToString();
  Served s;
  s.child = std::move(*child);
  if (!line.ok()) return s;
  auto colon = line->find(':');
  if (colon != std::string::npos) s.port = std::atoi(line->c_str() + colon + 1);
  return s;
}

LoadOptions At1000(int port) {
  LoadOptions o;
  o.port = port;
  o.qps = 1000;
  o.duration_ns = 4'000'000'000;
  o.warmup_ns = 500'000'000;
  // The frozen second's requests are answered after it: far inside this timeout.
  o.response_timeout_ns = 3'000'000'000;
  return o;
}

double NonTimely(const LoadResult& r) {
  return r.issued == 0 ? 1.0 : 1.0 - static_cast<double>(r.timely) / static_cast<double>(r.issued);
}

TEST(CoordinatedOmission, AFrozenServerShowsInTheTailAndTheGeneratorStaysOnSchedule) {
  auto platform = MakePosixPlatform();
  // The generator (this process's threads) on CPU 0, the server on CPU 1, when there are two.
  int server_cpu = -1;
  cpu_set_t mine;
  if (std::thread::hardware_concurrency() >= 2 && platform->FindExecutable("taskset").ok()) {
    CPU_ZERO(&mine);
    CPU_SET(0, &mine);
    if (sched_setaffinity(0, sizeof mine, &mine) == 0) server_cpu = 1;
  }
  Served server = StartServer(*platform, server_cpu);
  ASSERT_NE(server.port, 0);
  // Both CPUs kept out of idle (the kernel's idle polling, or pollers), so the runs' timeliness is the host's and
  // the generator's, not the wake-ups' that at 1 000 QPS dominate it on a VM.
  std::unique_ptr<KeepAwake> awake;
  if (server_cpu >= 0) {
    auto k = KeepAwake::Start({0, 1});
    if (k.ok()) awake = std::move(*k);
  }

  auto base = RunLoad(At1000(server.port));
  ASSERT_TRUE(base.ok()) << base.status().ToString();

  // The same run with the server stopped from 1.5 s to 2.5 s of the measured window.
  std::thread freezer([&] {
    std::this_thread::sleep_for(milliseconds(500 + 1500));
    (void)server.child->Signal(SIGSTOP);
    std::this_thread::sleep_for(milliseconds(1000));
    (void)server.child->Signal(SIGCONT);
  });
  auto frozen = RunLoad(At1000(server.port));
  freezer.join();
  ASSERT_TRUE(frozen.ok()) << frozen.status().ToString();
  // The unfrozen run again: the host's noise moves between runs, so the frozen one is set
  // against the worse of the two around it.
  auto after = RunLoad(At1000(server.port));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  (void)server.child->Signal(SIGTERM);
  (void)server.child->Wait(milliseconds(5000));

  double base_p99_ms = static_cast<double>(base->latency.ValueAtQuantile(0.99)) / 1e6;
  double p99_ms = static_cast<double>(frozen->latency.ValueAtQuantile(0.99)) / 1e6;
  RecordProperty("base_p99_ms", std::to_string(base_p99_ms));
  RecordProperty("frozen_p99_ms", std::to_string(p99_ms));
  const double unfrozen = std::max(NonTimely(*base), NonTimely(*after));
  std::printf("without the freeze: p99 %.2f ms, non-timely %.2f %% and %.2f %%; with it: p99 %.1f ms, non-timely "
              "%.2f %%, issued %llu of ~4000\n",
              base_p99_ms, 100 * NonTimely(*base), 100 * NonTimely(*after), p99_ms, 100 * NonTimely(*frozen),
              static_cast<unsigned long long>(frozen->issued));

  // Every request was answered in the end: the freeze delays, it does not lose.
  EXPECT_EQ(frozen->errors, 0u) << frozen->Summary();
  // About a quarter of the window's requests were due while the server was stopped; each
  // waited for the rest of the freeze, so the 99th percentile is most of a second.
  EXPECT_GE(p99_ms, 700) << frozen->Summary();
  // Without the freeze the tail is nowhere near that: the figure above is the freeze's.
  EXPECT_LT(base_p99_ms, 100) << base->Summary();
  // The generator kept its schedule through the freeze: it sent what the schedule held
  // (Poisson: ±3σ of 4000 is ±190) ...
  EXPECT_NEAR(static_cast<double>(frozen->issued), 4000, 250);
  // ... and was as timely as without the freeze. A generator blocked by the frozen server
  // would be late for the whole second: 25 points more. The host's own noise moves between
  // runs a few seconds apart, and more the noisier the hour: by a point in quiet hours, by a
  // factor of up to 2.4 in noisy ones (timely 94.3 and 97.6 % at the same 43 k QPS a minute
  // apart; on 3 Dec 2026 a clean clone's runs read 7.7 and 7.0 % without the freeze
  // and 10.4 % with it). So the frozen run may exceed the worse unfrozen run by 2 points or be
  // twice it, whichever is larger — still 10 points or more below a blocked generator while the
  // unfrozen runs stay under 15 %; past that the host is too noisy to tell the two apart.
  if (unfrozen >= 0.15) {
    GTEST_SKIP() << "the host is too noisy to tell a blocked generator from its noise: " << 100 * unfrozen
                 << " % non-timely without the freeze";
  }
  const double allowed = std::max(unfrozen + 0.02, 2 * unfrozen);
  EXPECT_LE(NonTimely(*frozen), allowed)
      << "with the freeze: " << frozen->Summary() << "\nwithout: " << base->Summary() << "\nand after: "
      << after->Summary();
}

}  // namespace
}  // namespace ream
