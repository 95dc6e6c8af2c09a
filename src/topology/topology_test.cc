#include "topology/topology.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/" + name;
}

TEST(Topology, MachineWithSmtSiblings) {
  RootedPlatform p(Fixture("smt"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->cpus.size(), 8u);
  EXPECT_EQ(t->cores.size(), 4u);
  EXPECT_TRUE(t->has_smt());
  EXPECT_EQ(t->threads_per_core(), 2);
  EXPECT_EQ(t->cpu(1)->siblings, (std::vector<int>{1, 5}));
  EXPECT_EQ(t->cpu(5)->core_index, t->cpu(1)->core_index);
  EXPECT_NE(t->cpu(0)->core_index, t->cpu(1)->core_index);
  const CacheInfo* llc = t->llc();
  ASSERT_NE(llc, nullptr);
  EXPECT_EQ(llc->level, 3);
  EXPECT_EQ(llc->ways, 11);
  EXPECT_EQ(llc->size_bytes, 16896LL * 1024);
  EXPECT_EQ(llc->shared_cpus.size(), 8u);
  // L1d, L1i and L2 per core plus one shared L3.
  EXPECT_EQ(t->caches.size(), 4u * 3 + 1);
  EXPECT_NE(t->cpu_model.find("Xeon"), std::string::npos);
  EXPECT_EQ(SmtCapability(t).status, Support::kSupported);
}

// The seed's main node (two Xeon Silver 4116): Linux numbers each socket's cores first (0-11,
// 12-23) and their second SMT threads after all of them (24-35, 36-47), so N and N+24 are
// siblings; one 11-way 16.5 MB L3 and one NUMA node per socket.
TEST(Topology, TheSeedsTwoSocketSkylake) {
  RootedPlatform p(Fixture("seed-4116x2"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->cpu_model, "Intel(R) Xeon(R) Silver 4116 CPU @ 2.10GHz");
  EXPECT_EQ(t->cpus.size(), 48u);
  EXPECT_EQ(t->cores.size(), 24u);
  EXPECT_EQ(t->threads_per_core(), 2);
  EXPECT_EQ(t->cpu(5)->siblings, (std::vector<int>{5, 29}));
  EXPECT_EQ(t->cpu(37)->siblings, (std::vector<int>{13, 37}));
  EXPECT_EQ(t->cpu(13)->package_id, 1);
  EXPECT_EQ(t->cpu(37)->node, 1);
  EXPECT_EQ(t->cpu(24)->node, 0);
  ASSERT_EQ(t->nodes.size(), 2u);
  EXPECT_EQ(FormatCpuList(t->nodes[1].cpus), "12-23,36-47");
  const CacheInfo* llc = t->llc();
  ASSERT_NE(llc, nullptr);
  EXPECT_EQ(llc->ways, 11);
  EXPECT_EQ(llc->size_bytes, 16896LL * 1024);  // 11 ways x 1.5 MiB
  // L1d, L1i and L2 per core, an L3 per socket.
  EXPECT_EQ(t->caches.size(), 24u * 3 + 2);
  int l3 = 0;
  for (const auto& c : t->caches) {
    if (c.level == 3) {
      ++l3;
      EXPECT_EQ(c.shared_cpus.size(), 24u);
    }
  }
  EXPECT_EQ(l3, 2);
}

TEST(Topology, MachineWithoutSmtOrCacheInfo) {
  RootedPlatform p(Fixture("nosmt"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->cpus.size(), 2u);
  EXPECT_EQ(t->cores.size(), 2u);
  EXPECT_FALSE(t->has_smt());
  EXPECT_EQ(t->llc(), nullptr);
  EXPECT_EQ(t->nodes.size(), 1u);
  Capability smt = SmtCapability(t);
  EXPECT_EQ(smt.status, Support::kUnsupported);
  EXPECT_NE(smt.detail.find("2-SMT"), std::string::npos);
  auto j = t->ToJson();
  EXPECT_EQ(j["logical_cpus"], 2);
  EXPECT_EQ(j["smt"], false);
  EXPECT_TRUE(j["llc"].is_null());
}

TEST(Topology, MissingTreeIsAnError) {
  RootedPlatform p("/nonexistent/ream-topology");
  auto t = ReadTopology(p);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("online"), std::string::npos);
}

TEST(Topology, ParsesCacheSizes) {
  EXPECT_EQ(*ParseCacheSize("32K"), 32768);
  EXPECT_EQ(*ParseCacheSize("1M\n"), 1048576);
  EXPECT_FALSE(ParseCacheSize("lots").ok());
  // Found by fuzz/spec_fuzzer: a negative size was accepted; an overflowing one is refused too.
  EXPECT_FALSE(ParseCacheSize("-05").ok());
  EXPECT_FALSE(ParseCacheSize("9223372036854775807G").ok());
}

TEST(Topology, JsonRoundTripResolvesTheSamePlacements) {
  RootedPlatform p(Fixture("smt"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto back = Topology::FromJson(t->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), t->ToJson());
  ASSERT_EQ(back->cpus.size(), t->cpus.size());
  for (size_t i = 0; i < t->cpus.size(); ++i) {
    EXPECT_EQ(back->cpus[i].id, t->cpus[i].id);
    EXPECT_EQ(back->cpus[i].siblings, t->cpus[i].siblings);
    EXPECT_EQ(back->cpus[i].core_index, t->cpus[i].core_index);
    EXPECT_EQ(back->cpus[i].node, t->cpus[i].node);
  }
  EXPECT_TRUE(back->has_smt());
  ASSERT_NE(back->llc(), nullptr);
  EXPECT_EQ(back->llc()->ways, 11);
  EXPECT_FALSE(Topology::FromJson(nlohmann::json{{"cores", nlohmann::json::array()}}).ok());
  EXPECT_FALSE(Topology::FromJson(nlohmann::json::object()).ok());
}

}  // namespace
}  // namespace ream
