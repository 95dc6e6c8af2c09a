#include "workloads/rocksdb.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "protocol/keyspace.h"
#include "workloads/builtins.h"

namespace ream {
namespace {

class RocksdbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ream-rocksdb-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RocksdbOptions Small(const std::string& name) {
    RocksdbOptions o;
    o.path = dir_ + "/" + name;
    o.keys = 2000;
    o.value_bytes = 100;
    return o;
  }

  frame::ResponseStatus Get(RequestHandler& h, uint64_t i, std::string* out) {
    out->clear();
    std::string key = KeyString(i);
    frame::RequestFrame r{.id = 1, .op = Op::kGet, .key = key};
    return h.Handle(r, out);
  }

  std::unique_ptr<Platform> platform_ = MakePosixPlatform();
  std::string dir_;
};

TEST_F(RocksdbTest, AnswersGetsAndSetsOfTheGeneratorsKeys) {
  auto store = OpenRocksdb(*platform_, Small("db"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto h = MakeRocksdbHandlers(*store)(0);
  std::string v;
  ASSERT_EQ(Get(*h, 0, &v), frame::ResponseStatus::kOk);
  EXPECT_EQ(v.size(), 100u);
  ASSERT_EQ(Get(*h, 1999, &v), frame::ResponseStatus::kOk);
  EXPECT_EQ(Get(*h, 2000, &v), frame::ResponseStatus::kNotFound);
  std::string key = KeyString(7);
  frame::RequestFrame set{.id = 2, .op = Op::kSet, .key = key, .value = "fresh"};
  std::string out;
  ASSERT_EQ(h->Handle(set, &out), frame::ResponseStatus::kOk);
  ASSERT_EQ(Get(*h, 7, &v), frame::ResponseStatus::kOk);
  EXPECT_EQ(v, "fresh");
  frame::RequestFrame scan{.id = 3, .op = Op::kScan, .key = key};
  EXPECT_EQ(h->Handle(scan, &out), frame::ResponseStatus::kError);
  EXPECT_FALSE(platform_->Exists(dir_ + "/db.partial"));
}

TEST_F(RocksdbTest, SeveralReadsPerGetAnswerTheRequestKeysValue) {
  std::string one, eight;
  {
    auto s = OpenRocksdb(*platform_, Small("db"));
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(Get(*MakeRocksdbHandlers(*s)(0), 42, &one), frame::ResponseStatus::kOk);
  }
  RocksdbOptions o = Small("db");
  o.reads = 8;
  auto s = OpenRocksdb(*platform_, o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto h = MakeRocksdbHandlers(*s)(0);
  ASSERT_EQ(Get(*h, 42, &eight), frame::ResponseStatus::kOk);
  EXPECT_EQ(eight, one);
  EXPECT_EQ(Get(*h, 5000, &eight), frame::ResponseStatus::kNotFound);
  o.reads = 0;
  EXPECT_EQ(OpenRocksdb(*platform_, o).status().message(), "--reads must be at least 1");
}

TEST_F(RocksdbTest, GenerationIsDeterministicForASeedAndReusedWhenPresent) {
  std::string a, b, c;
  {
    auto s1 = OpenRocksdb(*platform_, Small("one"));
    ASSERT_TRUE(s1.ok()) << s1.status().message();
    ASSERT_EQ(Get(*MakeRocksdbHandlers(*s1)(0), 1234, &a), frame::ResponseStatus::kOk);
  }
  {
    auto s2 = OpenRocksdb(*platform_, Small("two"));
    ASSERT_TRUE(s2.ok());
    ASSERT_EQ(Get(*MakeRocksdbHandlers(*s2)(0), 1234, &b), frame::ResponseStatus::kOk);
    // A write, to tell a reopened dataset from a regenerated one.
    std::string key = KeyString(3), out;
    frame::RequestFrame set{.id = 2, .op = Op::kSet, .key = key, .value = "kept"};
    ASSERT_EQ(MakeRocksdbHandlers(*s2)(0)->Handle(set, &out), frame::ResponseStatus::kOk);
  }
  EXPECT_EQ(a, b);
  auto again = OpenRocksdb(*platform_, Small("two"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(Get(*MakeRocksdbHandlers(*again)(0), 3, &c), frame::ResponseStatus::kOk);
  EXPECT_EQ(c, "kept");
  RocksdbOptions other = Small("three");
  other.seed = 2;
  auto s3 = OpenRocksdb(*platform_, other);
  ASSERT_TRUE(s3.ok());
  ASSERT_EQ(Get(*MakeRocksdbHandlers(*s3)(0), 1234, &c), frame::ResponseStatus::kOk);
  EXPECT_NE(a, c);
}

TEST_F(RocksdbTest, RefusesBadParametersWithTheCauseAndLeavesNothing) {
  RocksdbOptions zero = Small("sub/zero");
  zero.keys = 0;
  auto z = OpenRocksdb(*platform_, zero);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().message(), "--keys must be at least 1 (the dataset would be empty)");
  EXPECT_FALSE(platform_->Exists(dir_ + "/sub"));

  ASSERT_TRUE(OpenRocksdb(*platform_, Small("db")).ok());
  RocksdbOptions changed = Small("db");
  changed.keys = 3000;
  auto m = OpenRocksdb(*platform_, changed);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("was generated with rocksdb keys=2000 value_bytes=100 seed=1, not "
                                      "rocksdb keys=3000"),
            std::string::npos)
      << m.status().message();

  ASSERT_TRUE(platform_->WriteFile(dir_ + "/afile", "x").ok());
  RocksdbOptions under_file = Small("afile/db");
  auto f = OpenRocksdb(*platform_, under_file);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("afile"), std::string::npos) << f.status().message();

  ASSERT_TRUE(platform_->MakeDir(dir_ + "/foreign").ok());
  auto foreign = OpenRocksdb(*platform_, Small("foreign"));
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("is not a dataset ream generated"), std::string::npos);
}

TEST(RocksdbBuiltin, RefusesBadOptionTextsByFlag) {
  const BuiltinWorkload* w = BuiltinWorkloads().Find("rocksdb");
  ASSERT_NE(w, nullptr);
  std::map<std::string, std::string> v;
  for (const auto& o : w->options) v[o.flag] = o.default_value;
  v["--data-dir"] = "/nonexistent-ream-test";
  v["--keys"] = "0";
  auto r = w->make(v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--keys must be at least 1 (the dataset would be empty)");
  v["--keys"] = "10";
  v["--direct-reads"] = "maybe";
  EXPECT_EQ(w->make(v).status().message(), "--direct-reads 'maybe' is not true or false");
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-ream-test"));
}

}  // namespace
}  // namespace ream
