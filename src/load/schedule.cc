// The rate schedule's parser and its integral and inverse (load/schedule.h).
#include "load/schedule.h"

#include <algorithm>
#include <cmath>

#include "platform/platform.h"
#include "platform/text.h"

namespace ream {
namespace {

constexpr const char* kForms =
    "a schedule is a comma-separated list of \"QPS for DURATION\" steps and \"QPS to QPS over DURATION\" "
    "ramps (\"10000 for 20s, 10000 to 40000 over 10s\"), or \"file:PATH\" of \"SECONDS QPS\" lines, "
    "optionally \"file:PATH peak QPS length DURATION\"";

bool ParseRate(std::string_view word, double* out) { return ParseFiniteDouble(word, out) && *out >= 0; }

// The requests due over [0, tau] of a segment starting at rate r0 with slope a.
double SegmentArea(double r0, double a, double tau) { return r0 * tau + 0.5 * a * tau * tau; }

}  // namespace

int64_t RateSchedule::duration_ns() const { return static_cast<int64_t>(std::llround(duration_s() * 1e9)); }

void RateSchedule::Finish() {
  cum.assign(knots.size(), 0);
  for (size_t i = 1; i < knots.size(); ++i) {
    const double dt = knots[i].first - knots[i - 1].first;
    cum[i] = cum[i - 1] + 0.5 * (knots[i].second + knots[i - 1].second) * dt;
  }
}

double RateSchedule::RateAt(double t) const {
  if (knots.empty() || t < 0 || t > duration_s()) return 0;
  // The last knot at or before t (the later of a step's two), linear to the next.
  auto it = std::upper_bound(knots.begin(), knots.end(), t,
                             [](double v, const std::pair<double, double>& k) { return v < k.first; });
  size_t i = static_cast<size_t>(it - knots.begin()) - 1;
  if (i + 1 >= knots.size()) return knots[i].second;
  const double dt = knots[i + 1].first - knots[i].first;
  if (dt <= 0) return knots[i + 1].second;
  return knots[i].second + (knots[i + 1].second - knots[i].second) * (t - knots[i].first) / dt;
}

double RateSchedule::Integral(double t) const {
  if (knots.empty() || t <= 0) return 0;
  if (t >= duration_s()) return cum.back();
  auto it = std::upper_bound(knots.begin(), knots.end(), t,
                             [](double v, const std::pair<double, double>& k) { return v < k.first; });
  size_t i = static_cast<size_t>(it - knots.begin()) - 1;
  const double dt = knots[i + 1].first - knots[i].first;
  const double a = dt > 0 ? (knots[i + 1].second - knots[i].second) / dt : 0;
  return cum[i] + SegmentArea(knots[i].second, a, t - knots[i].first);
}

double RateSchedule::MeanRate(double from, double to) const {
  if (to <= from) return RateAt(from);
  return (Integral(to) - Integral(from)) / (to - from);
}

double RateSchedule::TimeOf(double n, size_t* cursor) const {
  if (knots.size() < 2 || n >= cum.back()) return duration_s();
  if (n <= 0) n = 0;
  size_t i = std::min(*cursor, knots.size() - 2);
  if (cum[i] > n) i = 0;  // asked backwards: search from the start
  // The first segment whose area reaches n: cum[i] <= n <= cum[i + 1] (one at 0 QPS never does).
  while (i + 2 < knots.size() && cum[i + 1] < n) ++i;
  *cursor = i;
  const double t0 = knots[i].first, dt = knots[i + 1].first - t0;
  const double r0 = knots[i].second, d = n - cum[i];
  if (dt <= 0 || d <= 0) return t0;
  const double a = (knots[i + 1].second - r0) / dt;
  // a/2 τ² + r0 τ = d; written without the cancellation of (−r0 + √…) / a.
  const double root = std::sqrt(std::max(0.0, r0 * r0 + 2 * a * d));
  const double denom = r0 + root;
  const double tau = denom > 0 ? 2 * d / denom : dt;
  return t0 + std::clamp(tau, 0.0, dt);
}

Result<RateSchedule> ParseSchedule(std::string_view text, std::string_view field, const ReadTextFile& read_file) {
  const std::string where = std::string(field) + " = \"" + std::string(text) + "\": ";
  RateSchedule s;
  s.text = Trim(text);
  if (s.text.empty()) return InvalidArgument(where + "empty; " + kForms);
  if (s.text.rfind("file:", 0) == 0) {
    std::vector<std::string> words = Split(std::string_view(s.text).substr(5), ' ');
    if (words.empty()) return InvalidArgument(where + "file: names no file; " + kForms);
    const std::string path = words[0];
    double peak = 0;
    int64_t length_ns = 0;
    for (size_t i = 1; i < words.size(); i += 2) {
      if (i + 1 >= words.size()) return InvalidArgument(where + "'" + words[i] + "' takes a value; " + kForms);
      if (words[i] == "peak") {
        if (!ParseRate(words[i + 1], &peak) || peak <= 0) {
          return InvalidArgument(where + "peak '" + words[i + 1] + "' is not a rate above 0 QPS");
        }
      } else if (words[i] == "length") {
        auto l = ParseDurationNs(words[i + 1], std::string(field) + " length");
        if (!l.ok()) return InvalidArgument(where + l.status().message());
        if (*l <= 0) return InvalidArgument(where + "length '" + words[i + 1] + "' must be more than 0");
        length_ns = *l;
      } else {
        return InvalidArgument(where + "'" + words[i] + "' after the file is neither peak nor length; " + kForms);
      }
    }
    if (!read_file) return InvalidArgument(where + "cannot read " + path + " here");
    auto body = read_file(path);
    if (!body.ok()) return InvalidArgument(where + "cannot read " + path + ": " + body.status().message());
    int line_no = 0;
    for (const std::string& raw : Split(*body, '\n', false)) {
      ++line_no;
      std::string line = Trim(raw.substr(0, raw.find('#')));
      if (line.empty()) continue;
      std::vector<std::string> f = Split(line, ' ');
      if (f.size() == 1) f = Split(line, '\t');
      double t = 0, q = 0;
      const std::string at = path + " line " + std::to_string(line_no) + " '" + line + "': ";
      if (f.size() != 2 || !ParseFiniteDouble(f[0], &t) || !ParseRate(f[1], &q)) {
        return InvalidArgument(where + at + "is not a 'SECONDS QPS' pair (QPS >= 0)");
      }
      if (!s.knots.empty() && t < s.knots.back().first) {
        return InvalidArgument(where + at + "goes back in time (after " + Fmt("%g", s.knots.back().first) + " s)");
      }
      s.knots.emplace_back(t, q);
    }
    if (s.knots.size() < 2) return InvalidArgument(where + path + " holds fewer than two 'SECONDS QPS' lines");
    // Times from the trace's first line; scaled to the run when asked.
    const double t0 = s.knots.front().first, span = s.knots.back().first - t0;
    if (span <= 0) return InvalidArgument(where + path + " lasts no time (its first and last lines are at one time)");
    double top = 0;
    for (const auto& k : s.knots) top = std::max(top, k.second);
    const double time_scale = length_ns > 0 ? static_cast<double>(length_ns) / 1e9 / span : 1;
    const double rate_scale = peak > 0 && top > 0 ? peak / top : 1;
    for (auto& k : s.knots) k = {(k.first - t0) * time_scale, k.second * rate_scale};
  } else {
    double t = 0;
    for (const std::string& raw : Split(s.text, ',')) {
      const std::string item = Trim(raw);
      std::vector<std::string> w = Split(item, ' ');
      const std::string at = "'" + item + "' ";
      double from = 0, to = 0;
      std::string duration;
      if (w.size() == 3 && w[1] == "for") {
        if (!ParseRate(w[0], &from)) return InvalidArgument(where + at + "starts with no rate >= 0 QPS; " + kForms);
        to = from;
        duration = w[2];
      } else if (w.size() == 5 && w[1] == "to" && w[3] == "over") {
        if (!ParseRate(w[0], &from) || !ParseRate(w[2], &to)) {
          return InvalidArgument(where + at + "has a rate that is not a number >= 0 QPS; " + kForms);
        }
        duration = w[4];
      } else {
        return InvalidArgument(where + at + "is neither \"QPS for DURATION\" nor \"QPS to QPS over DURATION\"; " +
                               kForms);
      }
      auto d = ParseDurationNs(duration, std::string(field));
      if (!d.ok()) return InvalidArgument(where + at + d.status().message());
      if (*d <= 0) return InvalidArgument(where + at + "lasts no time");
      s.knots.emplace_back(t, from);
      t += static_cast<double>(*d) / 1e9;
      s.knots.emplace_back(t, to);
    }
  }
  s.Finish();
  if (s.cum.back() <= 0) return InvalidArgument(where + "the rate is 0 throughout: nothing would be sent");
  return s;
}

}  // namespace ream
