// ream's HdrHistogram logs read by HdrHistogram's own JavaScript implementation
// (hdr-histogram-js, installed by scripts/install-deps): counts exact, percentiles and max
// within the 1 % that both histograms' precision allows.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/hdr_log.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

TEST(HdrLogInterop, HdrHistogramJsReadsTheLogWithTheSameCountsAndPercentiles) {
  const fs::path tool = fs::path(REAM_SOURCE_DIR) / "src/store/testdata/hdrjs";
  ASSERT_TRUE(fs::exists(tool / "node_modules/hdr-histogram-js/package.json"))
      << "hdr-histogram-js is missing: run scripts/install-deps";
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp_us(1.0 / 250.0);
  Histogram a, b;
  for (int i = 0; i < 50000; ++i) a.Record(static_cast<int64_t>(exp_us(rng) * 1000));
  for (int i = 0; i < 1000; ++i) b.Record(37);                 // exact region
  b.RecordN(int64_t{3} * 1000 * 1000 * 1000, 5);               // 3 s
  fs::path log = fs::temp_directory_path() / ("ream-hlog-" + std::to_string(::getpid()) + ".hlog");
  auto text = WriteHdrLog(1700000000.0, "interop", {{"qps1000", 0, 2, &a}, {"qps2000", 3, 2, &b}});
  ASSERT_TRUE(text.ok());
  std::ofstream(log) << *text;
  std::string cmd = "node " + (tool / "read_hlog.js").string() + " " + log.string() + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::vector<nlohmann::json> lines;
  char buf[4096];
  std::string out;
  while (fgets(buf, sizeof buf, f)) {
    out += buf;
    auto j = nlohmann::json::parse(buf, nullptr, false);
    if (!j.is_discarded()) lines.push_back(j);
  }
  int rc = pclose(f);
  fs::remove(log);
  ASSERT_EQ(rc, 0) << out;
  ASSERT_EQ(lines.size(), 2u) << out;
  EXPECT_EQ(lines[0]["tag"], "qps1000");
  EXPECT_EQ(lines[0]["count"].get<uint64_t>(), a.count());
  EXPECT_EQ(lines[1]["tag"], "qps2000");
  EXPECT_EQ(lines[1]["count"].get<uint64_t>(), b.count());
  EXPECT_NEAR(lines[1]["start_ms"].get<double>() - lines[0]["start_ms"].get<double>(), 3000, 1);
  for (const auto& [line, h] : {std::pair{lines[0], &a}, std::pair{lines[1], &b}}) {
    for (const auto& [key, q] : {std::pair{"p50", 0.50}, std::pair{"p95", 0.95}, std::pair{"p99", 0.99}}) {
      double theirs = line[key].get<double>();
      double ours = static_cast<double>(h->ValueAtQuantile(q));
      EXPECT_NEAR(theirs, ours, 0.01 * ours + 1) << key;
    }
    EXPECT_NEAR(line["max"].get<double>(), static_cast<double>(h->max()), 0.01 * h->max() + 1);
  }
}

}  // namespace
}  // namespace ream
