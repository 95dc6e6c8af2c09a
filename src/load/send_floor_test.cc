#include "load/send_floor.h"

#include <filesystem>

#include <unistd.h>

#include <gtest/gtest.h>

#include "load/generator.h"
#include "platform/net.h"
#include "workloads/server.h"
#include "workloads/synthetic.h"

namespace ream {
namespace {

LoadOptions At(int port, double qps) {
  LoadOptions o;
  o.port = port;
  o.qps = qps;
  return o;
}

// A cache of the test's own in a directory that does not exist yet (SendFloorFor makes it).
std::string TempCache() {
  static int n = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("ream-send-floor-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
  std::filesystem::remove_all(dir);
  return (dir / "send_floor.json").string();
}

// The bare sender sends at the rate against a real server and counts its timely share; the
// next run at a rate within sqrt(2) of it reads it from the host's cache, with its date, and a
// rate twice as high is measured again.
TEST(SendFloor, MeasuresOnceAnHourAtARateAndReadsItBack) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:0"), 1));
  ASSERT_TRUE(server.ok());
  const std::string cache = TempCache();
  LoadOptions o = At((*server)->port(), 2000);
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  SendFloor f = SendFloorFor(o, cache);
  ASSERT_TRUE(f.available) << f.unavailable;
  EXPECT_FALSE(f.cached);
  // 0.5 s at 2 000 QPS: about 1 000 requests (Poisson).
  EXPECT_GT(f.requests, 800u);
  EXPECT_LT(f.requests, 1200u);
  EXPECT_GT(f.timely_ratio, 0);
  EXPECT_LE(f.timely_ratio, 1);
  EXPECT_EQ(f.connections, 1);
  EXPECT_TRUE(std::filesystem::exists(cache));

  o.qps = 2400;  // the same bucket
  SendFloor again = SendFloorFor(o, cache);
  ASSERT_TRUE(again.available) << again.unavailable;
  EXPECT_TRUE(again.cached);
  EXPECT_DOUBLE_EQ(again.timely_ratio, f.timely_ratio);
  EXPECT_EQ(again.measured_at_unix_s, f.measured_at_unix_s);
  EXPECT_NE(again.Describe().find(", cached)"), std::string::npos) << again.Describe();
  EXPECT_NE(again.Describe().find(" UTC"), std::string::npos) << again.Describe();

  o.send_floor = LoadOptions::SendFloorMode::kMeasure;  // measured whatever the cache holds
  EXPECT_FALSE(SendFloorFor(o, cache).cached);
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  o.qps = 4000;  // another bucket
  EXPECT_FALSE(SendFloorFor(o, cache).cached);
  o.qps = 2000;
  o.connections = 2;  // another connection count
  EXPECT_FALSE(SendFloorFor(o, cache).cached);
  std::filesystem::remove_all(std::filesystem::path(cache).parent_path());
}

TEST(SendFloor, NothingListeningIsUnavailableWithTheCause) {
  int port;
  {
    auto l = net::Listen("127.0.0.1", 0);
    ASSERT_TRUE(l.ok());
    port = *net::LocalPort(l->get());
  }
  const std::string cache = TempCache();
  LoadOptions o = At(port, 1000);
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  SendFloor f = SendFloorFor(o, cache);
  EXPECT_FALSE(f.available);
  EXPECT_NE(f.unavailable.find("the bare sender could not run at 1000 QPS"), std::string::npos) << f.unavailable;
  EXPECT_NE(f.Describe().find("unavailable: "), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(cache)) << "a failure is not cached";
  EXPECT_FALSE(f.ToJson()["available"].get<bool>());
}

// Where a bare sender misses the threshold at the rate, the point is judged against what it
// reached, less a point, and the verdict names its figure; where it does not, nothing changes.
TEST(JudgeValidity, AgainstTheHostsLimitWhereABareSenderMissesTheThreshold) {
  LoadResult r;
  r.options.qps = 1000;
  r.options.duration_ns = 1'000'000'000;
  r.options.validity = ValidityRule::kSeed;
  r.issued = r.completed = 1000;
  r.timely = 940;
  r.send_floor = {.available = true, .qps = 1000, .connections = 1, .requests = 1000, .timely_ratio = 0.945,
                  .measured_at_unix_s = 1'796'000'000};
  JudgeValidity(&r);
  EXPECT_TRUE(r.valid) << (r.invalid_reasons.empty() ? "" : r.invalid_reasons[0]);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("as this host's limit is: a bare sender was 94.50 % timely at 1000 QPS"),
            std::string::npos)
      << r.warnings[0];

  r.send_floor.timely_ratio = 0.96;  // 2 points better than this run: ream's own
  JudgeValidity(&r);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.invalid_reasons.size(), 1u);
  EXPECT_NE(r.invalid_reasons[0].find("below this host's limit (tolerance 20 us): a bare sender was 96.00 %"),
            std::string::npos)
      << r.invalid_reasons[0];

