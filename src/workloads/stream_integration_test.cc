// stream end to end at reduced size (root: cgroups, a node's network namespace, htb): `ream
// run` of a sessions sweep like examples/stream.toml over two link rates, then `ream analyze
// --json`: the classifier's network / streaming with its evidence, and net_rate lowering the
// sessions sustained before chunks miss their deadlines (the seed's network sensitivity). And
// the bad parameters of session load and of the workload, refused at start-up leaving nothing.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/integration_test_support.h"
#include "platform/test_directory.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

using testing_support::Exec;
using testing_support::Ream;

class StreamIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups, a network namespace, tc)";
    dir_ = testing_support::FreshTestDirectory("ream-stream-it").string();
    // The stream server runs as the unprivileged workload user (scripts/ream-user's 'ream')
    // and generates its videos here: the directory is that user's.
    if (const passwd* pw = ::getpwnam("ream")) {
      if (::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) std::perror("chown the test directory");
    }
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string WriteSpec(const std::string& name, const std::string& body) {
    std::string spec = dir_ + "/" + name + ".toml";
    std::ofstream(spec) << "name = \"" << name << "\"\nscenarios = [\"1-ST\"]\nnode = true\n" << body;
    return spec;
  }
  std::string dir_;
};

// 8 Mbit/s videos in 128 KiB chunks: one chunk every 131 ms per session, 1 MB/s each. A link
// of 40 Mbit/s carries 5 sessions (4 with HTTP's headers and the shaper's bursts to spare).
std::string StreamSpec(const std::string& dir, const std::string& levels, const std::string& rates) {
  return R"(
[workload]
builtin = "stream"
args = ["--videos", "4", "--bitrate", "8mbit", "--seconds", "4", "--data-dir", ")" +
         dir + R"("]
ready_timeout = "30s"

[load]
keys = 4
http_path = "/video/{key}.bin"
session_chunks = 8
chunk_bytes = "128k"
bitrate = "8mbit"
warmup = "300ms"
duration = "1500ms"
response_timeout = "500ms"

[sweep]
axis = "sessions"
sessions = )" + levels + R"(

[partitions]
net_rate = )" + rates + "\n";
}

TEST_F(StreamIntegration, IsNetworkStreamingAndNetRateLowersTheSessionsItSustains) {
  std::string spec = WriteSpec("stream-it", StreamSpec(dir_, "[2, 4, 8, 12]", "[\"10gbit\", \"40mbit\"]"));
  std::string db = dir_ + "/results.db";
  Exec run = Ream("run " + spec + " --db " + db);
  std::printf("ream run: %.1f s\n%s", run.seconds, run.output.c_str());
  ASSERT_EQ(run.code, 0) << run.output;
  // Said before the run: the slow link's top levels offer more than it carries.
  EXPECT_NE(run.output.find("carries at most 5 sessions"), std::string::npos) << run.output;
  Exec a = Ream("analyze --db " + db + " --experiment stream-it --json", true);
  ASSERT_EQ(a.code, 0) << Ream("analyze --db " + db + " --experiment stream-it").output;
  auto j = nlohmann::json::parse(a.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["load_axis"], "sessions") << j.dump(1);

  // The category, with the seed's evidence: transmit dominates, load in sessions.
  const auto& c = j["category"];
  std::printf("category: %s — %s\n", c["name"].get<std::string>().c_str(), c["explanation"].get<std::string>().c_str());
  EXPECT_EQ(c["name"], "network-streaming") << c.dump(1);
  bool sessions_evidence = false;
  for (const auto& e : c["evidence"]) {
    if (e["name"].get<std::string>().find("load counted in sessions") != std::string::npos) {
      sessions_evidence = e["holds"].get<bool>();
    }
    if (e["name"] == "transmit / receive") {
      EXPECT_TRUE(e["holds"].get<bool>()) << e.dump();
    }
  }
  EXPECT_TRUE(sessions_evidence) << c.dump(1);

  // Capacity in sessions per link rate: the fast link sustains more than the slow one.
  std::optional<double> fast, slow;
  for (const auto& g : j["groups"]) {
    const std::string key = g["key"];
    std::printf("%s: capacity %s (%s)\n", key.c_str(), g["capacity"]["qps"].dump().c_str(),
                g["capacity"]["status"].get<std::string>().c_str());
    for (const auto& p : g["points"]) {
      ASSERT_TRUE(p.contains("session")) << p.dump();
      std::printf("  %g sessions: %s, deadline misses %.2f %%, %.2f MB/s\n", p["target_sessions"].get<double>(),
                  p["valid"].get<bool>() ? "valid" : "invalid", p["session"]["deadline_miss_ratio"].get<double>() * 100,
                  p["session"]["throughput_bytes_per_s"].get<double>() / 1e6);
    }
    if (!g["capacity"]["qps"].is_number()) continue;
    (key.find("40mbit") != std::string::npos ? slow : fast) = g["capacity"]["qps"].get<double>();
  }
  ASSERT_TRUE(fast && slow) << j["groups"].dump(1);
  EXPECT_LT(*slow, *fast);
  EXPECT_LE(*slow, 5);  // what 40 Mbit/s can carry at 8 Mbit/s
  bool sensitive = false;
  for (const auto& s : j["sensitivity"]) {
    if (s["resource"] == "net_bw") sensitive = s["status"] == "sensitive";
  }
  EXPECT_TRUE(sensitive) << j["sensitivity"].dump(1);
}

