// The spec's [manager] section: the policy, its period and window, its thresholds, the resources
// it may move (each a knob of the one knob table that can be moved on a running tenant) and the
// floor no tenant goes below. What the manager does with them is manager/'s.
#include <algorithm>
#include <cmath>
#include <set>

#include <toml++/toml.h>

#include "platform/text.h"
#include "spec/sections.h"
#include "spec/spec.h"
#include "spec/toml_section.h"

namespace ream {
namespace {

// The knobs a manager may move, for messages: "cpu_quota, cpu_weight, ...".
std::string MovableKnobs(const KnobTable& knobs) {
  std::vector<std::string> keys;
  for (const auto& k : knobs.knobs()) {
    if (k.moves) keys.push_back(k.key);
  }
  return Join(keys, ", ");
}

// The knob `key` names, if a manager can move it; InvalidArgument naming the key's line and why
// otherwise (no such knob, or fixed once its tenant starts).
Result<const Knob*> MovableKnob(const TomlSection& s, const toml::node& n, const std::string& key,
                                const std::string& name, const KnobTable& knobs) {
  const Knob* k = knobs.Find(name);
  if (!k) {
    return s.Error(n, key, "is \"" + name + "\": no such knob (a manager moves: " + MovableKnobs(knobs) + ")");
  }
  if (!k->moves) {
    return s.Error(n, key, "is \"" + name + "\": a manager cannot move it while the tenant runs: " +
                               k->fixed_while_running + " (a manager moves: " + MovableKnobs(knobs) + ")");
  }
  return k;
}

// A level of knob `k` from the text at `key` ("10%", "4", "idle"): parsed by the knob's own
// parser. Leaves `*level` and `*text` unchanged when the key is absent.
Status KnobLevel(const TomlSection& s, const std::string& key, const Knob& k, double* level, std::string* text) {
  const toml::node* n = s.Get(key);
  if (!n) return Status::Ok();
  std::optional<std::string> t = KnobText(*n);
  if (!t || t->empty()) return s.Error(*n, key, "must be a " + k.key + " value such as \"10%\" or \"2\"");
  auto v = k.parse(*t, k.key);
  if (!v.ok()) return s.Error(*n, key, "= \"" + *t + "\": " + v.status().message());
  auto l = k.moves->level(*v, k.key);
  if (!l.ok()) return s.Error(*n, key, "= \"" + *t + "\": " + l.status().message());
  *level = *l;
  *text = *t;
  return Status::Ok();
}

Status ParseResource(const TomlSection& s, const KnobTable& knobs, const ExperimentSpec& spec,
                     ManagerResourceSpec* r) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  r->line = static_cast<int>(s.table().source().begin.line);
  const std::string at = s.source() + ":" + std::to_string(r->line) + ": [[manager.resource]] ";
  const toml::node* kn = s.Get("knob");
  if (!kn) return InvalidArgument(at + "needs 'knob' (one of: " + MovableKnobs(knobs) + ")");
  std::string name;
  REAM_RETURN_IF_ERROR(s.String("knob", &name));
  REAM_ASSIGN_OR_RETURN(r->knob, MovableKnob(s, *kn, "knob", name, knobs));
  const toml::node* tn = s.Get("tenant");
  if (!tn) return InvalidArgument(at + "needs 'tenant' (\"subject\" or a co-runner's name)");
  REAM_RETURN_IF_ERROR(s.String("tenant", &r->tenant));
  if (r->tenant == "subject" && spec.FindCorunner("subject")) {
    return s.Error(*tn, "tenant", "is \"subject\", which names both the subject and a co-runner: rename the co-runner");
  }
  if (r->tenant != "subject" && !spec.FindCorunner(r->tenant)) {
    std::vector<std::string> names{"subject"};
    for (const auto& c : spec.corunners) names.push_back(c.name);
    return s.Error(*tn, "tenant", "is \"" + r->tenant + "\": no such tenant (the tenants: " + Join(names, ", ") + ")");
  }
  const KnobMoves& m = *r->knob->moves;
  r->unit = m.unit;
  if (m.lowest) r->min = *m.lowest;
  if (m.highest) r->max = *m.highest;
  if (m.unit > 0) r->unit_text = m.text(m.unit);
  if (m.lowest) r->min_text = m.text(*m.lowest);
  if (m.highest) r->max_text = m.text(*m.highest);
  REAM_RETURN_IF_ERROR(KnobLevel(s, "unit", *r->knob, &r->unit, &r->unit_text));
  REAM_RETURN_IF_ERROR(KnobLevel(s, "min", *r->knob, &r->min, &r->min_text));
  REAM_RETURN_IF_ERROR(KnobLevel(s, "max", *r->knob, &r->max, &r->max_text));
  for (const auto& [key, text] : {std::pair{"unit", r->unit_text}, {"min", r->min_text}, {"max", r->max_text}}) {
    if (text.empty()) return InvalidArgument(at + "of knob " + name + " needs '" + key + "' (a " + name + " value)");
  }
  if (r->unit <= 0) return s.Error(*s.Get("unit"), "unit", "= \"" + r->unit_text + "\" must be more than nothing");
  if (r->min > r->max) {
    return InvalidArgument(at + "min = \"" + r->min_text + "\" is above max = \"" + r->max_text + "\"");
  }
  if (s.Get("start")) {
    double start = 0;
    REAM_RETURN_IF_ERROR(KnobLevel(s, "start", *r->knob, &start, &r->start_text));
    if (start < r->min - 1e-9 || start > r->max + 1e-9) {
      return s.Error(*s.Get("start"), "start",
                     "= \"" + r->start_text + "\" is outside [" + r->min_text + ", " + r->max_text + "]");
    }
    r->start = start;
  }
  if (r->max - r->min < r->unit * (1 - 1e-9)) {
    return InvalidArgument(at + "unit = \"" + r->unit_text + "\" is more than max - min (\"" + r->max_text +
                           "\" - \"" + r->min_text + "\"): the manager could never move " + name);
  }
  return Status::Ok();
}

}  // namespace

