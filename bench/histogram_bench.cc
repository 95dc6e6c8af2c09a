// Hot paths of the generator's per-request recording: Histogram::Record, merging threads'
// histograms after a run, and reading percentiles.
#include <random>

#include <benchmark/benchmark.h>

#include "load/histogram.h"

namespace {

void BM_HistogramRecord(benchmark::State& state) {
  ream::Histogram h;
  std::mt19937_64 rng(1);
  std::vector<int64_t> values(4096);
  for (auto& v : values) v = static_cast<int64_t>(std::exponential_distribution<double>(1e-5)(rng));
  size_t i = 0;
  for (auto _ : state) {
    h.Record(values[i++ & 4095]);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramMerge(benchmark::State& state) {
  ream::Histogram a, b;
  for (int i = 1; i < 100000; ++i) b.Record(i * 37);
  for (auto _ : state) {
    a.Merge(b);
  }
  benchmark::DoNotOptimize(a.count());
}
BENCHMARK(BM_HistogramMerge);

void BM_HistogramP99(benchmark::State& state) {
  ream::Histogram h;
  for (int i = 1; i < 1000000; ++i) h.Record(i * 13);
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.ValueAtQuantile(0.99));
  }
}
BENCHMARK(BM_HistogramP99);

}  // namespace

BENCHMARK_MAIN();
