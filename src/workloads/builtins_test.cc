#include "workloads/builtins.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

std::map<std::string, std::string> Defaults(const BuiltinWorkload& w) {
  std::map<std::string, std::string> v;
  for (const auto& o : w.options) v[o.flag] = o.default_value;
  return v;
}

TEST(BuiltinWorkloads, ListsEachServerOnceWithItsOptions) {
  const WorkloadTable& t = BuiltinWorkloads();
  EXPECT_EQ(t.Names(), (std::vector<std::string>{"synthetic", "kv", "xapian", "dnn", "sphinx", "rocksdb", "stream"}));
  // Each says the protocol its clients speak: ream's, or HTTP for stream's nginx.
  EXPECT_EQ(t.Find("kv")->protocol, "ream");
  EXPECT_EQ(t.Find("stream")->protocol, "http");
  const BuiltinWorkload* syn = t.Find("synthetic");
  ASSERT_NE(syn, nullptr);
  ASSERT_FALSE(syn->options.empty());
  EXPECT_EQ(syn->options[0].flag, "--service");
  EXPECT_TRUE(syn->options[0].required);
  EXPECT_EQ(t.Find("gopher"), nullptr);
}

TEST(BuiltinWorkloads, MakesHandlersFromOptionTextsAndNamesABadOne) {
  const BuiltinWorkload* kv = BuiltinWorkloads().Find("kv");
  ASSERT_NE(kv, nullptr);
  auto v = Defaults(*kv);
  v["--records"] = "1000";
  auto ok = kv->make(v);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->detail, "records=1000 value_bytes=64");
  ASSERT_TRUE(static_cast<bool>(ok->handlers));
  EXPECT_NE(ok->handlers(0), nullptr);
  v["--value-bytes"] = "2000000";
  auto big = kv->make(v);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "--value-bytes must be <= 1048576");
  v["--value-bytes"] = "lots";
  EXPECT_EQ(kv->make(v).status().code(), StatusCode::kInvalidArgument);

  const BuiltinWorkload* syn = BuiltinWorkloads().Find("synthetic");
  auto s = Defaults(*syn);
  s["--service"] = "exp:100us";
  auto made = syn->make(s);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(made->detail, "service=exp:100us");
  s["--service"] = "sometimes";
  EXPECT_FALSE(syn->make(s).ok());
}

TEST(WorkloadTable, RefusesATakenNameAndTakesANewOne) {
  WorkloadTable t;
  RegisterBuiltinWorkloads(t);
  EXPECT_FALSE(t.Add({.name = "kv"}).ok());
  ASSERT_TRUE(t.Add({.name = "throwaway", .help = "test"}).ok());
  EXPECT_NE(t.Find("throwaway"), nullptr);
  EXPECT_EQ(t.Names().size(), 8u);
}

}  // namespace
}  // namespace ream
