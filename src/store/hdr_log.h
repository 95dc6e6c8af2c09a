// Latency histograms in HdrHistogram's interchange formats, so HdrHistogram's own tools
// (HistogramLogProcessor, hdr-histogram-js, HdrHistogram_c's hdr_log_reader) read them:
// the V2 compressed encoding (cookie 0x1c849314, zlib-deflated ZigZag-LEB128 counts with
// zero runs), base64, in the text log format version 1.3.
//
// ream's buckets (64 per octave) are coarser than an HdrHistogram with 2 significant digits
// (128 per octave), so each bucket's count goes into one HdrHistogram sub-bucket, chosen so
// that HdrHistogram reports ream's bucket midpoint for it. Values stay in nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "load/histogram.h"
#include "platform/status.h"

namespace ream {

// HdrHistogram's V2 encoding of `h` (uncompressed: cookie 0x1c849313).
std::string EncodeHdrV2(const Histogram& h);
// The compressed form (cookie 0x1c849314), as one log line carries it before base64.
Result<std::string> EncodeHdrV2Compressed(const Histogram& h);
std::string Base64(const std::string& bytes);

struct HdrLogInterval {
  std::string tag;          // no commas or whitespace; "" for none
  double start_s = 0;       // seconds since the log's start time
  double length_s = 0;
  const Histogram* histogram = nullptr;
};

// A complete log: header comments (version 1.3, start time, what the values are), the
// legend, one line per interval. Interval_Max is in milliseconds (values / 1e6).
Result<std::string> WriteHdrLog(double start_time_epoch_s, const std::string& comment,
                                const std::vector<HdrLogInterval>& intervals);

}  // namespace ream
