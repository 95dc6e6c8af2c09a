#include "workloads/dnn.h"

#include <gtest/gtest.h>

#include <set>

#include "workloads/builtins.h"

namespace ream {
namespace {

DnnOptions Tiny() {
  DnnOptions o;
  o.inputs = 64;
  o.width = 32;
  o.depth = 2;
  o.batch = 3;
  o.classes = 10;
  return o;
}

std::string Classify(RequestHandler& h, const std::string& key) {
  frame::RequestFrame r;
  r.key = key;
  std::string payload;
  EXPECT_EQ(h.Handle(r, &payload), frame::ResponseStatus::kOk) << payload;
  return payload;
}

TEST(DnnNetwork, ClassifiesAGeneratedBatchTheSameForTheSameKeyAndSeed) {
  auto net = DnnNetwork::Make(Tiny());
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->weight_bytes(), ((64 + 1) * 32 + (32 + 1) * 32 + (32 + 1) * 10) * 4u);
  EXPECT_EQ((*net)->flops_per_request(), 2u * 3 * (64 * 32 + 32 * 32 + 32 * 10));
  auto h = MakeDnnHandlers(*net);
  std::string a = Classify(*h(0), "key0000000000005");
  ASSERT_EQ(a.rfind("classes=", 0), 0u) << a;
  EXPECT_EQ(std::count(a.begin(), a.end(), ','), 2) << "one class per batch item: " << a;
  EXPECT_EQ(Classify(*h(1), "key0000000000005"), a);
  // Another network (seed) gives other probabilities for the same key.
  DnnOptions o = Tiny();
  o.seed = 9;
  auto other = DnnNetwork::Make(o);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(Classify(*MakeDnnHandlers(*other)(0), "key0000000000005"), a);
  // Keys differ: over many keys the inputs (and so the answers) are not all alike.
  std::set<std::string> answers;
  for (int k = 0; k < 20; ++k) answers.insert(Classify(*h(0), "key" + std::to_string(k)));
  EXPECT_GT(answers.size(), 10u);
}

TEST(DnnNetwork, OneItemAloneAndInABatchGetTheSameAnswer) {
  // The weights do not depend on the batch, so sgemv (batch 1) and sgemm (batch 3) must agree
  // on each item: a wrong transpose or leading dimension in either path breaks this.
  DnnOptions o = Tiny();
  o.batch = 3;
  auto batched = DnnNetwork::Make(o);
  o.batch = 1;
  auto single = DnnNetwork::Make(o);
  ASSERT_TRUE(batched.ok() && single.ok());
  std::vector<float> in(o.inputs * 3);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 37) % 101) / 101.0f;
  auto sb = (*batched)->MakeScratch();
  std::vector<uint32_t> all;
  float p0 = (*batched)->Classify(in.data(), sb, &all);
  ASSERT_EQ(all.size(), 3u);
  auto ss = (*single)->MakeScratch();
  for (size_t item = 0; item < 3; ++item) {
    std::vector<uint32_t> one;
    float p = (*single)->Classify(in.data() + item * o.inputs, ss, &one);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0], all[item]) << "item " << item;
    if (item == 0) {
      EXPECT_NEAR(p, p0, 1e-5);
    }
    EXPECT_GT(p, 0.0f);
    EXPECT_LE(p, 1.0f);
  }
}

TEST(DnnNetwork, RefusesANetworkBeyondTheLimitAndBadShapes) {
  DnnOptions o;
  o.width = 16384;
  o.depth = 8;  // 8 GiB of weights
  auto big = DnnNetwork::Make(o);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(big.status().message().find("more than --max-weight-bytes (1024.0 MiB)"), std::string::npos)
      << big.status().message();
  o = Tiny();
  o.depth = 0;
  EXPECT_EQ(DnnNetwork::Make(o).status().message(), "--depth must be >= 1");
  EXPECT_EQ(DnnPreset("huge").status().message(), "--size 'huge' is not a preset (small, medium, large)");
}

TEST(DnnNetwork, FromTheTableNamesTheBadFlag) {
  const BuiltinWorkload* w = BuiltinWorkloads().Find("dnn");
  ASSERT_NE(w, nullptr);
  std::map<std::string, std::string> v;
  for (const auto& opt : w->options) v[opt.flag] = opt.default_value;
  v["--width"] = "wide";
  EXPECT_EQ(w->make(v).status().message(), "--width 'wide' is not a non-negative integer");
  v["--width"] = "64";
  v["--max-weight-bytes"] = "1000";
  EXPECT_NE(w->make(v).status().message().find("--max-weight-bytes"), std::string::npos);
  v["--max-weight-bytes"] = "1073741824";
  auto made = w->make(v);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_NE(made->detail.find("width=64 depth=3"), std::string::npos) << made->detail;
}

}  // namespace
}  // namespace ream
