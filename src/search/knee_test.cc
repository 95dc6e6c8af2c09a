#include "search/knee.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

namespace ream {
namespace {

// An M/M/1 server with mean service 100 µs plus a 50 µs base round trip: the p95 sojourn is
// base + ln(20) / (μ − λ); above saturation it is unbounded.
double Mm1P95Us(double load) {
  const double mu = 10000.0;  // per second
  if (load >= mu) return 1e9;
  return 50.0 + std::log(20.0) / (mu - load) * 1e6;
}

// The highest load on a fine grid whose p95 meets the target.
double FineGridKnee(double low, double high, double step, double target_us, int* points) {
  double best = 0;
  *points = 0;
  for (double q = low; q <= high + 1e-9; q += step) {
    ++*points;
    if (Mm1P95Us(q) <= target_us) best = q;
  }
  return best;
}

TEST(Knee, MatchesAFineGridWithAtMostHalfThePoints) {
  for (double target : {400.0, 500.0, 1000.0, 2000.0}) {
    KneeOptions o{.low = 500, .high = 12000, .precision = 0.02, .max_points = 20};
    int measured = 0;
    auto r = FindKnee(o, target, [&](double q, int) -> Result<KneeProbe> {
      ++measured;
      double p95 = Mm1P95Us(q);
      return KneeProbe{q, p95 <= target, p95};
    });
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->converged);
    ASSERT_TRUE(r->last_pass.has_value());
    // A grid fine enough for the same precision at this knee: step = precision × knee.
    double exact = 10000.0 - std::log(20.0) / ((target - 50.0) * 1e-6);
    int grid_points = 0;
    double grid = FineGridKnee(500, 12000, 0.02 * exact, target, &grid_points);
    EXPECT_NEAR(*r->last_pass, grid, 0.02 * grid + 0.02 * exact) << "target " << target;
    EXPECT_LE(std::abs(*r->knee_load - exact), 0.02 * exact) << "target " << target;
    EXPECT_LE(measured * 2, grid_points) << "target " << target;
    EXPECT_EQ(measured, static_cast<int>(r->probes.size()));
  }
}

TEST(Knee, ReportsAKneeOutsideTheRange) {
  auto below = FindKnee({.low = 9990, .high = 12000}, 300, [](double q, int) -> Result<KneeProbe> {
    return KneeProbe{q, Mm1P95Us(q) <= 300, Mm1P95Us(q)};
  });
  ASSERT_TRUE(below.ok());
  EXPECT_TRUE(below->below_range);
  EXPECT_FALSE(below->last_pass.has_value());
  EXPECT_EQ(below->probes.size(), 1u);

  auto above = FindKnee({.low = 100, .high = 1000}, 1000, [](double q, int) -> Result<KneeProbe> {
    return KneeProbe{q, Mm1P95Us(q) <= 1000, Mm1P95Us(q)};
  });
  ASSERT_TRUE(above.ok());
  EXPECT_TRUE(above->above_range);
  EXPECT_EQ(above->knee_load.value_or(0), 1000);
}

TEST(Knee, StopsAtMaxPointsAndPropagatesErrors) {
  int n = 0;
  auto r = FindKnee({.low = 1, .high = 1e6, .precision = 0.001, .max_points = 5}, 0,
                    [&](double q, int) -> Result<KneeProbe> {
                      ++n;
                      return KneeProbe{q, q < 777, 0};
                    });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(n, 5);
  EXPECT_FALSE(r->converged);
  auto e = FindKnee({.low = 1, .high = 10}, 0, [](double, int) -> Result<KneeProbe> {
    return Cancelled("interrupted");
  });
  EXPECT_EQ(e.status().code(), StatusCode::kCancelled);
}

// The M/M/1 curve above as a measurement that meets a 1 ms target, valid unless `invalid`
// says the generator could not keep its schedule at (load, attempt). An invalid measurement
// looks like a miss (late requests inflate the tail), as on the VM that once reported the
// knee "below range" after one invalid point at 1000 QPS.
KneeMeasure Mm1Measure(std::function<bool(double, int)> invalid, int* calls = nullptr) {
  return [invalid, calls](double q, int attempt) -> Result<KneeProbe> {
    if (calls) ++*calls;
    if (invalid(q, attempt)) return KneeProbe{q, false, 5000, false};
    double p95 = Mm1P95Us(q);
    return KneeProbe{q, p95 <= 1000, p95};
  };
}

const KneeOptions kMm1Search{.low = 1000, .high = 12000, .precision = 0.02, .max_points = 20};

std::vector<double> Loads(const KneeResult& r) {
  std::vector<double> v;
  for (const auto& p : r.probes) v.push_back(p.load);
  return v;
}

TEST(Knee, AnInvalidProbeIsMeasuredAgainAndTheValidOneDecides) {
  auto clean = FindKnee(kMm1Search, 1000, Mm1Measure([](double, int) { return false; }));
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  ASSERT_TRUE(clean->converged);
  ASSERT_GT(clean->probes.size(), 3u);
  const double mid = clean->probes[2].load;  // the first bisection point

  // `low` invalid once, the first bisection point invalid twice: both valid afterwards.
  auto noisy = FindKnee(kMm1Search, 1000, Mm1Measure([&](double q, int attempt) {
                          return (q == 1000 && attempt < 1) || (q == mid && attempt < 2);
                        }));
  ASSERT_TRUE(noisy.ok()) << noisy.status().ToString();
  EXPECT_FALSE(noisy->below_range);
  EXPECT_EQ(noisy->last_pass, clean->last_pass);
  EXPECT_EQ(noisy->first_fail, clean->first_fail);
  EXPECT_EQ(noisy->knee_load, clean->knee_load);
  EXPECT_EQ(noisy->converged, clean->converged);
  EXPECT_TRUE(noisy->invalid_levels.empty());
  // Every measurement is kept, in order, with its attempt number.
  ASSERT_EQ(noisy->probes.size(), clean->probes.size() + 3);
  EXPECT_EQ(noisy->probes[0].load, 1000);
  EXPECT_FALSE(noisy->probes[0].valid);
  EXPECT_EQ(noisy->probes[1].load, 1000);
  EXPECT_EQ(noisy->probes[1].attempt, 1);
  EXPECT_TRUE(noisy->probes[1].valid && noisy->probes[1].meets_qos);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(noisy->probes[3 + a].load, mid);
    EXPECT_EQ(noisy->probes[3 + a].attempt, a);
    EXPECT_EQ(noisy->probes[3 + a].valid, a == 2);
  }
}

