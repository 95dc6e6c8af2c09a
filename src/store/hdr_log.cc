#include "store/hdr_log.h"

#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace ream {
namespace {

// The HdrHistogram configuration ream exports: values 1..2^42-1 ns, 2 significant digits.
constexpr int kSignificantDigits = 2;
constexpr int64_t kLowest = 1;
constexpr int64_t kHighest = Histogram::kMaxValue;
constexpr int kUnitMagnitude = 0;              // floor(log2(kLowest))
constexpr int kSubBucketCountMagnitude = 8;    // ceil(log2(2 * 10^2))
constexpr int kSubBucketHalfCountMagnitude = kSubBucketCountMagnitude - 1;
constexpr int64_t kSubBucketCount = int64_t{1} << kSubBucketCountMagnitude;
constexpr int64_t kSubBucketHalfCount = kSubBucketCount / 2;
constexpr int64_t kSubBucketMask = (kSubBucketCount - 1) << kUnitMagnitude;
constexpr int kLeadingZeroCountBase = 64 - kUnitMagnitude - kSubBucketHalfCountMagnitude - 1;

size_t HdrCountsIndex(int64_t value) {
  int bucket = kLeadingZeroCountBase - std::countl_zero(static_cast<uint64_t>(value | kSubBucketMask));
  int64_t sub = value >> (bucket + kUnitMagnitude);
  int64_t base = static_cast<int64_t>(bucket + 1) << kSubBucketHalfCountMagnitude;
  return static_cast<size_t>(base + (sub - kSubBucketHalfCount));
}

void PutBe32(std::string* out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xff));
}
void PutBe64(std::string* out, uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xff));
}
// ZigZag then LEB128, at most 9 bytes (the 9th carries 8 bits), as HdrHistogram's
// ZigZagEncoding.putLong.
void PutZigZag(std::string* out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  for (int i = 0; i < 8; ++i) {
    if (z < 0x80) {
      out->push_back(static_cast<char>(z));
      return;
    }
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z & 0xff));
}

}  // namespace

std::string EncodeHdrV2(const Histogram& h) {
  // Counts in HdrHistogram's layout, up to the index of the largest value.
  std::vector<int64_t> counts;
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    uint64_t c = h.bucket(i);
    if (c == 0) continue;
    // ream's bucket [low, low + w) holds exactly two HdrHistogram sub-buckets of width w/2
    // (one above 255, where HdrHistogram is exact). Recording at `low` lands in the first,
    // whose highest equivalent value — what HdrHistogram reports — is low + w/2 − 1, i.e.
    // ream's bucket midpoint: both tools then report the same values.
    int64_t v = std::max<int64_t>(Histogram::BucketLow(i), 0);
    size_t idx = HdrCountsIndex(v);
    if (counts.size() <= idx) counts.resize(idx + 1, 0);
    counts[idx] += static_cast<int64_t>(c);
  }
  std::string payload;
  for (size_t i = 0; i < counts.size();) {
    if (counts[i] == 0) {
      size_t j = i;
      while (j < counts.size() && counts[j] == 0) ++j;
      int64_t run = static_cast<int64_t>(j - i);
      if (run > 1) {
        PutZigZag(&payload, -run);
      } else {
        PutZigZag(&payload, 0);
      }
      i = j;
    } else {
      PutZigZag(&payload, counts[i]);
      ++i;
    }
  }
  std::string out;
  PutBe32(&out, 0x1c849303u | 0x10u);  // V2 encoding cookie, ZigZag-LEB128 word size
  PutBe32(&out, static_cast<uint32_t>(payload.size()));
  PutBe32(&out, 0);  // normalizingIndexOffset
  PutBe32(&out, kSignificantDigits);
  PutBe64(&out, static_cast<uint64_t>(kLowest));
  PutBe64(&out, static_cast<uint64_t>(kHighest));
  double ratio = 1.0;  // integerToDoubleValueConversionRatio
  uint64_t bits;
  std::memcpy(&bits, &ratio, sizeof bits);
  PutBe64(&out, bits);
  out += payload;
  return out;
}

Result<std::string> EncodeHdrV2Compressed(const Histogram& h) {
  std::string raw = EncodeHdrV2(h);
  uLongf cap = compressBound(static_cast<uLong>(raw.size()));
  std::string z(cap, '\0');
  int rc = compress2(reinterpret_cast<Bytef*>(z.data()), &cap,
                     reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                     Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) return Internal("zlib compress2 failed with code " + std::to_string(rc));
  z.resize(cap);
  std::string out;
  PutBe32(&out, 0x1c849304u | 0x10u);  // V2 compressed encoding cookie
  PutBe32(&out, static_cast<uint32_t>(z.size()));
  out += z;
  return out;
}

std::string Base64(const std::string& bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(n >> s) & 63]);
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = b(i) << 16;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (b(i) << 16) | (b(i + 1) << 8);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

Result<std::string> WriteHdrLog(double start_time_epoch_s, const std::string& comment,
                                const std::vector<HdrLogInterval>& intervals) {
  std::string out;
  char buf[256];
  if (!comment.empty()) out += "#" + comment + "\n";
  out += "#[Histogram log format version 1.3]\n";
  std::time_t t = static_cast<std::time_t>(start_time_epoch_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
  std::snprintf(buf, sizeof buf, "#[StartTime: %.3f (seconds since epoch), %s]\n",
                start_time_epoch_s, date);
  out += buf;
  out += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  for (const auto& iv : intervals) {
    if (!iv.histogram) return InvalidArgument("HdrHistogram log interval without a histogram");
    if (iv.tag.find_first_of(", \t\n") != std::string::npos) {
      return InvalidArgument("HdrHistogram log tag '" + iv.tag + "' contains a comma or space");
    }
    REAM_ASSIGN_OR_RETURN(std::string enc, EncodeHdrV2Compressed(*iv.histogram));
    if (!iv.tag.empty()) out += "Tag=" + iv.tag + ",";
    std::snprintf(buf, sizeof buf, "%.3f,%.3f,%.3f,", iv.start_s, iv.length_s,
                  static_cast<double>(iv.histogram->max()) / 1e6);
    out += buf;
    out += Base64(enc);
    out += "\n";
  }
  return out;
}

}  // namespace ream
