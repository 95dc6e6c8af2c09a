// `ream load` at the command line: bad input and unreachable targets end with a clear message
// and a non-zero exit, never a hang.
#include <gtest/gtest.h>

#include "platform/platform.h"
#include "platform/net.h"

namespace ream {
namespace {

CommandResult Ream(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {REAM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = MakePosixPlatform()->Run(argv, std::chrono::seconds(30));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : CommandResult{};
}

int FreePort() {
  auto l = net::Listen("127.0.0.1", 0);
  return l.ok() ? *net::LocalPort(l->get()) : 1;
}  // the listener closes here: nothing listens on the port afterwards

TEST(LoadCli, UnparsableQpsIsRejected) {
  auto r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "fast"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--qps 'fast' is not a number"), std::string::npos) << r.err;
}

TEST(LoadCli, ZeroQpsIsRejected) {
  auto r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--qps must be > 0"), std::string::npos) << r.err;
}

TEST(LoadCli, BadTargetAndDurationAreRejected) {
  auto r = Ream({"load", "--target", "localhost", "--qps", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("HOST:PORT"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "10", "--duration", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs a unit"), std::string::npos) << r.err;
}

TEST(LoadCli, UnknownWaitIsRejected) {
  auto r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "10", "--wait", "nap"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--wait must be auto, sleep, spin or yield, got 'nap'"), std::string::npos) << r.err;
}

TEST(LoadCli, UnknownResponseTimingIsRejected) {
  auto r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "10", "--response-timing", "wire"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--response-timing must be kernel, packet or user, got 'wire'"), std::string::npos) << r.err;
}

TEST(LoadCli, ScheduleIsTheRateAndLengthAndNamesWhatIsWrong) {
  auto r = Ream({"load", "--target", "127.0.0.1:9", "--schedule", "100 for 1s", "--qps", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--qps and --schedule are both given"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--schedule", "100 for 1s", "--duration", "5s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--duration and --schedule are both given"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--schedule", "100 for 1s, 200 until 2s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--schedule = \"100 for 1s, 200 until 2s\": '200 until 2s' is neither"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--schedule", "file:/nonexistent/day.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read /nonexistent/day.txt"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--schedule", "100 for 1s", "--until", "p95 ±5%"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--schedule with --until"), std::string::npos) << r.err;
  r = Ream({"load", "--target", "127.0.0.1:9", "--qps", "100", "--window", "1ms"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--window must be at least 10ms"), std::string::npos) << r.err;
}

TEST(LoadCli, NothingListeningFailsAtOnce) {
  auto r = Ream({"load", "--target", "127.0.0.1:" + std::to_string(FreePort()), "--qps", "100",
                 "--duration", "1s"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
}

TEST(ServeCli, BadServiceDistributionIsRejected) {
  auto r = Ream({"serve", "synthetic", "--service", "gauss:3us"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown distribution 'gauss'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ream
