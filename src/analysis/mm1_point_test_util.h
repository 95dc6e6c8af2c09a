// A measured point as an M/M/1 server would give it, for the analysis tests that need a subject
// whose figures are known exactly (colocation_test.cc, interference_test.cc; header only).
#pragma once

#include "analysis/data.h"
#include "analysis/queueing.h"

namespace ream::analysis {

// A valid, timely point of one server of mean service `s` seconds (and a 50 us delay center)
// at `lambda` requests a second: its latency mean and percentiles (p99.9 = p99) from the
// M/M/1 model, the service time reported, the CPU busy lambda * s.
inline PointData Mm1Point(double lambda, double s) {
  PointData p;
  p.target_load = p.achieved_qps = p.throughput_qps = lambda;
  p.valid = true;
  p.timely_ratio = 1;
  QueueModel m{1, s, 50e-6};
  p.latency_mean_us = *MeanResponse(m, lambda) * 1e6;
  p.p95_us = *ResponsePercentile(m, lambda, 0.95) * 1e6;
  p.p50_us = *ResponsePercentile(m, lambda, 0.50) * 1e6;
  p.p99_us = p.p999_us = *ResponsePercentile(m, lambda, 0.99) * 1e6;
  p.service_mean_us = s * 1e6;
  p.cpu_util = Metric::Of(lambda * s);
  return p;
}

}  // namespace ream::analysis