  r.send_floor.timely_ratio = 0.99;  // the host lets a sender keep the threshold: the seed's rule
  JudgeValidity(&r);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.invalid_reasons.size(), 1u);
  EXPECT_NE(r.invalid_reasons[0].find("rule seed: timely ratio 94.00 % is below 97.50 %"), std::string::npos)
      << r.invalid_reasons[0];
  EXPECT_EQ(r.invalid_reasons[0].find("bare sender"), std::string::npos) << r.invalid_reasons[0];

  // A host far later than the rule allows cannot stand in for it: at 80 % (20 % late, more than
  // four times the 2.5 % allowed) the point is invalid however close ream came, naming the figure.
  r.send_floor.timely_ratio = 0.80;
  r.timely = 800;
  JudgeValidity(&r);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.invalid_reasons.size(), 1u);
  EXPECT_NE(r.invalid_reasons[0].find("this host cannot stand in for the threshold: a bare sender was 80.00 %"),
            std::string::npos)
      << r.invalid_reasons[0];

  // Nor where the rule allows no lateness: a tolerance of 0 us leaves every sender late, and a
  // point held to 100 % stays invalid rather than valid beside a bare sender at 0 %.
  r.options.min_timely_ratio = 1.0;
  r.options.timely_tolerance_ns = 0;
  r.send_floor.timely_ratio = 0.0;
  r.timely = 0;
  JudgeValidity(&r);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.invalid_reasons.size(), 1u);
  EXPECT_NE(r.invalid_reasons[0].find("a bare sender was 0.00 %"), std::string::npos) << r.invalid_reasons[0];
}

// The result carries the floor: in the JSON stored with the point and beside the run's own
// timeliness in the summary; with --send-floor off, neither.
TEST(SendFloor, TheRunReportsItBesideItsOwnTimeliness) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:0"), 1));
  ASSERT_TRUE(server.ok());
  const std::string cache = TempCache();
  LoadOptions o = At((*server)->port(), 2000);
  o.duration_ns = 300'000'000;
  o.warmup_ns = 100'000'000;
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  o.send_floor_cache = cache;
  auto r = RunLoad(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->send_floor.available) << r->send_floor.unavailable;
  nlohmann::json j = r->ToJson()["send_floor"];
  EXPECT_TRUE(j["available"].get<bool>()) << j.dump();
  EXPECT_DOUBLE_EQ(j["timely_ratio"].get<double>(), r->send_floor.timely_ratio);
  EXPECT_NE(r->Summary().find("host:      a bare sender here: "), std::string::npos) << r->Summary();
  o.send_floor = LoadOptions::SendFloorMode::kOff;
  auto off = RunLoad(o);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_TRUE(off->ToJson()["send_floor"].is_null());
  EXPECT_EQ(off->Summary().find("host: "), std::string::npos) << off->Summary();
  std::filesystem::remove_all(std::filesystem::path(cache).parent_path());
}

}  // namespace
}  // namespace ream