TEST_F(StreamIntegration, ALinkThatCannotCarryTheBitrateIsRefusedBeforeTheRun) {
  // 2 sessions at 8 Mbit/s through 10 Mbit/s: even the fewest sessions swept do not fit.
  std::string spec = WriteSpec("stream-bad", StreamSpec(dir_, "[2, 4]", "\"10mbit\""));
  std::string db = dir_ + "/results.db";
  Exec run = Ream("run " + spec + " --db " + db);
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.output.find("net_rate = 10mbit carries 10 Mbit/s"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("cannot carry the bitrate"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(db)) << "a database was created for a refused spec";
  EXPECT_FALSE(fs::exists(dir_ + "/stream-4x4000000-s1")) << "the workload was started";
}

TEST_F(StreamIntegration, BadSessionAndWorkloadParametersFailAtStartUp) {
  Exec l = Ream("load --target 127.0.0.1:9 --sessions 4 --chunk-bytes 100 --bitrate 10mbit");
  EXPECT_NE(l.code, 0);
  EXPECT_NE(l.output.find("below the 1 ms"), std::string::npos) << l.output;
  l = Ream("load --target 127.0.0.1:9 --sessions 4");
  EXPECT_NE(l.output.find("--bitrate"), std::string::npos) << l.output;
  l = Ream("load --target 127.0.0.1:9 --sessions 4 --bitrate 4mbit --qps 100");
  EXPECT_NE(l.output.find("both given"), std::string::npos) << l.output;

  Exec s = Ream("serve stream --videos 0 --data-dir " + dir_);
  EXPECT_NE(s.code, 0);
  EXPECT_NE(s.output.find("--videos must be >= 1"), std::string::npos) << s.output;
  EXPECT_TRUE(fs::is_empty(dir_));

  // A full file system: 4 videos of 4 MB on 1 MiB. Nothing is left on it.
  std::string mnt = dir_ + "/fs";
  fs::create_directories(mnt);
  ASSERT_EQ(std::system(("mount -t tmpfs -o size=1m tmpfs " + mnt).c_str()), 0);
  s = Ream("serve stream --videos 4 --bitrate 8mbit --seconds 4 --data-dir " + mnt + "/data");
  bool empty = fs::is_empty(mnt);
  (void)std::system(("umount " + mnt).c_str());
  EXPECT_NE(s.code, 0);
  EXPECT_NE(s.output.find("cannot write the videos into " + mnt + "/data"), std::string::npos) << s.output;
  EXPECT_TRUE(empty) << "left behind on the file system";
}

}  // namespace
}  // namespace ream
