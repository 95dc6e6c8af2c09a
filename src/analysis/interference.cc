// The sensitivity profile (interference.h): each pressure source's curve, from the co-location
// comparison of its single-source sets with the subject alone.
#include "analysis/interference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/format.h"
#include "analysis/merge.h"

namespace ream::analysis {
namespace {

struct SourceSet {
  std::string source;
  double intensity = 0;
  double load = 0;  // [interference] load; 0: chosen here
};

// The sets made of one pressure co-runner, from the runs' stored co-runners.
std::map<std::string, SourceSet> SourceSets(const ExperimentData& d) {
  std::map<std::string, SourceSet> out;
  for (const auto& r : d.runs) {
    const std::vector<CorunnerRecord>& cs = r.corunners.corunners;
    if (r.corunner_set.empty() || cs.size() != 1 || cs[0].pressure.empty()) continue;
    SourceSet s;
    s.source = cs[0].pressure;
    s.intensity = cs[0].intensity;
    s.load = cs[0].interference_load.value_or(0);
    out[r.corunner_set] = s;
  }
  return out;
}

std::string Percent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g %%", v);
  return b;
}

const ColocationLevel* LevelAt(const ColocationGroup& g, double load) {
  for (const auto& l : g.levels) {
    if (SameLoad(l.load, load)) return &l;
  }
  return nullptr;
}

// The fixed load: the spec's, else the highest level at or below half the QPS under QoS alone
// at which the subject alone meets QoS (a load with room to lose), else the lowest that meets.
void ChooseLoad(const ColocationGroup& g, double given, InterferenceProfile* p) {
  if (given > 0) {
    p->load = given;
    p->load_how = "[interference] load";
    return;
  }
  std::vector<double> meets;
  for (const auto& l : g.levels) {
    if (l.alone_meets.value_or(false)) meets.push_back(l.load);
  }
  std::sort(meets.begin(), meets.end());
  if (meets.empty()) {
    p->load_how = "no level meets QoS alone, so no load to read the curve at";
    return;
  }
  if (g.alone_capacity) {
    const double half = *g.alone_capacity / 2;
    std::optional<double> best;
    for (double l : meets) {
      if (l <= half * (1 + 1e-9)) best = l;
    }
    if (best) {
      p->load = *best;
      p->load_how = "the highest level at or below half the QPS under QoS alone (" + Fmt(*g.alone_capacity, 6) +
                    ") that meets QoS alone";
      return;
    }
  }
  p->load = meets.front();
  p->load_how = "the lowest level that meets QoS alone";
}

void Tolerated(InterferenceProfile* p, std::optional<double> lqos) {
  if (!p->load) {
    p->tolerated_note = p->load_how;
    return;
  }
  const auto& pts = p->points;
  if (pts.empty() || !pts[0].meets) {
    p->tolerated_note = "the subject alone has no valid point at " + Fmt(*p->load, 6) +
                        (pts.empty() || pts[0].note.empty() ? std::string() : " (" + pts[0].note + ")");
    return;
  }
  if (!*pts[0].meets) {
    p->tolerated_note = "the subject alone does not meet QoS at " + Fmt(*p->load, 6);
    return;
  }
  for (size_t k = 1; k < pts.size(); ++k) {
    const InterferencePoint& prev = pts[k - 1];
    const InterferencePoint& cur = pts[k];
    if (cur.meets.value_or(false)) continue;
    if (!cur.meets) {
      p->tolerated = prev.intensity;
      p->at_least = true;
      p->tolerated_note = "at least " + Percent(prev.intensity) + ": at " + Percent(cur.intensity) + " " +
                          (cur.note.empty() ? std::string("the point could not be judged") : cur.note);
      return;
    }
    // Missed at cur: interpolate on the tail where both tails are known.
    if (lqos && prev.tail_us && cur.tail_us && *cur.tail_us > *prev.tail_us) {
      const double f = std::clamp((*lqos - *prev.tail_us) / (*cur.tail_us - *prev.tail_us), 0.0, 1.0);
      p->tolerated = prev.intensity + f * (cur.intensity - prev.intensity);
      p->tolerated_note = "meets QoS at " + Percent(prev.intensity) + ", misses at " + Percent(cur.intensity) +
                          "; interpolated on the tail (" + Fmt(*prev.tail_us, 6) + " → " +
                          Fmt(*cur.tail_us, 6) + " µs against LQoS " + Fmt(*lqos, 6) + " µs)";
    } else {
      p->tolerated = prev.intensity;
      p->tolerated_note = "meets QoS at " + Percent(prev.intensity) + ", misses at " + Percent(cur.intensity) +
                          " (no valid tail there to interpolate on)";
    }
    return;
  }
  p->tolerated = pts.back().intensity;
  p->tolerates_all = true;
  p->tolerated_note = "meets QoS at every intensity up to " + Percent(pts.back().intensity);
}

void Judge(InterferenceProfile* p, const ColocationGroup* at_max) {
  const InterferencePoint& top = p->points.back();
  const Bounded ratio = at_max ? at_max->capacity_ratio : Bounded::Withheld("no set at the top intensity");
  // A drop is a drop only when the share is at most its value (exact or an upper bound).
  const bool dropped = ratio.value && ratio.bound != Bound::kLower && *ratio.value < 1 - kInterferenceCapacityDrop &&
                       at_max->verdict.rfind("lower beyond both intervals", 0) == 0;
  // Both capacities beyond the sweep: the set moved none within it.
  const bool both_beyond = at_max && at_max->alone_lower_bound && at_max->together_lower_bound;
  const std::string drop_text =
      ratio.value ? "QPS under QoS at " + Percent(top.intensity) + " is " + BoundPrefix(ratio.bound) +
                        Fmt(*ratio.value * 100) + " % of alone (" + at_max->verdict + ")"
      : both_beyond ? "QPS under QoS at " + Percent(top.intensity) + " and alone both beyond the sweep (≥ " +
                          Fmt(*at_max->together_capacity, 6) + ")"
                    : "QPS under QoS at " + Percent(top.intensity) + " not compared (" + ratio.withheld + ")";
  if (p->tolerated && !p->tolerates_all && !p->at_least) {
    p->verdict = "sensitive";
    p->evidence = "tolerates " + Percent(*p->tolerated) + " at " + Fmt(*p->load, 6) + " (" + p->tolerated_note +
                  "); " + drop_text;
  } else if (dropped) {
    p->verdict = "sensitive";
    p->evidence = drop_text + ", a drop of more than " + Fmt(kInterferenceCapacityDrop * 100) + " %";
  } else if (p->tolerates_all && at_max && (ratio.value || both_beyond)) {
    p->verdict = "insensitive";
    p->evidence = "meets QoS at " + Fmt(*p->load, 6) + " over the whole dial; " + drop_text;
  } else {
    p->verdict = "undecided";
    p->evidence = (p->tolerated_note.empty() ? std::string() : p->tolerated_note + "; ") + drop_text;
  }
}

}  // namespace