TEST(Knee, ALevelInvalidOnEveryAttemptIsAQosMissAndIsReported) {
  // `low` never measured validly: no load in range is claimed to meet QoS, and the result
  // says why instead of pretending QoS was missed.
  int calls = 0;
  auto low = FindKnee(kMm1Search, 1000, Mm1Measure([](double, int) { return true; }, &calls));
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(low->below_range);
  EXPECT_FALSE(low->last_pass.has_value());
  EXPECT_FALSE(low->knee_load.has_value());
  ASSERT_EQ(low->invalid_levels.size(), 1u);
  EXPECT_EQ(low->invalid_levels[0].load, 1000);
  EXPECT_EQ(low->invalid_levels[0].attempts, 3);

  // A level in the bracket that is in truth under the knee (~6850 QPS) but never valid:
  // it counts as a miss, so the search stays below it (conservative), and it is reported.
  const double never = 6500;  // the first bisection point of [1000, 12000]
  auto mid = FindKnee(kMm1Search, 1000, Mm1Measure([&](double q, int) { return q == never; }));
  ASSERT_TRUE(mid.ok());
  ASSERT_EQ(mid->invalid_levels.size(), 1u);
  EXPECT_EQ(mid->invalid_levels[0].load, never);
  EXPECT_EQ(mid->invalid_levels[0].attempts, 3);
  EXPECT_EQ(mid->first_fail.value_or(0), never);
  EXPECT_LT(mid->last_pass.value_or(1e9), never);
  // Nothing is interpolated from an invalid measurement: the knee is the last valid pass.
  EXPECT_EQ(mid->knee_load, mid->last_pass);
  int at_never = 0;
  for (const auto& p : mid->probes) at_never += p.load == never;
  EXPECT_EQ(at_never, 3);
}

