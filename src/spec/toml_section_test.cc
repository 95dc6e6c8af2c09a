#include "spec/toml_section.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

toml::table Parse(const char* text) { return toml::parse(std::string_view(text), std::string_view("t.toml")); }

TEST(TomlSection, UnknownKeySuggestsTheClosestKnownOne) {
  toml::table t = Parse("x = 1\nconections = 4\n");
  TomlSection s(t, "load", "t.toml", {"x", "connections"});
  Status st = s.Unknown();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "t.toml:2: unknown key 'load.conections' (did you mean 'load.connections'?)");
  // Nothing close: the known keys are listed instead.
  toml::table far = Parse("zzzzzz = 1\n");
  Status none = TomlSection(far, "load", "t.toml", {"x", "connections"}).Unknown();
  EXPECT_EQ(none.message(), "t.toml:1: unknown key 'load.zzzzzz' (known keys in [load]: x, connections)");
  EXPECT_TRUE(TomlSection(t, "load", "t.toml", {"x", "conections"}).Unknown().ok());
}

TEST(TomlSection, GettersKeepTheDefaultWhenAbsentAndNameKeyAndLineOnError) {
  toml::table t = Parse("n = 5\ns = \"five\"\nd = \"250ms\"\n");
  TomlSection s(t, "", "t.toml", {"n", "s", "d"});
  int n = 7, missing = 9;
  EXPECT_TRUE(s.Int("n", &n, 0, 10).ok());
  EXPECT_EQ(n, 5);
  EXPECT_TRUE(s.Int("absent", &missing, 0, 10).ok());
  EXPECT_EQ(missing, 9);
  EXPECT_EQ(s.Int("n", &n, 6, 10).message(), "t.toml:1: n is 5; it must be between 6 and 10");
  EXPECT_EQ(s.Int("s", &n, 0, 10).message(), "t.toml:2: s must be an integer");
  std::chrono::milliseconds d{1};
  EXPECT_TRUE(s.Duration("d", &d, std::chrono::milliseconds(0), std::chrono::milliseconds(1000)).ok());
  EXPECT_EQ(d, std::chrono::milliseconds(250));
  EXPECT_FALSE(s.Duration("d", &d, std::chrono::milliseconds(500), std::chrono::milliseconds(1000)).ok());
  EXPECT_EQ(s.Line("s"), 2);
}

TEST(TomlSection, EditDistanceAndDurations) {
  EXPECT_EQ(EditDistance("duraton", "duration"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(*ParseSpecDuration("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(*ParseSpecDuration("20us"), std::chrono::microseconds(20));
  EXPECT_FALSE(ParseSpecDuration("5 parsecs").ok());
  // Found by fuzz/spec_fuzzer: past int64 nanoseconds the duration came back negative, and
  // a NUL ended the unit early.
  auto huge = ParseSpecDuration("55555555502");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("too long"), std::string::npos) << huge.status().message();
  EXPECT_FALSE(ParseSpecDuration("1e300ms").ok());
  EXPECT_FALSE(ParseSpecDuration(std::string("5s\0x", 4)).ok());
}

}  // namespace
}  // namespace ream
