// A rate that changes over the measured window (LoadOptions::schedule, `ream load --schedule`,
// `[load] schedule`): steps, ramps, or a trace of rates read from a file, as one piecewise
// linear rate. The generator keeps the open loop under it by time-rescaling its arrival
// process: the gaps are drawn at the schedule's mean rate in "operational time" u, and a send at
// operational time u goes out at t = Λ⁻¹(u · mean), Λ(t) the integral of the rate from the
// window's start. A Poisson process stays Poisson at every rate that way (and a constant or a
// distribution of gaps keeps its shape, stretched by the rate), and every send keeps its
// absolute instant: a late send never shifts the next.
//
//   auto s = ParseSchedule("10000 for 20s, 10000 to 40000 over 10s", "--schedule", ReadFile);
//   s->RateAt(25);  // 25 000
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/status.h"

namespace ream {

struct RateSchedule {
  // (seconds from the measured window's start, QPS), times non-decreasing from 0; two knots at
  // one time are a step. Linear between consecutive knots.
  std::vector<std::pair<double, double>> knots;
  std::string text;  // as written: stored, and given to `ream load`

  int64_t duration_ns() const;  // the last knot's time
  double duration_s() const { return knots.empty() ? 0 : knots.back().first; }
  double RateAt(double t_s) const;  // right-continuous at a step; 0 outside [0, duration]
  // The integral of the rate over [from, to] / (to − from); the rate at `from` when they meet.
  double MeanRate(double from_s, double to_s) const;
  double Mean() const { return MeanRate(0, duration_s()); }
  // Λ(t): requests due by t seconds into the window (the rate's integral from 0).
  double Integral(double t_s) const;
  // Λ⁻¹(n): the instant (seconds) by which n requests are due; the earliest such instant (so a
  // stretch at 0 QPS is skipped). `cursor` (a knot index, start it at 0) makes a rising
  // sequence of calls cheap: the generator's thread asks for every send. Beyond the last
  // request: duration_s().
  double TimeOf(double n, size_t* cursor) const;

  // The request count's cumulative integral at each knot (cum[i] = Λ(knots[i].first)); filled by
  // ParseSchedule and Finish().
  std::vector<double> cum;
  // Fills `cum` from `knots`. ParseSchedule calls it; a test that builds knots by hand too.
  void Finish();
};

// Reads a schedule file's text (the caller's file access: only the platform reads files).
using ReadTextFile = std::function<Result<std::string>(const std::string& path)>;

// Parses a schedule:
//   steps   "10000 for 20s, 40000 for 20s, 10000 for 20s"
//   ramps   "10000 to 40000 over 10s" (mixable with steps in one comma-separated list)
//   a file  "file:PATH", lines of "SECONDS QPS" (# comments, blank lines skipped), linear between
//           them: a diurnal trace; "file:PATH peak 40000 length 60s" scales its rates so the
//           highest is 40 000 and its times so it lasts 60 s.
// A rate is a number >= 0 (QPS over all threads); stretches at 0 QPS are allowed, a
// schedule that is 0 throughout or lasts no time is not. InvalidArgument naming `field` and the
// part that is wrong.
Result<RateSchedule> ParseSchedule(std::string_view text, std::string_view field, const ReadTextFile& read_file);

}  // namespace ream