TEST(Knee, ReMeasurementsCountAgainstMaxPoints) {
  // Every load invalid once: each level costs two points, and the search stops at max_points.
  KneeOptions o = kMm1Search;
  o.max_points = 7;
  int calls = 0;
  auto r = FindKnee(o, 1000, Mm1Measure([](double, int attempt) { return attempt == 0; }, &calls));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(r->probes.size(), 7u);
  EXPECT_FALSE(r->converged);
  // low, high, one bisection point decided; the fourth level got only its invalid attempt
  // before the points ran out, and counts as a miss, never as capacity.
  std::vector<double> expect = {1000, 1000, 12000, 12000, 6500, 6500};
  auto loads = Loads(*r);
  EXPECT_EQ(std::vector<double>(loads.begin(), loads.begin() + 6), expect);
  ASSERT_EQ(r->invalid_levels.size(), 1u);
  EXPECT_EQ(r->invalid_levels[0].load, loads[6]);
  EXPECT_EQ(r->invalid_levels[0].attempts, 1);
  EXPECT_EQ(r->first_fail.value_or(0), loads[6]);

  // `low` needs all three attempts of max_points = 3: it passes, `high` is never measured.
  o.max_points = 3;
  calls = 0;
  auto spent = FindKnee(o, 1000, Mm1Measure([](double, int attempt) { return attempt < 2; }, &calls));
  ASSERT_TRUE(spent.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(spent->last_pass.value_or(0), 1000);
  EXPECT_EQ(spent->knee_load.value_or(0), 1000);
  EXPECT_FALSE(spent->first_fail.has_value());
  EXPECT_FALSE(spent->above_range || spent->below_range || spent->converged);
}

TEST(Knee, RemeasureZeroTreatsAnInvalidProbeAsAMissAsBefore) {
  KneeOptions o = kMm1Search;
  o.remeasure_invalid = 0;
  // The incident: the very first point invalid, the search gives up "below range".
  auto first = FindKnee(o, 1000, Mm1Measure([](double q, int) { return q == 1000; }));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->below_range);
  EXPECT_EQ(first->probes.size(), 1u);
  ASSERT_EQ(first->invalid_levels.size(), 1u);
  EXPECT_EQ(first->invalid_levels[0].attempts, 1);

  // The same measurements, the invalid ones presented as valid misses (what the search used
  // to see): the same loads in the same order and the same bracket.
  auto invalid = [](double q, int) { return q == 6500 || q == 9250; };
  auto now = FindKnee(o, 0, Mm1Measure(invalid));
  auto before = FindKnee(o, 0, [&](double q, int attempt) -> Result<KneeProbe> {
    if (invalid(q, attempt)) return KneeProbe{q, false, 5000, true};
    return KneeProbe{q, Mm1P95Us(q) <= 1000, Mm1P95Us(q)};
  });
  ASSERT_TRUE(now.ok() && before.ok());
  EXPECT_EQ(Loads(*now), Loads(*before));
  EXPECT_EQ(now->last_pass, before->last_pass);
  EXPECT_EQ(now->first_fail, before->first_fail);
  EXPECT_EQ(now->first_fail.value_or(0), 6500);
  EXPECT_EQ(now->invalid_levels.size(), 1u);
  EXPECT_TRUE(before->invalid_levels.empty());
}

// The runner's store as a search sees it on --resume: answers a (load, attempt) it stored,
// measures (with `truth`) and stores the rest, and is "killed" after `budget` measurements.
struct StoredMeasurements {
  KneeMeasure truth;
  std::map<std::pair<double, int>, KneeProbe> stored;
  int measured = 0;
  KneeMeasure WithBudget(int budget) {
    return [this, budget](double q, int attempt) -> Result<KneeProbe> {
      if (auto it = stored.find({q, attempt}); it != stored.end()) return it->second;
      if (measured == budget) return Cancelled("interrupted");
      ++measured;
      auto p = truth(q, attempt);
      if (p.ok()) {
        EXPECT_TRUE(stored.emplace(std::make_pair(q, attempt), *p).second);
      }
      return p;
    };
  }
};