std::vector<InterferenceProfile> AnalyzeInterference(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                                     std::optional<double> lqos) {
  const std::map<std::string, SourceSet> sets = SourceSets(d);
  std::vector<InterferenceProfile> out;
  if (sets.empty()) return out;
  // Sources in the order the runs first name them; group keys in the order of `groups`.
  std::vector<std::string> sources, keys;
  for (const auto& r : d.runs) {
    auto it = sets.find(r.corunner_set);
    if (it != sets.end() && std::find(sources.begin(), sources.end(), it->second.source) == sources.end()) {
      sources.push_back(it->second.source);
    }
  }
  for (const auto& g : groups) {
    if (std::find(keys.begin(), keys.end(), g.group_key) == keys.end()) keys.push_back(g.group_key);
  }
  for (const std::string& key : keys) {
    for (const std::string& source : sources) {
      std::vector<std::pair<double, const ColocationGroup*>> curve;
      double given_load = 0;
      for (const auto& g : groups) {
        auto it = sets.find(g.set);
        if (g.group_key != key || it == sets.end() || it->second.source != source) continue;
        curve.emplace_back(it->second.intensity, &g);
        given_load = it->second.load;
      }
      if (curve.empty()) continue;
      std::sort(curve.begin(), curve.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      InterferenceProfile p;
      p.source = source;
      p.group_key = key;
      const ColocationGroup& first = *curve.front().second;
      ChooseLoad(first, given_load, &p);
      // 0 %: the subject alone, as every set's comparison holds it.
      InterferencePoint zero;
      zero.capacity = first.alone_capacity;
      zero.low = first.alone_low;
      zero.high = first.alone_high;
      zero.lower_bound = first.alone_lower_bound;
      zero.upper_bound = first.alone_upper_bound;
      if (p.load) {
        if (const ColocationLevel* l = LevelAt(first, *p.load)) {
          zero.tail_us = l->alone_tail_us;
          zero.meets = l->alone_meets;
          if (!l->alone_valid) zero.note = "invalid alone at " + Fmt(*p.load, 6);
        } else {
          zero.note = "no level at " + Fmt(*p.load, 6);
        }
      }
      p.points.push_back(zero);
      for (const auto& [intensity, g] : curve) {
        InterferencePoint q;
        q.intensity = intensity;
        q.set = g->set;
        q.capacity = g->together_capacity;
        q.low = g->together_low;
        q.high = g->together_high;
        q.lower_bound = g->together_lower_bound;
        q.upper_bound = g->together_upper_bound;
        if (p.load) {
          if (const ColocationLevel* l = LevelAt(*g, *p.load)) {
            q.tail_us = l->together_tail_us;
            if (l->together_meets) {
              q.meets = l->together_meets;
            } else if (l->together_certain_miss) {
              q.meets = false;
              q.note = "invalid, but its tail from the send already exceeds LQoS";
            } else if (!l->together_valid) {
              q.note = "invalid" + (l->together_reasons.empty() ? std::string() : ": " + l->together_reasons.front());
            }
          } else {
            q.note = "no level at " + Fmt(*p.load, 6);
          }
        }
        p.points.push_back(q);
      }
      const ColocationGroup* at_max = curve.back().second;
      p.capacity_ratio_at_max = at_max->capacity_ratio;
      Tolerated(&p, lqos);
      Judge(&p, at_max);
      out.push_back(std::move(p));
    }
  }
  return out;
}

namespace {

// The reporter's tail beside `g` at `load`: its value when the point is valid; a certain miss
// (invalid, its tail from the send above LQoS) gives no value but says so.
struct ReporterTail {
  std::optional<double> tail_us;
  bool certain_miss = false;
  std::string why;  // when neither
};

ReporterTail TailBeside(const ColocationGroup& g, double load) {
  ReporterTail t;
  const ColocationLevel* l = LevelAt(g, load);
  if (!l) {
    t.why = "no level at " + Fmt(load, 6) + " beside it";
  } else if (l->together_tail_us && l->together_valid) {
    t.tail_us = l->together_tail_us;
  } else if (l->together_certain_miss) {
    t.certain_miss = true;
  } else {
    t.why = "its point at " + Fmt(load, 6) + " was invalid" +
            (l->together_reasons.empty() ? std::string() : " (" + l->together_reasons.front() + ")");
  }
  return t;
}

// A curve that is not monotone — the cpu source at 50 % hurt memcached more than at 100 %
// (docs/interference.md) — is read on its monotone envelope: each point replaced by the worst
// one at or below its intensity (`worse` says which of two is worse), so the score is the lowest
// intensity that hurt the reporter as much. Returns the note on where the curve turned back
// ("" when it never did).
std::string MonotoneEnvelope(std::vector<std::pair<double, double>>* pts, bool (*worse)(double, double),
                             const std::string& what, double scale, const std::string& unit) {
  std::string turned;
  for (size_t i = 1; i < pts->size(); ++i) {
    auto& [x, v] = (*pts)[i];
    const auto& [px, pv] = (*pts)[i - 1];
    if (worse(pv, v)) {
      if (turned.empty()) {
        turned = "read on the curve's monotone envelope (its " + what + " went back from " + Fmt(pv * scale, 4) +
                 unit + " at " + Percent(px) + " to " + Fmt(v * scale, 4) + unit + " at " + Percent(x) +
                 ": each point taken as the worst at or below its intensity)";
      }
      v = pv;
    }
  }
  return turned;
}

bool HigherTail(double a, double b) { return a > b; }
bool LowerShare(double a, double b) { return a < b; }

PressureScore Score(const InterferenceProfile& c, const ReporterTail& beside) {
  PressureScore s;
  s.source = c.source;
  if (!c.load) {
    s.note = "the curve has no load: " + c.load_how;
    return s;
  }
  if (!beside.tail_us && !beside.certain_miss) {
    s.note = beside.why;
    return s;
  }
  if (beside.certain_miss) {
    // It makes the reporter miss QoS: it causes at least the pressure the reporter tolerates.
    if (c.tolerated && !c.tolerates_all) {
      s.intensity = c.tolerated;
      s.at_least = true;
      s.note = "the reporter misses QoS beside it (its tail from the send above LQoS), as from " +
               Percent(*c.tolerated) + " of " + c.source;
    } else {
      s.intensity = c.points.back().intensity;
      s.at_least = true;
      s.note = "the reporter misses QoS beside it, and meets it at every intensity of " + c.source +
               ": beyond the dial";
    }
    return s;
  }
  const double t = *beside.tail_us;
  // The curve's known tails, in intensity order; a miss without a value ends it.
  std::vector<std::pair<double, double>> pts;
  for (const auto& q : c.points) {
    if (q.tail_us) {  // a valid point's
      pts.emplace_back(q.intensity, *q.tail_us);
    } else {
      break;
    }
  }
  if (pts.empty()) {
    s.note = "the subject alone has no valid tail at " + Fmt(*c.load, 6);
    return s;
  }
  const std::string envelope = MonotoneEnvelope(&pts, HigherTail, "tail", 1, " µs");
  const std::string on = envelope.empty() ? "" : "; " + envelope;
  if (t <= pts.front().second) {
    s.intensity = 0;
    s.note = "the reporter's tail beside it (" + Fmt(t, 4) + " µs) is no higher than alone (" +
             Fmt(pts.front().second, 4) + " µs)";
    return s;
  }
  for (size_t i = 1; i < pts.size(); ++i) {
    if (t <= pts[i].second) {
      // t lies above the point before (else the loop stopped there), so the span is positive.
      const double f = (t - pts[i - 1].second) / (pts[i].second - pts[i - 1].second);
      s.intensity = pts[i - 1].first + std::clamp(f, 0.0, 1.0) * (pts[i].first - pts[i - 1].first);
      s.note = "its tail " + Fmt(t, 4) + " µs lies between the curve's " + Fmt(pts[i - 1].second, 4) + " µs at " +
               Percent(pts[i - 1].first) + " and " + Fmt(pts[i].second, 4) + " µs at " + Percent(pts[i].first) + on;
      return s;
    }
  }
  s.intensity = pts.back().first;
  s.at_least = true;
  s.note = "its tail " + Fmt(t, 4) + " µs exceeds the curve's last known one (" + Fmt(pts.back().second, 4) +
           " µs at " + Percent(pts.back().first) + ")" + on;
  return s;
}

// The score read on QPS under QoS instead: the set leaves the reporter a share R of its
// capacity alone (together / alone); the curve's shares at each intensity (1 at 0 %) are
// inverted where they bracket R. Used where the tail at the load cannot be read (an invalid
// point beside the set, or on the curve): the capacity compares a whole sweep, not one level.
PressureScore ScoreByCapacity(const InterferenceProfile& c, const ColocationGroup& beside) {
  PressureScore s;
  s.source = c.source;
  const auto& zero = c.points.front();
  if (!zero.capacity || *zero.capacity <= 0) {
    s.note = "the reporter alone has no QPS under QoS";
    return s;
  }
  // The set's share and the curve's are over the same capacity alone, so only the capacity
  // beside the set decides whether the share is a bound: below its lowest valid level, the
  // share is at most r and the score at least the reading.
  const Bounded together = beside.TogetherCapacity();
  if (!together.value) {
    s.note = "the reporter's QPS under QoS beside it is unknown (" + together.withheld + ")";
    return s;
  }
  const double r0 = *together.value / *zero.capacity;
  const std::optional<double> r = r0;
  const bool below = together.bound == Bound::kUpper;
  if (together.bound == Bound::kLower && r0 < 1) {
    s.note = "the reporter's QPS under QoS beside it is only a lower bound (≥ " + Fmt(*together.value, 6) +
             ", beyond the sweep) under a capacity alone of " + Fmt(*zero.capacity, 6) +
             ": the score would be only an upper bound";
    return s;
  }
  // The curve's known shares in intensity order; a capacity known only as a bound ends it.
  std::vector<std::pair<double, double>> pts;
  for (const auto& q : c.points) {
    if (!q.capacity) break;
    pts.emplace_back(q.intensity, *q.capacity / *zero.capacity);
  }
  if (pts.size() == 1) {
    s.note = "the curve has no QPS under QoS beyond 0 %" +
             (c.points.size() > 1 && c.points[1].upper_bound
                  ? " (at " + Percent(c.points[1].intensity) + " it is below " + Fmt(*c.points[1].upper_bound, 6) + ")"
                  : std::string());
    return s;
  }
  const std::string envelope = MonotoneEnvelope(&pts, LowerShare, "share of QPS under QoS", 100, " %");
  const std::string bound =
      (zero.lower_bound ? " (shares of a capacity alone that is a lower bound)" : "") +
      (envelope.empty() ? std::string() : "; " + envelope);
  const std::string has = "it leaves the reporter " + std::string(below ? "below " : "") + Fmt(*r * 100, 3) +
                          " % of its QPS under QoS alone";
  if (*r >= pts.front().second && !below) {
    s.intensity = 0;
    s.note = "by QPS under QoS: " + has + bound;
    return s;
  }
  for (size_t i = 1; i < pts.size(); ++i) {
    if (*r >= pts[i].second) {
      const double span = pts[i - 1].second - pts[i].second;
      const double f = span > 0 ? std::clamp((pts[i - 1].second - *r) / span, 0.0, 1.0) : 0.0;
      s.intensity = pts[i - 1].first + f * (pts[i].first - pts[i - 1].first);
      s.at_least = below;
      s.note = "by QPS under QoS: " + has + ", between the curve's " + Fmt(pts[i - 1].second * 100, 3) + " % at " +
               Percent(pts[i - 1].first) + " and " + Fmt(pts[i].second * 100, 3) + " % at " + Percent(pts[i].first) +
               bound;
      return s;
    }
  }
  s.intensity = pts.back().first;
  s.at_least = true;
  s.note = "by QPS under QoS: " + has + ", less than the curve's last known " + Fmt(pts.back().second * 100, 3) +
           " % at " + Percent(pts.back().first) + bound;
  return s;
}

}  // namespace

std::vector<PressureProfile> AnalyzePressure(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                             const std::vector<InterferenceProfile>& curves, std::optional<double>) {
  std::vector<PressureProfile> out;
  if (curves.empty()) return out;
  const std::map<std::string, SourceSet> sources = SourceSets(d);
  for (const auto& g : groups) {
    if (sources.count(g.set)) continue;
    PressureProfile p;
    p.set = g.set;
    p.group_key = g.group_key;
    for (const auto& c : curves) {
      if (c.group_key != g.group_key) continue;
      PressureScore sc = Score(c, c.load ? TailBeside(g, *c.load) : ReporterTail{});
      PressureScore by_capacity = ScoreByCapacity(c, g);
      sc.capacity_intensity = by_capacity.intensity;
      sc.capacity_at_least = by_capacity.at_least;
      sc.capacity_note = by_capacity.note;
      p.scores.push_back(std::move(sc));
    }
    if (!p.scores.empty()) out.push_back(std::move(p));
  }
  return out;
}

namespace {

// The subject's curve at intensity x: the tail and the capacity, interpolated between the two
// points that bracket x.
struct CurveReading {
  std::optional<double> tail_us;
  std::optional<bool> meets;
  Bounded capacity_ratio;
  std::string note;
};

CurveReading ReadCurve(const InterferenceProfile& c, double x, std::optional<double> lqos) {
  CurveReading r;
  const auto& pts = c.points;
  if (pts.empty()) return r;
  size_t hi = 0;
  while (hi < pts.size() && pts[hi].intensity < x) ++hi;
  if (hi == pts.size()) {
    r.note = "the score " + Percent(x) + " lies beyond the curve's last intensity (" +
             Percent(pts.back().intensity) + ")";
    hi = pts.size() - 1;
  }
  const size_t lo = hi == 0 ? 0 : hi - 1;
  const double span = pts[hi].intensity - pts[lo].intensity;
  const double f = span > 0 ? std::clamp((x - pts[lo].intensity) / span, 0.0, 1.0) : 1.0;
  auto lerp = [&](const std::optional<double>& a, const std::optional<double>& b) -> std::optional<double> {
    if (f == 0 && a) return a;
    if (f == 1 && b) return b;
    if (a && b) return *a + f * (*b - *a);
    return std::nullopt;
  };
  r.tail_us = lerp(pts[lo].tail_us, pts[hi].tail_us);
  if (r.tail_us && lqos) {
    r.meets = *r.tail_us <= *lqos;
  } else if (!pts[lo].meets.value_or(true) || (f == 1 && !pts[hi].meets.value_or(true))) {
    r.meets = false;  // the curve misses QoS at or below the score
  } else {
    r.note += (r.note.empty() ? "" : "; ") + std::string("no tail on the curve at the score (a point without a valid "
                                                         "tail brackets it)");
  }
  // The capacity there over the capacity alone, each a bound where the curve's is: a capacity
  // read between a lower bound and a measured one is at least the line between them.
  const auto& zero = pts.front();
  if (auto cap = lerp(pts[lo].capacity, pts[hi].capacity)) {
    const bool lower = (f < 1 && pts[lo].lower_bound) || (f > 0 && pts[hi].lower_bound);
    r.capacity_ratio = Divide(Bounded::Of(*cap, lower ? Bound::kLower : Bound::kNone),
                              CapacityFigure(zero.capacity, zero.lower_bound, zero.upper_bound, "no QPS under QoS"),
                              "both beyond the sweep (every valid level met QoS at the score and alone)",
                              "the curve at the score", "the subject alone");
  } else {
    r.capacity_ratio = Bounded::Withheld("no QPS under QoS on the curve at " + Percent(x) +
                                         " (a point bracketing it has only a bound below its lowest level, or none)");
  }
  return r;
}

}  // namespace

std::vector<InterferencePrediction> PredictInterference(const std::vector<InterferenceProfile>& subject_curves,
                                                        const std::vector<ColocationGroup>& subject_measured,
                                                        const std::vector<PressureProfile>& reporter_scores,
                                                        std::optional<double> lqos) {
  std::vector<InterferencePrediction> out;
  std::vector<std::string> keys;
  for (const auto& c : subject_curves) {
    if (std::find(keys.begin(), keys.end(), c.group_key) == keys.end()) keys.push_back(c.group_key);
  }
  std::vector<std::string> sets;
  for (const auto& p : reporter_scores) {
    if (std::find(sets.begin(), sets.end(), p.set) == sets.end()) sets.push_back(p.set);
  }
  for (const std::string& key : keys) {
    for (const std::string& set : sets) {
      // The reporter's scores of the set (of its first scenario × partition that has the set).
      const PressureProfile* scored = nullptr;
      for (const auto& p : reporter_scores) {
        if (p.set == set && (!scored || p.group_key == key)) scored = &p;
      }
      InterferencePrediction best;
      best.set = set;
      best.group_key = key;
      bool have = false;
      std::string why;
      for (const auto& sc : scored->scores) {
        const InterferenceProfile* curve = nullptr;
        for (const auto& c : subject_curves) {
          if (c.group_key == key && c.source == sc.source) curve = &c;
        }
        if (!curve) continue;
        if (!sc.intensity && !sc.capacity_intensity) {
          why += (why.empty() ? "" : "; ") + sc.source + ": no score (" + sc.note + "; " + sc.capacity_note + ")";
          continue;
        }
        // The tail read at the score by the tail, the capacity at the score by the capacity:
        // each prediction at the score of its own quantity, the other where one is missing.
        const double at_tail = sc.intensity ? *sc.intensity : *sc.capacity_intensity;
        const double at_capacity = sc.capacity_intensity ? *sc.capacity_intensity : *sc.intensity;
        CurveReading r = ReadCurve(*curve, at_tail, lqos);
        if (at_capacity != at_tail) r.capacity_ratio = ReadCurve(*curve, at_capacity, lqos).capacity_ratio;
        // The most damaging source: a predicted miss first, then the lower capacity (the whole
        // sweep's answer), then the higher tail at the load.
        auto worse = [&](const CurveReading& a, const InterferencePrediction& b) {
          if (a.meets.has_value() && b.predicted_meets.has_value() && *a.meets != *b.predicted_meets) return !*a.meets;
          const auto &ar = a.capacity_ratio.value, &br = b.predicted_capacity_ratio.value;
          if (ar && br && *ar != *br) return *ar < *br;
          if (ar.has_value() != br.has_value()) return ar.has_value();
          const auto& bt = b.predicted_tail_us.value;
          if (a.tail_us && bt) return *a.tail_us > *bt;
          if (a.tail_us.has_value() != bt.has_value()) return a.tail_us.has_value();
          return false;
        };
        if (!have || worse(r, best)) {
          best.source = sc.source;
          best.score = sc.intensity;
          best.score_at_least = sc.at_least;
          best.capacity_score = sc.capacity_intensity;
          best.capacity_score_at_least = sc.capacity_at_least;
          best.load = curve->load;
          best.note = r.note;
          auto add_note = [&](const std::string& n) { best.note += (best.note.empty() ? "" : "; ") + n; };
          // A score that is only a lower bound: the set does at least the damage read there — a
          // tail at least, a share at most, and a miss, but not a meet, is certain.
          const bool tail_at_least = sc.intensity ? sc.at_least : sc.capacity_at_least;
          const bool capacity_at_least = sc.capacity_intensity ? sc.capacity_at_least : sc.at_least;
          best.predicted_tail_us = r.tail_us ? Bounded::Of(*r.tail_us, tail_at_least ? Bound::kLower : Bound::kNone)
                                             : Bounded::Withheld("no valid tail on the curve at the score");
          best.predicted_meets = r.meets;
          if (tail_at_least && r.meets.value_or(false)) {
            best.predicted_meets.reset();
            add_note("the score is only a lower bound: the curve meets QoS there, and past it cannot be said");
          }
          best.predicted_capacity_ratio =
              Also(r.capacity_ratio, capacity_at_least ? Bound::kUpper : Bound::kNone,
                   "the score is only a lower bound (the share at most the reading) and the capacity read there only "
                   "a lower bound (the share at least it)");
          if (tail_at_least || capacity_at_least) {
            add_note("a score is a lower bound, so its reading is the least damage the set does");
          }
          if (!sc.intensity) add_note("no score by the tail: " + sc.note);
          have = true;
        }
      }
      if (!have) {
        best.note = why.empty() ? "the reporter scored it on no source the subject has a curve for" : why;
        best.predicted_tail_us = best.predicted_capacity_ratio = Bounded::Withheld("no score: " + best.note);
      }
      best.measured_capacity_ratio = Bounded::Withheld("not measured beside the set");
      best.capacity_error_pp = Bounded::Withheld("not measured beside the set");
      for (const auto& g : subject_measured) {
        if (g.set != set || g.group_key != key) continue;
        best.measured_capacity_ratio = g.capacity_ratio;
        if (best.load) {
          if (const ColocationLevel* l = LevelAt(g, *best.load)) {
            if (l->together_valid) best.measured_tail_us = l->together_tail_us;
            best.measured_meets = l->together_meets;
            if (!best.measured_meets && l->together_certain_miss) best.measured_meets = false;
          }
        }
        const Bounded& m = best.measured_capacity_ratio;
        if (!m.value) {
          best.capacity_error_pp = Bounded::Withheld("no measured share: " + m.withheld);
        } else if (m.bound != Bound::kNone) {
          best.capacity_error_pp = Bounded::Withheld(std::string("the measured share is only a bound (") +
                                                     BoundPrefix(m.bound) + Fmt(*m.value * 100, 3) + " %)");
        } else if (!best.predicted_capacity_ratio.value) {
          best.capacity_error_pp = Bounded::Withheld("no predicted share: " + best.predicted_capacity_ratio.withheld);
        } else {
          best.capacity_error_pp = Scale(Subtract(best.predicted_capacity_ratio, m, ""), 100);
        }
      }
      out.push_back(std::move(best));
    }
  }
  return out;
}

PredictionCheck CheckPredictions(const std::vector<InterferencePrediction>& predictions) {
  PredictionCheck c;
  std::vector<double> errors, measured;
  std::vector<std::pair<double, double>> tails;  // (predicted, measured), µs
  for (const auto& q : predictions) {
    const bool ran = q.measured_capacity_ratio.value || q.measured_meets;
    if (!ran) continue;
    ++c.measured;
    if (q.predicted_tail_us.exact() && q.measured_tail_us && *q.measured_tail_us > 0) {
      c.tail_judged.push_back(q.set);
      tails.push_back({*q.predicted_tail_us.value, *q.measured_tail_us});
    }
    if (q.predicted_meets && q.measured_meets) {
      ++c.safe_judged;
      if (*q.predicted_meets == *q.measured_meets) ++c.safe_agree;
    }
    if (q.capacity_error_pp.exact()) {
      c.judged.push_back(q.set);
      errors.push_back(*q.capacity_error_pp.value);
      measured.push_back(*q.measured_capacity_ratio.value);
    } else {
      const Bounded& p = q.predicted_capacity_ratio;
      c.left_out.push_back(q.set + ": " +
                           (q.capacity_error_pp.value ? std::string("the predicted share is only a bound (") +
                                                            BoundPrefix(p.bound) + Fmt(*p.value * 100, 3) + " %)"
                                                      : q.capacity_error_pp.withheld));
    }
  }
  if (tails.empty()) {
    c.tail_note = c.measured == 0 ? "no predicted pair was measured"
                                  : "no measured pair has a tail at the curve's load on both sides (a point beside "
                                    "the set invalid, or a prediction only a bound)";
  } else {
    double err = 0, sum = 0;
    for (const auto& [p, m] : tails) {
      err += std::abs(p - m) / m * 100;
      sum += m;
    }
    const double n = static_cast<double>(tails.size());
    c.tail_mean_abs_error_pct = err / n;
    c.naive_tail_us = sum / n;
    double naive = 0;
    for (const auto& [p, m] : tails) naive += std::abs(*c.naive_tail_us - m) / m * 100;
    c.naive_tail_mean_abs_error_pct = naive / n;
  }
  if (errors.empty()) {
    c.note = c.measured == 0 ? "no predicted pair was measured" : "no measured pair has an exact share on both sides";
    return c;
  }
  double abs_sum = 0, share_sum = 0;
  for (double e : errors) abs_sum += std::abs(e);
  for (double m : measured) share_sum += m;
  const double n = static_cast<double>(errors.size());
  c.mean_abs_error_pp = abs_sum / n;
  c.naive_share = share_sum / n;
  double naive_sum = 0;
  for (double m : measured) naive_sum += std::abs(*c.naive_share - m) * 100;
  c.naive_mean_abs_error_pp = naive_sum / n;
  return c;
}

namespace {

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The sets of a subject's curves (the sources at each intensity): not co-runners of the matrix.
std::vector<std::string> SourceSetNames(const std::vector<InterferenceProfile>& curves) {
  std::vector<std::string> out;
  for (const auto& c : curves) {
    for (const auto& q : c.points) {
      if (!q.set.empty()) out.push_back(q.set);
    }
  }
  return out;
}

// The measured side of a cell: the subject's capacity ratio beside the set and whether it meets
// QoS at `load` (a certain miss of an invalid point counts as a miss).
void Measured(const std::vector<ColocationGroup>& groups, const std::string& key, MatrixCell* cell) {
  for (const auto& g : groups) {
    if (g.set != cell->set || g.group_key != key) continue;
    cell->measured_ratio = g.capacity_ratio;
    if (cell->load) {
      if (const ColocationLevel* l = LevelAt(g, *cell->load)) {
        cell->measured_meets = l->together_meets;
        if (!cell->measured_meets && l->together_certain_miss) cell->measured_meets = false;
      }
    }
  }
}

std::optional<double> CurveLoad(const std::vector<InterferenceProfile>* curves, const std::string& key) {
  if (!curves) return std::nullopt;
  for (const auto& c : *curves) {
    if (c.group_key == key && c.load) return c.load;
  }
  return std::nullopt;
}

void Tolerates(const MatrixSubject& s, const std::string& key, ColocationMatrix* m) {
  if (!s.curves) return;
  HeatRow row{s.name, "tolerates", "", std::vector<std::optional<double>>(m->sources.size()),
              std::vector<bool>(m->sources.size(), false)};
  bool any = false;
  for (size_t i = 0; i < m->sources.size(); ++i) {
    for (const auto& c : *s.curves) {
      if (c.group_key != key || c.source != m->sources[i] || !c.tolerated) continue;
      row.values[i] = c.tolerated;
      row.at_least[i] = c.at_least || c.tolerates_all;
      any = true;
    }
  }
  if (any) m->heat.push_back(std::move(row));
}

}  // namespace

ColocationMatrix BuildColocationMatrix(const std::vector<MatrixSubject>& subjects, const MatrixSubject* reporter) {
  ColocationMatrix m;
  if (subjects.empty()) return m;
  const MatrixSubject& first = subjects.front();
  // One scenario × partition: the first the page's subject has a curve for, else its first set's.
  if (first.curves && !first.curves->empty()) {
    m.group_key = first.curves->front().group_key;
  } else if (first.measured && !first.measured->empty()) {
    m.group_key = first.measured->front().group_key;
  } else {
    return m;
  }
  std::vector<const MatrixSubject*> all;
  for (const auto& s : subjects) all.push_back(&s);
  if (reporter) all.push_back(reporter);
  // Each subject's own scenario × partition: the page's, or another's first curve (another
  // experiment may name its partition differently).
  auto key_of = [&](const MatrixSubject* s) {
    if (s == &first || !s->curves || s->curves->empty()) return m.group_key;
    return s->curves->front().group_key;
  };
  std::vector<std::string> source_sets;
  for (const MatrixSubject* s : all) {
    if (!s->curves) continue;
    auto names = SourceSetNames(*s->curves);
    source_sets.insert(source_sets.end(), names.begin(), names.end());
    for (const auto& c : *s->curves) {
      if (c.group_key == key_of(s) && !Contains(m.sources, c.source)) m.sources.push_back(c.source);
    }
  }
  // The co-runner sets: every set a subject measured or the reporter scored, but the sources'.
  for (const MatrixSubject* s : all) {
    if (s->measured) {
      for (const auto& g : *s->measured) {
        if (g.group_key == key_of(s) && !Contains(source_sets, g.set) && !Contains(m.sets, g.set)) {
          m.sets.push_back(g.set);
        }
      }
    }
    if (s->pressure) {
      for (const auto& p : *s->pressure) {
        if (!Contains(source_sets, p.set) && !Contains(m.sets, p.set)) m.sets.push_back(p.set);
      }
    }
  }
  if (m.sets.empty()) return m;
  for (const MatrixSubject* s : all) {
    m.subjects.push_back(s->name);
    const bool is_reporter = s == reporter;
    const std::string key = key_of(s);
    for (const std::string& set : m.sets) {
      MatrixCell cell;
      cell.subject = s->name;
      cell.set = set;
      cell.load = CurveLoad(s->curves, key);
      if (!is_reporter && s->predicted) {
        for (const auto& q : *s->predicted) {
          if (q.set != set || q.group_key != key) continue;
          cell.predicted_ratio = q.predicted_capacity_ratio;
          cell.predicted_meets = q.predicted_meets;
          if (q.load) cell.load = q.load;
          if (!q.predicted_meets && !q.predicted_capacity_ratio.value) cell.note = q.note;
        }
      }
      if (s->measured) Measured(*s->measured, key, &cell);
      if (is_reporter) {
        cell.note = "measured only: the reporter's scores were read off these measurements";
      } else if (!s->predicted && !cell.measured_ratio.value && !cell.measured_meets) {
        cell.note = "neither predicted (no reporter) nor measured";
      } else if (!s->predicted) {
        cell.note = "not predicted: no reporter experiment (--reporter)";
      }
      m.cells.push_back(std::move(cell));
    }
  }
  // The heat map: what each subject tolerates, what each set causes (by whose scores).
  for (const MatrixSubject* s : all) Tolerates(*s, key_of(s), &m);
  const MatrixSubject& scorer = reporter && reporter->pressure && !reporter->pressure->empty() ? *reporter : first;
  if (scorer.pressure) {
    for (const std::string& set : m.sets) {
      HeatRow row{set, "causes", scorer.name, std::vector<std::optional<double>>(m.sources.size()),
                  std::vector<bool>(m.sources.size(), false)};
      bool any = false;
      for (const auto& p : *scorer.pressure) {
        if (p.set != set) continue;
        for (const auto& sc : p.scores) {
          auto it = std::find(m.sources.begin(), m.sources.end(), sc.source);
          // The score by the tail (Bubble-Up's), else the one by QPS under QoS.
          const auto& v = sc.intensity ? sc.intensity : sc.capacity_intensity;
          if (it == m.sources.end() || !v || row.values[it - m.sources.begin()]) continue;
          row.values[it - m.sources.begin()] = v;
          row.at_least[it - m.sources.begin()] = sc.intensity ? sc.at_least : sc.capacity_at_least;
          any = true;
        }
      }
      if (any) m.heat.push_back(std::move(row));
    }
  }
  m.note = "capacity beside each set as a share of the capacity alone, and QoS met at the subject's curve load; "
           "predicted from " + (reporter ? "the reporter " + reporter->name + "'s scores" : std::string("no reporter")) +
           ", measured where the pair ran, on " + m.group_key;
  return m;
}

}  // namespace ream::analysis
