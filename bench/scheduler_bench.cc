// The generator's per-request scheduling work outside the syscalls: drawing the next gap,
// drawing a key (uniform and Zipfian), drawing sizes from a distribution (ETC's), encoding a
// ream request and parsing its response, and the clock reads the schedule is kept with.
#include <random>

#include <benchmark/benchmark.h>

#include "load/arrival.h"
#include "load/distribution.h"
#include "load/key_chooser.h"
#include "protocol/keyspace.h"
#include "platform/clock.h"
#include "protocol/ream_codec.h"
#include "protocol/ream_frame.h"

namespace {

void BM_ExponentialGap(benchmark::State& state) {
  ream::ArrivalProcess a(ream::ArrivalSpec{}, 100000, 1);
  for (auto _ : state) benchmark::DoNotOptimize(a.NextGapNs());
}
BENCHMARK(BM_ExponentialGap);

void BM_ZipfKey(benchmark::State& state) {
  ream::KeyChooser k(*ream::ParseKeyDist("zipf:0.99"), static_cast<uint64_t>(state.range(0)));
  std::mt19937_64 rng(1);
  char key[ream::kKeyBytes];
  for (auto _ : state) {
    ream::FormatKey(k.Next(rng), key);
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_ZipfKey)->Arg(100000)->Arg(10000000);

void BM_UniformKey(benchmark::State& state) {
  ream::KeyChooser k(*ream::ParseKeyDist("uniform"), 100000);
  std::mt19937_64 rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(k.Next(rng));
}
BENCHMARK(BM_UniformKey);

// ETC's gaps (fb_ia): a generalized Pareto draw, scaled to the rate.
void BM_FacebookGap(benchmark::State& state) {
  ream::ArrivalProcess a(*ream::ParseArrival("fb_ia"), 100000, 1);
  for (auto _ : state) benchmark::DoNotOptimize(a.NextGapNs());
}
BENCHMARK(BM_FacebookGap);

// A key of ETC's size (fb_key, drawn from a hash of its index) formatted.
void BM_FacebookSizedKey(benchmark::State& state) {
  ream::SizeSampler sizes(*ream::ParseDistribution("fb_key", "bench"), 8, 250);
  char key[256];
  uint64_t i = 0;
  for (auto _ : state) {
    const uint64_t len = sizes.Of(++i);
    ream::FormatSizedKey(i, len, key);
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_FacebookSizedKey);

// A value size of ETC's (fb_value: the measured head, else the Pareto tail).
void BM_FacebookValueSize(benchmark::State& state) {
  ream::SizeSampler sizes(*ream::ParseDistribution("fb_value", "bench"), 0, 1'000'000);
  std::mt19937_64 rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(sizes.Draw(rng));
}
BENCHMARK(BM_FacebookValueSize);

void BM_EncodeRequestParseResponse(benchmark::State& state) {
  auto codec = ream::MakeReamCodec();
  std::string out, resp;
  ream::frame::AppendResponse({.id = 1, .service_ns = 100, .queue_ns = 5}, &resp);
  ream::Response r;
  for (auto _ : state) {
    out.clear();
    (void)codec->EncodeRequest({.id = 1, .op = ream::Op::kGet, .key = "key0000000000042"}, &out);
    benchmark::DoNotOptimize(codec->ParseResponse(resp, &r));
  }
}
BENCHMARK(BM_EncodeRequestParseResponse);

void BM_MonotonicClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ream::MonotonicNowNs());
}
BENCHMARK(BM_MonotonicClock);

}  // namespace

BENCHMARK_MAIN();