// The runner resumes an interrupted search by answering from the points it stored, keyed by
// (load, attempt): the search must ask for the same pairs in the same order, so every stored
// attempt is reused (invalid ones and the valid re-measurement alike) and only the rest are
// measured, each once.
TEST(Knee, ResumingFromStoredAttemptsMeasuresOnlyTheRest) {
  KneeMeasure truth = Mm1Measure([](double q, int attempt) {
    return (q == 1000 && attempt == 0) || (q == 6500 && attempt < 2);
  });
  auto whole = FindKnee(kMm1Search, 1000, truth);
  ASSERT_TRUE(whole.ok());
  StoredMeasurements store{truth};
  auto& stored = store.stored;
  int& measured = store.measured;
  auto from_store = [&](int budget) { return store.WithBudget(budget); };
  // Killed after 1000 (invalid, then valid), 12000 and two invalid attempts at 6500.
  auto first = FindKnee(kMm1Search, 1000, from_store(5));
  EXPECT_EQ(first.status().code(), StatusCode::kCancelled);
  measured = 0;
  auto resumed = FindKnee(kMm1Search, 1000, from_store(1000));
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(measured, static_cast<int>(whole->probes.size()) - 5);
  EXPECT_EQ(stored.size(), whole->probes.size());
  EXPECT_EQ(Loads(*resumed), Loads(*whole));
  EXPECT_EQ(resumed->probes[5].load, 6500);
  EXPECT_EQ(resumed->probes[5].attempt, 2);
  EXPECT_EQ(resumed->last_pass, whole->last_pass);
  EXPECT_EQ(resumed->first_fail, whole->first_fail);
  EXPECT_EQ(resumed->knee_load, whole->knee_load);
}

