#include "store/hdr_log.h"

#include <zlib.h>

#include <gtest/gtest.h>

namespace ream {
namespace {

uint32_t Be32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}
uint64_t Be64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// Decodes HdrHistogram's V2 counts (ZigZag LEB128, negative = zero run) and returns
// (value at index → count) using HdrHistogram's index → value mapping for 2 digits.
std::vector<std::pair<int64_t, int64_t>> DecodeCounts(const std::string& enc) {
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t pos = 40, end = 40 + Be32(enc, 4);
  int64_t index = 0;
  while (pos < end) {
    uint64_t z = 0;
    int shift = 0;
    for (int i = 0; i < 9; ++i) {
      uint8_t b = static_cast<uint8_t>(enc[pos++]);
      if (i == 8) {
        z |= static_cast<uint64_t>(b) << 56;
        break;
      }
      z |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    int64_t v = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    if (v < 0) {
      index += -v;
      continue;
    }
    if (v > 0) {
      // index -> value: bucket = index / 128 - 1, sub = index % 128 + 128 (or index < 256).
      int64_t value;
      if (index < 256) {
        value = index;
      } else {
        int64_t bucket = (index >> 7) - 1;
        int64_t sub = (index & 127) + 128;
        value = sub << bucket;
      }
      out.push_back({value, v});
    }
    ++index;
  }
  return out;
}

TEST(HdrLog, V2EncodingHasHdrHistogramsHeaderAndCounts) {
  Histogram h;
  h.RecordN(5, 3);          // exact region
  h.RecordN(1000, 10);      // log region
  h.RecordN(2500000, 1);    // 2.5 ms
  std::string enc = EncodeHdrV2(h);
  EXPECT_EQ(Be32(enc, 0), 0x1c849313u);
  EXPECT_EQ(Be32(enc, 8), 0u);                 // normalizing offset
  EXPECT_EQ(Be32(enc, 12), 2u);                // significant digits
  EXPECT_EQ(Be64(enc, 16), 1u);                // lowest
  EXPECT_EQ(Be64(enc, 24), static_cast<uint64_t>(Histogram::kMaxValue));
  EXPECT_EQ(enc.size(), 40 + Be32(enc, 4));
  auto counts = DecodeCounts(enc);
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0], (std::pair<int64_t, int64_t>{5, 3}));
  EXPECT_EQ(counts[1].second, 10);
  EXPECT_NEAR(counts[1].first, 1000, 1000 * 0.01);
  EXPECT_EQ(counts[2].second, 1);
  EXPECT_NEAR(counts[2].first, 2500000, 2500000 * 0.01);
}

TEST(HdrLog, CompressedFormInflatesToTheV2Encoding) {
  Histogram h;
  for (int i = 1; i < 100000; i += 7) h.Record(i * 13);
  auto c = EncodeHdrV2Compressed(h);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Be32(*c, 0), 0x1c849314u);
  EXPECT_EQ(c->size(), 8 + Be32(*c, 4));
  std::string raw = EncodeHdrV2(h);
  std::string back(raw.size(), '\0');
  uLongf n = static_cast<uLongf>(back.size());
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(back.data()), &n,
                       reinterpret_cast<const Bytef*>(c->data() + 8), static_cast<uLong>(c->size() - 8)),
            Z_OK);
  EXPECT_EQ(back, raw);
  uint64_t total = 0;
  for (auto& [v, k] : DecodeCounts(raw)) total += static_cast<uint64_t>(k);
  EXPECT_EQ(total, h.count());
}

TEST(HdrLog, LogHasVersionStartTimeLegendAndTaggedLines) {
  Histogram h;
  h.Record(1500000);
  auto log = WriteHdrLog(1700000000.25, "ream test", {{"qps1000", 0, 5, &h}, {"", 6, 5, &h}});
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("#[Histogram log format version 1.3]\n"), std::string::npos);
  EXPECT_NE(log->find("#[StartTime: 1700000000.250 (seconds since epoch)"), std::string::npos);
  EXPECT_NE(log->find("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"),
            std::string::npos);
  EXPECT_NE(log->find("Tag=qps1000,0.000,5.000,1.500,HISTF"), std::string::npos) << *log;
  EXPECT_NE(log->find("\n6.000,5.000,1.500,HISTF"), std::string::npos) << *log;
  EXPECT_FALSE(WriteHdrLog(0, "", {{"a,b", 0, 1, &h}}).ok());
}

TEST(HdrLog, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
}

}  // namespace
}  // namespace ream
