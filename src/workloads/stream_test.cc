// The stream workload's pieces without nginx: its option checks, its dataset (made once,
// reused, removed on failure) and the configuration it gives nginx.
#include "workloads/stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "protocol/keyspace.h"

namespace ream {
namespace {

StreamOptions Small(const std::string& dir) {
  StreamOptions o;
  o.videos = 3;
  o.bitrate_bps = 800'000;
  o.seconds = 2;  // 200 000 bytes each
  o.data_dir = dir;
  o.path = StreamDefaultPath(o);
  return o;
}

TEST(StreamOptions, BadValuesNameTheirFlag) {
  StreamOptions o = Small("/tmp");
  EXPECT_TRUE(ValidateStreamOptions(o).ok());
  EXPECT_EQ(o.video_bytes(), 200000u);
  EXPECT_EQ(o.path, "/tmp/stream-3x200000-s1");
  StreamOptions none = o;
  none.videos = 0;
  EXPECT_NE(ValidateStreamOptions(none).message().find("--videos"), std::string::npos);
  StreamOptions empty = o;
  empty.bitrate_bps = 3;
  empty.seconds = 1;  // 3 bits: 0 bytes
  EXPECT_NE(ValidateStreamOptions(empty).message().find("0 bytes"), std::string::npos);
  StreamOptions big = o;
  big.max_bytes = 100000;
  EXPECT_NE(ValidateStreamOptions(big).message().find("--max-bytes"), std::string::npos);
}

TEST(StreamDataset, IsMadeOnceWithTheKeysNamesAndReused) {
  auto p = MakePosixPlatform();
  std::string dir = (std::filesystem::temp_directory_path() / ("ream-stream-ds-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  StreamOptions o = Small(dir);
  ASSERT_TRUE(PrepareStreamDataset(*p, o).ok());
  for (uint64_t v = 0; v < 3; ++v) {
    std::string f = o.path + "/video/" + KeyString(v) + ".bin";
    ASSERT_TRUE(std::filesystem::exists(f)) << f;
    EXPECT_EQ(std::filesystem::file_size(f), 200000u);
  }
  // The bytes differ from video to video (incompressible, not one pattern repeated).
  auto a = p->ReadFile(o.path + "/video/" + KeyString(0) + ".bin");
  auto b = p->ReadFile(o.path + "/video/" + KeyString(1) + ".bin");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->substr(0, 4096), b->substr(0, 4096));
  // Made once: a second call reuses it (a file written meanwhile is not rewritten).
  auto before = std::filesystem::last_write_time(o.path + "/video/" + KeyString(2) + ".bin");
  ASSERT_TRUE(PrepareStreamDataset(*p, o).ok());
  EXPECT_EQ(std::filesystem::last_write_time(o.path + "/video/" + KeyString(2) + ".bin"), before);
  std::filesystem::remove_all(dir);
}

TEST(StreamDataset, APathThatIsAFileFailsAndLeavesNothing) {
  auto p = MakePosixPlatform();
  std::string dir = (std::filesystem::temp_directory_path() / ("ream-stream-bad-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  StreamOptions o = Small(dir);
  o.path = dir + "/file/data";
  ASSERT_TRUE(p->WriteFile(dir + "/file", "x").ok());
  Status s = PrepareStreamDataset(*p, o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir + "/file"), std::string::npos) << s.message();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

TEST(StreamNginx, ServesTheVideosKeepingEachSessionsConnection) {
  std::string c = StreamNginxConfig("/tmp/run", "/data/v", "0.0.0.0", 8080, 2);
  EXPECT_NE(c.find("worker_processes 2;"), std::string::npos);
  EXPECT_NE(c.find("listen 0.0.0.0:8080;"), std::string::npos);
  EXPECT_NE(c.find("root /data/v;"), std::string::npos);
  EXPECT_NE(c.find("location /video/"), std::string::npos);
  EXPECT_NE(c.find("keepalive_requests 10000000;"), std::string::npos);
  EXPECT_NE(c.find("pid /tmp/run/nginx.pid;"), std::string::npos);
  EXPECT_NE(c.find("daemon off;"), std::string::npos);
}

}  // namespace
}  // namespace ream