TEST(Knee, RefusesANegativeRemeasureCount) {
  KneeOptions o = kMm1Search;
  o.remeasure_invalid = -1;
  auto r = FindKnee(o, 0, Mm1Measure([](double, int) { return false; }));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

KneeOptions Confirming() {
  KneeOptions o = kMm1Search;
  o.confirm = true;
  return o;
}

TEST(KneeConfirm, ACleanSearchSpendsOneMorePointPerEnd) {
  auto clean = FindKnee(kMm1Search, 1000, Mm1Measure([](double, int) { return false; }));
  auto confirmed = FindKnee(Confirming(), 1000, Mm1Measure([](double, int) { return false; }));
  ASSERT_TRUE(clean.ok() && confirmed.ok());
  EXPECT_FALSE(clean->confirmed);
  EXPECT_TRUE(confirmed->confirmed);
  EXPECT_EQ(confirmed->reopened, 0);
  EXPECT_EQ(confirmed->probes.size(), clean->probes.size() + 2);
  EXPECT_EQ(confirmed->last_pass, clean->last_pass);
  EXPECT_EQ(confirmed->first_fail, clean->first_fail);
  EXPECT_EQ(confirmed->knee_load, clean->knee_load);
  // The two extra points are the ends again, as their second attempts.
  const auto& extra1 = confirmed->probes[confirmed->probes.size() - 2];
  const auto& extra2 = confirmed->probes.back();
  EXPECT_EQ(extra1.load, *clean->last_pass);
  EXPECT_EQ(extra1.attempt, 1);
  EXPECT_EQ(extra2.load, *clean->first_fail);
  EXPECT_EQ(extra2.attempt, 1);
}

// The M/M/1 curve with one disturbed window: 6500 QPS (under the ~6847 QPS knee for 1 ms)
// is valid but misses QoS the first time it is measured.
Result<KneeProbe> DisturbedAt6500(double q, int attempt) {
  if (q == 6500 && attempt == 0) return KneeProbe{q, false, 1400};
  double p95 = Mm1P95Us(q);
  return KneeProbe{q, p95 <= 1000, p95};
}

// One disturbed window below the knee (a host stall inside a busy period): the level's first
// measurement is valid but misses QoS. A plain bisection never looks above its first fail
// again; the confirmation measures it again, a third measurement breaks the tie, and the
// search re-opens above it.
TEST(KneeConfirm, ADisturbedMissBelowTheKneeIsOutvotedAndTheSearchReopens) {
  const double exact = 10000.0 - std::log(20.0) / (950e-6);  // ≈ 6847 QPS
  const KneeMeasure disturbed = DisturbedAt6500;
  auto plain = FindKnee(kMm1Search, 1000, disturbed);
  ASSERT_TRUE(plain.ok());
  EXPECT_LE(plain->first_fail.value_or(0), 6500);  // stuck below the disturbed level

  auto r = FindKnee(Confirming(), 1000, disturbed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reopened, 1);
  EXPECT_TRUE(r->confirmed);
  EXPECT_TRUE(r->converged);
  EXPECT_GE(r->last_pass.value_or(0), 6500);
  EXPECT_LE(std::abs(r->knee_load.value_or(0) - exact), 0.02 * exact);
  int at_6500 = 0;
  for (const auto& p : r->probes) at_6500 += p.load == 6500;
  EXPECT_EQ(at_6500, 3);  // the miss, the disagreeing pass, the deciding pass
  EXPECT_LE(static_cast<int>(r->probes.size()), kMm1Search.max_points);
}

// Seen on the VM: the passing end's confirmations both missed (it turned over), and the
// failing end could not be measured validly again. The search must still bisect the
// re-opened bracket, not stop with it wide.
TEST(KneeConfirm, AnEndThatCannotBeMeasuredAgainDoesNotStopAReopenedSearch) {
  auto clean = FindKnee(kMm1Search, 1000, Mm1Measure([](double, int) { return false; }));
  ASSERT_TRUE(clean.ok());
  const double pass = *clean->last_pass, fail = *clean->first_fail;
  auto noisy = [&](double q, int attempt) -> Result<KneeProbe> {
    if (q == pass && attempt > 0) return KneeProbe{q, false, 1400};           // valid misses
    if (q == fail && attempt > 0) return KneeProbe{q, false, 5000, false};    // invalid
    double p95 = Mm1P95Us(q);
    return KneeProbe{q, p95 <= 1000, p95};
  };
  KneeOptions o = Confirming();
  o.max_points = 30;
  auto r = FindKnee(o, 1000, noisy);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reopened, 1);
  EXPECT_EQ(r->first_fail.value_or(0), pass);  // the turned-over end is the new first fail
  EXPECT_LT(r->last_pass.value_or(1e9), pass);
  EXPECT_TRUE(r->converged);
  EXPECT_TRUE(r->confirmed);  // both new ends: a majority of two or more valid measurements
}

TEST(KneeConfirm, RunningOutOfPointsLeavesTheBracketUnconfirmed) {
  KneeOptions o = Confirming();
  auto clean = FindKnee(kMm1Search, 1000, Mm1Measure([](double, int) { return false; }));
  ASSERT_TRUE(clean.ok());
  o.max_points = static_cast<int>(clean->probes.size()) + 1;  // one end only
  auto r = FindKnee(o, 1000, Mm1Measure([](double, int) { return false; }));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->confirmed);
  EXPECT_EQ(r->probes.size(), clean->probes.size() + 1);
  EXPECT_EQ(r->last_pass, clean->last_pass);
}

TEST(KneeConfirm, ResumingAsksForTheSameAttemptsInTheSameOrder) {
  auto whole = FindKnee(Confirming(), 1000, DisturbedAt6500);
  ASSERT_TRUE(whole.ok());
  StoredMeasurements store{DisturbedAt6500};
  int& measured = store.measured;
  auto from_store = [&](int budget) { return store.WithBudget(budget); };
  // Killed in the middle of the tie-break at 6500.
  const int budget = 5;
  auto first = FindKnee(Confirming(), 1000, from_store(budget));
  EXPECT_EQ(first.status().code(), StatusCode::kCancelled);
  measured = 0;
  auto resumed = FindKnee(Confirming(), 1000, from_store(1000));
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(measured, static_cast<int>(whole->probes.size()) - budget);
  EXPECT_EQ(Loads(*resumed), Loads(*whole));
  EXPECT_EQ(resumed->knee_load, whole->knee_load);
  EXPECT_EQ(resumed->confirmed, whole->confirmed);
}

}  // namespace
}  // namespace ream
