#include "platform/status.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace ream {
namespace {

TEST(Status, OkByDefaultAndToString) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
  Status bad = InvalidArgument("--qps must be > 0");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.ToString(), "invalid argument: --qps must be > 0");
}

TEST(Status, AnnotatePrefixesContextOnlyOnError) {
  EXPECT_TRUE(Status::Ok().Annotate("ctx").ok());
  Status s = NotFound("no such file").Annotate("reading /sys/x");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "reading /sys/x: no such file");
}

TEST(Status, ErrnoMapsToCodesAndNamesTheOperation) {
  EXPECT_EQ(ErrnoStatus(ENOENT, "open /x").code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoStatus(EACCES, "open /x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus(ECONNREFUSED, "connect").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ErrnoStatus(EOPNOTSUPP, "op").code(), StatusCode::kUnsupported);
  Status s = ErrnoStatus(ENOENT, "open /x");
  EXPECT_NE(s.message().find("open /x"), std::string::npos);
  EXPECT_NE(s.message().find("No such file"), std::string::npos);
}

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  REAM_ASSIGN_OR_RETURN(int h, Half(x));
  REAM_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Result, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd");
  EXPECT_EQ(r.value_or(-1), -1);
}

}  // namespace
}  // namespace ream