Status ParseManager(const TomlSection& s, const KnobTable& knobs, ExperimentSpec* spec) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  ManagerSpec& m = spec->manager;
  m.given = true;
  m.line = static_cast<int>(s.table().source().begin.line);
  const std::string at = s.source() + ":" + std::to_string(m.line) + ": [manager] ";
  if (!spec->workload.batch.empty()) {
    return InvalidArgument(at + "keeps a server's tail latency under its QoS target: a batch subject has none");
  }
  if (!s.Get("policy")) return InvalidArgument(at + "needs 'policy' (\"parties\" or \"heracles\")");
  REAM_RETURN_IF_ERROR(s.OneOf("policy", &m.policy, {"parties", "heracles"}));
  const bool parties = m.policy == "parties";
  // A key of the other policy is an error rather than ignored: the user meant it to act.
  const std::vector<std::string> parties_keys{"grow_below", "shrink_above", "skip_windows"};
  // (peak_qps is both's: Heracles compares the load with it, and the comparison of a run's modes
  // takes it as the subject's capacity in Heracles' EMU, whichever policy ran.)
  const std::vector<std::string> heracles_keys{"disable_above_load", "enable_below_load", "stop_growth_below",
                                               "shrink_below", "cooldown_windows"};
  for (const auto& key : parties ? heracles_keys : parties_keys) {
    if (const toml::node* n = s.Get(key)) {
      return s.Error(*n, key, "applies to policy = \"" + std::string(parties ? "heracles" : "parties") +
                                  "\", not \"" + m.policy + "\"");
    }
  }
  REAM_RETURN_IF_ERROR(s.Duration("period", &m.period, std::chrono::milliseconds(50), std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.Duration("window", &m.window, std::chrono::milliseconds(50), std::chrono::milliseconds(600000)));
  if (m.window < m.period) {
    const std::string key = s.Get("window") ? "window" : "period";
    return s.Error(*s.Get(key), key,
                   "makes the window (" + std::to_string(m.window.count()) + " ms) shorter than the period (" +
                       std::to_string(m.period.count()) + " ms): part of every period would go unmeasured");
  }
  REAM_RETURN_IF_ERROR(s.Number("grow_below", &m.grow_below, -1, 1));
  REAM_RETURN_IF_ERROR(s.Number("shrink_above", &m.shrink_above, -1, 1));
  if (parties && m.shrink_above <= m.grow_below) {
    // The defaults leave room, so one of the two was given.
    const std::string key = s.Get("shrink_above") ? "shrink_above" : "grow_below";
    return s.Error(*s.Get(key), key,
                   "leaves no slack between growing (below " + Fmt("%g", m.grow_below) + ") and shrinking (above " +
                       Fmt("%g", m.shrink_above) + "): the manager would move every window");
  }
  REAM_RETURN_IF_ERROR(s.Int("skip_windows", &m.skip_windows, 0, 1000));
  REAM_RETURN_IF_ERROR(s.Number("peak_qps", &m.peak_qps, 1, 1e12));
  REAM_RETURN_IF_ERROR(s.Number("disable_above_load", &m.disable_above_load, 0.01, 10));
  REAM_RETURN_IF_ERROR(s.Number("enable_below_load", &m.enable_below_load, 0, 10));
  REAM_RETURN_IF_ERROR(s.Number("stop_growth_below", &m.stop_growth_below, -1, 1));
  REAM_RETURN_IF_ERROR(s.Number("shrink_below", &m.shrink_below, -1, 1));
  REAM_RETURN_IF_ERROR(s.Int("cooldown_windows", &m.cooldown_windows, 0, 100000));
  if (!parties) {
    if (!s.Get("peak_qps")) {
      return InvalidArgument(at + "policy = \"heracles\" needs 'peak_qps': the subject's capacity at its QoS target "
                                  "(`ream analyze` gives it), which its load is compared with");
    }
    if (m.enable_below_load > m.disable_above_load) {
      return s.Error(*s.Get("enable_below_load"), "enable_below_load",
                     "is above disable_above_load (" + Fmt("%g", m.disable_above_load) + ")");
    }
    if (m.shrink_below > m.stop_growth_below) {
      return s.Error(*s.Get("shrink_below"), "shrink_below",
                     "is above stop_growth_below (" + Fmt("%g", m.stop_growth_below) + "): growth must stop first");
    }
  }

  const toml::node* rn = s.Get("resource");
  if (!rn) {
    return InvalidArgument(at + "needs at least one [[manager.resource]] (knob, tenant, unit, min, max): what it "
                                "may move");
  }
  const toml::array* a = rn->as_array();
  if (!a || a->empty() || !a->is_array_of_tables()) {
    return s.Error(*rn, "resource", "must be tables ([[manager.resource]])");
  }
  std::set<std::pair<std::string, std::string>> seen;
  bool neighbour = false;
  for (const auto& e : *a) {
    ManagerResourceSpec r;
    REAM_RETURN_IF_ERROR(ParseResource(TomlSection(*e.as_table(), "manager.resource", s.source(),
                                                   {"knob", "tenant", "unit", "min", "max", "start"}),
                                       knobs, *spec, &r));
    if (!seen.insert({r.tenant, r.knob->key}).second) {
      return InvalidArgument(s.source() + ":" + std::to_string(r.line) + ": [[manager.resource]] " + r.knob->key +
                             " of " + r.tenant + " is listed twice");
    }
    neighbour = neighbour || r.tenant != "subject";
    // A knob of the subject and of a neighbour changes hands a unit at a time: one unit for both.
    for (const auto& o : m.resources) {
      if (o.knob == r.knob && (o.tenant == "subject") != (r.tenant == "subject") &&
          std::abs(o.unit - r.unit) > 1e-9 * std::max(1.0, o.unit)) {
        return InvalidArgument(s.source() + ":" + std::to_string(r.line) + ": [[manager.resource]] " + r.knob->key +
                               " of " + r.tenant + " has unit \"" + r.unit_text + "\" and of " + o.tenant + " (line " +
                               std::to_string(o.line) + ") \"" + o.unit_text +
                               "\": the subject's and a neighbour's share of a knob change hands a unit at a time, "
                               "so give them one unit");
      }
    }
    m.resources.push_back(std::move(r));
  }
  if (!parties && !neighbour) {
    return s.Error(*rn, "resource", "moves only the subject's resources: Heracles grows and throttles the best-effort "
                                    "neighbours, so give one of a co-runner");
  }

  Status err;
  if (const toml::table* f = s.Table("floor", &err)) {
    std::vector<std::string> keys;
    for (const auto& k : knobs.knobs()) keys.push_back(k.key);
    TomlSection fs(*f, "manager.floor", s.source(), keys);
    REAM_RETURN_IF_ERROR(fs.Unknown());
    for (auto&& [key, node] : *f) {
      const std::string name(key.str());
      REAM_ASSIGN_OR_RETURN(const Knob* k, MovableKnob(fs, node, name, name, knobs));
      double level = 0;
      std::string text;
      REAM_RETURN_IF_ERROR(KnobLevel(fs, name, *k, &level, &text));
      bool moved = false;
      for (const auto& r : m.resources) {
        if (r.knob != k) continue;
        moved = true;
        if (r.max < level) {
          return fs.Error(node, name, "= \"" + text + "\" is above the max of " + r.tenant + "'s " + name + " (\"" +
                                          r.max_text + "\", line " + std::to_string(r.line) + ")");
        }
      }
      if (!moved) return fs.Error(node, name, "is a floor for a knob no [[manager.resource]] moves");
      m.floor[name] = level;
      m.floor_texts[name] = text;
    }
  }
  return err;
}

}  // namespace ream
