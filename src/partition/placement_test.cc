#include "partition/placement.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

Topology Load(const std::string& fixture) {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/" + fixture);
  auto t = ReadTopology(p);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Topology{};
}

TEST(Placement, ScenariosOnAnSmtMachine) {
  Topology t = Load("smt");
  ASSERT_TRUE(t.has_smt());
  std::vector<int> reserved = DefaultGeneratorCpus(t);
  ASSERT_FALSE(reserved.empty());
  // The generator's core is never used by a scenario.
  auto st2 = ResolvePlacement(t, "2-ST", reserved);
  ASSERT_TRUE(st2.ok()) << st2.status().ToString();
  ASSERT_EQ(st2->size(), 2u);
  EXPECT_NE(t.cpu((*st2)[0])->core_index, t.cpu((*st2)[1])->core_index);
  auto smt2 = ResolvePlacement(t, "2-SMT", reserved);
  ASSERT_TRUE(smt2.ok()) << smt2.status().ToString();
  ASSERT_EQ(smt2->size(), 2u);
  EXPECT_EQ(t.cpu((*smt2)[0])->core_index, t.cpu((*smt2)[1])->core_index);
  for (int c : *st2) EXPECT_EQ(std::count(reserved.begin(), reserved.end(), c), 0);
  for (int c : *smt2) EXPECT_EQ(std::count(reserved.begin(), reserved.end(), c), 0);
  EXPECT_EQ(ResolvePlacement(t, "1-ST", reserved)->size(), 1u);
}

TEST(Placement, TooManyCoresFailsWithTheReason) {
  Topology t = Load("smt");
  auto r = ResolvePlacement(t, "64-ST", DefaultGeneratorCpus(t));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("physical core"), std::string::npos);
}

TEST(Placement, SmtScenarioOnAMachineWithoutSmtSaysWhy) {
  Topology t = Load("nosmt");
  ASSERT_FALSE(t.has_smt());
  auto r = ResolvePlacement(t, "2-SMT", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("SMT"), std::string::npos);
}

TEST(Placement, ReservationCanBeLiftedOrChosen) {
  Topology t = Load("nosmt");
  std::vector<int> all;
  for (const auto& c : t.cpus) all.push_back(c.id);
  EXPECT_EQ(DefaultGeneratorCpus(t), std::vector<int>{all.back()});
  EXPECT_TRUE(ParseReservedCpus(t, "none")->empty());
  EXPECT_EQ(*ParseReservedCpus(t, "default"), DefaultGeneratorCpus(t));
  EXPECT_EQ(*ParseReservedCpus(t, "0"), std::vector<int>{0});
  EXPECT_FALSE(ParseReservedCpus(t, "999").ok());
  EXPECT_FALSE(ParseReservedCpus(t, "x").ok());
  // With nothing reserved every core is usable.
  auto r = ResolvePlacement(t, std::to_string(t.cores.size()) + "-ST", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), t.cores.size());
  auto reserved = ResolvePlacement(t, std::to_string(t.cores.size()) + "-ST", DefaultGeneratorCpus(t));
  ASSERT_FALSE(reserved.ok());
  EXPECT_NE(reserved.status().message().find("--reserve-cpus none"), std::string::npos);
}

TEST(Placement, ExplicitListsAndGarbage) {
  Topology t = Load("nosmt");
  EXPECT_EQ(*ResolvePlacement(t, "0", {0}), std::vector<int>{0});  // explicit beats reserved
  EXPECT_EQ(ResolvePlacement(t, "999", {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolvePlacement(t, "fast", {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolvePlacement(t, "0-ST", {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ream
