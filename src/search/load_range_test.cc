#include "search/load_range.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ream {
namespace {

// A server with one CPU and `service_us` of CPU per request: utilization = rate × service,
// throughput follows the offered rate until the CPU is full.
RangeProbe Server(double qps, double service_us) {
  RangeProbe p;
  p.qps = qps;
  double u = qps * service_us / 1e6;
  p.cpu_util = std::min(u, 1.0);
  p.throughput_qps = std::min(qps, 1e6 / service_us);
  return p;
}

TEST(LoadRangeSearch, FindsTwentyAndFiftyPercentAndSaturationOfAModelServer) {
  LoadRangeSearch search({.start_qps = 200, .levels = 8});
  int probes = 0;
  while (auto q = search.Next()) {
    search.Take(Server(*q, 100));  // saturates at 10 000 QPS
    ASSERT_LT(++probes, 20);
  }
  EXPECT_LE(probes, 8);  // "a few short probes"
  ASSERT_TRUE(search.qps_at_20() && search.qps_at_50() && search.saturation_qps());
  EXPECT_NEAR(*search.qps_at_20(), 2000, 20);
  EXPECT_NEAR(*search.qps_at_50(), 5000, 50);
  EXPECT_GE(*search.saturation_qps(), 0.95 * 10000);
  auto levels = search.Levels();
  ASSERT_TRUE(levels.ok()) << levels.status().message();
  ASSERT_EQ(levels->size(), 8u);
  EXPECT_NEAR(levels->front(), 2000, 20);
  EXPECT_EQ(levels->back(), std::round(*search.saturation_qps()));
  EXPECT_TRUE(std::is_sorted(levels->begin(), levels->end()));
  EXPECT_NE(search.Why().find("20 % CPU at 2000 QPS"), std::string::npos) << search.Why();
}

TEST(LoadRangeSearch, StopsWhereTheGeneratorCannotSendTheRateAndSaysSo) {
  LoadRangeSearch search({.start_qps = 100, .levels = 4});
  while (auto q = search.Next()) {
    RangeProbe p = Server(*q, 50);
    p.achieved_qps = std::min(*q, 3000.0);  // the generator's own ceiling
    search.Take(p);
  }
  ASSERT_TRUE(search.saturation_qps());
  EXPECT_GT(*search.saturation_qps(), 3000);
  EXPECT_NE(search.Why().find("the generator sent only 3000 QPS"), std::string::npos) << search.Why();
  EXPECT_FALSE(search.qps_at_50());  // 50 % of the CPU would be 10 000 QPS
  auto levels = search.Levels();
  ASSERT_TRUE(levels.ok());
  EXPECT_EQ(levels->size(), 4u);
}

TEST(LoadRangeSearch, RefusesWithoutCpuUtilizationNamingWhy) {
  LoadRangeSearch search({});
  RangeProbe p;
  p.qps = 200;
  p.throughput_qps = 200;
  p.cpu_unavailable = "no cgroup";
  search.Take(p);
  EXPECT_FALSE(search.Next());
  auto levels = search.Levels();
  ASSERT_FALSE(levels.ok());
  EXPECT_NE(levels.status().message().find("no cgroup"), std::string::npos);
}

TEST(LoadRangeSearch, GivesUpAfterItsProbesWithTheHighestRate) {
  LoadRangeSearch search({.start_qps = 10, .levels = 3, .max_probes = 3});
  while (auto q = search.Next()) search.Take(Server(*q, 1));  // never saturates in 3 probes
  EXPECT_EQ(search.probes().size(), 3u);
  EXPECT_NE(search.Why().find("not saturated within 3 probes"), std::string::npos) << search.Why();
  EXPECT_TRUE(search.Levels().ok());
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(LoadRangeSearch, LateProbesAreNotSaturation) {
  // The machine's wake-ups make the lowest probes late; the workload saturates far above.
  LoadRangeSearch search({.start_qps = 200, .levels = 5});
  int n = 0;
  while (auto q = search.Next()) {
    RangeProbe p = Server(*q, 100);
    if (n++ < 2) {
      p.valid = false;
      p.invalid_reason = "timely 90 %";
    }
    search.Take(p);
  }
  ASSERT_TRUE(search.saturation_qps());
  EXPECT_GE(*search.saturation_qps(), 9500);
  ASSERT_TRUE(search.qps_at_20());
  EXPECT_NEAR(*search.qps_at_20(), 2000, 20);
  EXPECT_NE(search.Why().find("2 of them late"), std::string::npos) << search.Why();
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(ClientCandidates, FewestClientsFirstAndEachThreadWithAConnection) {
  using P = std::vector<std::pair<int, int>>;
  EXPECT_EQ(ClientCandidates(false, 1, true, 4, 2, 8), (P{{1, 1}, {1, 2}, {1, 4}, {1, 8}}));
  EXPECT_EQ(ClientCandidates(true, 1, false, 4, 2), (P{{1, 4}, {2, 4}}));
  EXPECT_EQ(ClientCandidates(true, 1, true, 4, 2, 4), (P{{1, 1}, {1, 2}, {2, 2}, {1, 4}, {2, 4}}));
  EXPECT_EQ(ClientCandidates(true, 1, false, 1, 2), (P{{1, 1}}));  // 2 threads need 2 connections
}

}  // namespace
}  // namespace ream
