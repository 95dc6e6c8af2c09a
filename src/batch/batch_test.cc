// The batch suite's table, input determinism (same seed, same bytes; another seed, other bytes)
// and the input cache's reuse and failure handling, in memory and under /tmp.
#include "batch/batch.h"

#include <gtest/gtest.h>

#include <set>
#include <cstring>

#include "workloads/dataset_dir.h"

namespace ream::batch {
namespace {

// A size small enough to generate in milliseconds, large enough to draw from the seed.
uint64_t SmallSize(const BatchProgram& p) { return std::max<uint64_t>(1, SizeFor(p, 0.05)); }

std::map<std::string, std::string> Generate(const BatchProgram& p, uint64_t seed) {
  MemoryInputFiles files;
  Status s = p.generate(files, seed, SmallSize(p));
  EXPECT_TRUE(s.ok()) << p.name << ": " << s.ToString();
  return files.Contents();
}

TEST(BatchTable, HasTenProgramsWithTwoMemoryAndTwoComputeBound) {
  std::set<std::string> names;
  int memory = 0, compute = 0;
  for (const BatchProgram& p : BatchPrograms()) {
    EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
    EXPECT_FALSE(p.spec.empty()) << p.name;
    EXPECT_FALSE(p.package.empty()) << p.name;
    EXPECT_GT(p.size_for_default, 0u) << p.name;
    EXPECT_TRUE(p.argv) << p.name;
    memory += p.category == Category::kMemory;
    compute += p.category == Category::kCompute;
  }
  EXPECT_GE(names.size(), 10u);
  EXPECT_GE(memory, 2);
  EXPECT_GE(compute, 2);
  EXPECT_EQ(FindBatchProgram("nope"), nullptr);
  ASSERT_NE(FindBatchProgram("xz"), nullptr);
  EXPECT_NE(BatchProgramNames().find("gnugo"), std::string::npos);
}

TEST(BatchInputs, SameSeedSameBytesOtherSeedOtherBytes) {
  for (const BatchProgram& p : BatchPrograms()) {
    if (!p.generate) continue;
    auto a = Generate(p, 1), b = Generate(p, 1), c = Generate(p, 2);
    ASSERT_FALSE(a.empty()) << p.name;
    EXPECT_EQ(a, b) << p.name << ": the same seed gave different bytes";
    EXPECT_NE(a, c) << p.name << ": seeds 1 and 2 gave the same bytes";
    for (const auto& [name, bytes] : a) EXPECT_FALSE(bytes.empty()) << p.name << "/" << name;
  }
}

// Fixed bytes for seed 1: a change of the generator shows here as a changed checksum, i.e. a
// cached input (keyed by name, seed and size only) that no longer matches what would be generated.
TEST(BatchInputs, TextIsStableAcrossBuilds) {
  MemoryInputFiles files;
  ASSERT_TRUE(WriteText(files, 1, 4096).ok());
  std::string text = files.Contents().at("corpus.txt");
  EXPECT_EQ(text.size(), 4096u);
  // The first 4 KiB of seed 1's text, as generated when this test was written (5 Dec 2026).
  EXPECT_EQ(Fnv1aHex(text), "9c4b27f8c0ec58fe") << "the text generator's output changed: cached inputs differ";
  Rng rng(1);
  EXPECT_EQ(rng.Next(), 2469588189546311528u);  // mt19937_64's first output for seed 1
  // The size is exact and the text is words: letters, spaces, punctuation and newlines only.
  for (char c : text) EXPECT_TRUE(std::isalpha(static_cast<unsigned char>(c)) || std::strchr(" .,?\n", c)) << int(c);
}

TEST(BatchInputs, SizeScalesLinearlyWithSeconds) {
  const BatchProgram& p = *FindBatchProgram("bzip2");
  EXPECT_EQ(SizeFor(p, kDefaultSeconds), p.size_for_default);
  EXPECT_EQ(SizeFor(p, 2 * kDefaultSeconds), 2 * p.size_for_default);
  EXPECT_EQ(SizeFor(*FindBatchProgram("gnugo"), 0.001), 1u);  // never 0
}

class BatchCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = "/tmp/ream-batch-test-" + std::to_string(platform_->ProcessId());
    (void)RemoveTree(*platform_, root_);
  }
  void TearDown() override { (void)RemoveTree(*platform_, root_); }
  std::unique_ptr<Platform> platform_ = MakePosixPlatform();
  std::string root_;
};

TEST_F(BatchCacheTest, GeneratesOnceThenReuses) {
  const BatchProgram& p = *FindBatchProgram("gnugo");
  InputOptions o{.seconds = 1, .seed = 7, .cache_root = root_};
  auto first = PrepareInput(*platform_, p, o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->generated);
  EXPECT_EQ(first->dir, root_ + "/gnugo-7-" + std::to_string(SizeFor(p, 1)));
  auto text = platform_->ReadFile(first->dir + "/game.gtp");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(first->bytes, text->size());
  auto second = PrepareInput(*platform_, p, o);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->generated);
  EXPECT_EQ(second->dir, first->dir);
  EXPECT_EQ(second->bytes, first->bytes);
}

TEST_F(BatchCacheTest, FailedGenerationLeavesNothing) {
  BatchProgram broken = *FindBatchProgram("xz");
  broken.generate = [](InputFiles& files, uint64_t, uint64_t) -> Status {
    auto out = files.Open("half.txt");
    if (!out.ok()) return out.status();
    **out << "half an input";
    return IoError("no space left (injected)");
  };
  auto r = PrepareInput(*platform_, broken, {.seconds = 1, .seed = 1, .cache_root = root_});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
  EXPECT_NE(r.status().message().find(root_), std::string::npos) << r.status().message();
  auto left = platform_->ListDir(root_);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << left->front().name;
}

TEST_F(BatchCacheTest, StaleTemporaryOfAKilledGenerationIsRemoved) {
  const BatchProgram& p = *FindBatchProgram("gnugo");
  const std::string base = "gnugo-1-" + std::to_string(SizeFor(p, 1));
  ASSERT_TRUE(MakeDirs(*platform_, root_ + "/" + base + ".tmp-999999999").ok());  // no such pid
  auto r = PrepareInput(*platform_, p, {.seconds = 1, .seed = 1, .cache_root = root_});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(platform_->Exists(root_ + "/" + base + ".tmp-999999999"));
}

TEST(BatchResolve, MissingProgramNamesItsPackage) {
  RootedPlatform empty("/nonexistent-ream-root");
  auto r = ResolveProgram(empty, *FindBatchProgram("gnugo"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("apt-get install gnugo"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace ream::batch
