// Reads an HdrHistogram log with HdrHistogram's own JavaScript implementation and prints one
// JSON line per interval: tag, count, percentiles, max, start/end (ms).
const hdr = require("hdr-histogram-js");
const fs = require("fs");
const reader = new hdr.HistogramLogReader(fs.readFileSync(process.argv[2], "utf8"));
let h;
while ((h = reader.nextIntervalHistogram()) !== null) {
  console.log(JSON.stringify({
    tag: h.tag, count: h.totalCount, p50: h.getValueAtPercentile(50),
    p95: h.getValueAtPercentile(95), p99: h.getValueAtPercentile(99), max: h.maxValue,
    start_ms: h.startTimeStampMsec, end_ms: h.endTimeStampMsec,
  }));
}
