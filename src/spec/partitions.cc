// The spec's [partitions] and [sensitivity] sections: knob values, each parsed by its knob's own
// parser (partition/knobs.h), expanded into the partitions the experiment runs.
#include <set>

#include <toml++/toml.h>

#include "spec/sections.h"
#include "spec/spec.h"
#include "spec/toml_section.h"

namespace ream {

namespace {

// Parses one value of knob `k` (as written at `line`) into `p`: the text, its line and the
// typed value. InvalidArgument "x.toml:12: partitions.memory = \"lots\": ..." otherwise.
Status AddKnobValue(const TomlSection& s, const Knob& k, const std::string& text, int line,
                    PartitionValues* p) {
  auto v = k.parse(text, k.key);
  if (!v.ok()) {
    return InvalidArgument(s.source() + ":" + std::to_string(line) + ": partitions." + k.key + " = \"" + text +
                           "\": " + v.status().message());
  }
  p->knobs[k.key] = text;
  p->lines[k.key] = line;
  p->values[k.key] = {&k, *v};
  return Status::Ok();
}

}  // namespace

// A knob's value as TOML gives it: a string, or an integer taken as its decimal text.
std::optional<std::string> KnobText(const toml::node& n) {
  if (n.is_string()) return n.value<std::string>().value();
  if (n.is_integer()) return std::to_string(n.value<int64_t>().value());
  return std::nullopt;
}

Status ParsePartitionValues(const TomlSection& s, const KnobTable& knobs, PartitionValues* p) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  for (const auto& k : knobs.knobs()) {
    if (!k.in_spec) continue;
    auto* n = s.Get(k.key);
    if (!n) continue;
    std::optional<std::string> text = KnobText(*n);
    if (!text) return s.Error(*n, k.key, "must be a string such as \"50%\" or \"512M\", or an integer");
    if (text->empty()) return s.Error(*n, k.key, "is empty");
    REAM_RETURN_IF_ERROR(AddKnobValue(s, k, *text, static_cast<int>(n->source().begin.line), p));
  }
  return Status::Ok();
}

Status ParsePartitions(const TomlSection& s, const KnobTable& knobs, std::vector<PartitionValues>* out) {
  const std::vector<std::string> keys = knobs.SpecKeys();
  out->clear();
  if (auto* sets = s.Get("set")) {
    const toml::array* a = sets->as_array();
    if (!a || !a->is_array_of_tables()) {
      return s.Error(*sets, "set", "must be an array of tables ([[partitions.set]])");
    }
    for (const auto& k : keys) {
      if (auto* n = s.Get(k)) {
        return s.Error(*n, k, "cannot be combined with [[partitions.set]]; put it in each set");
      }
    }
    for (const auto& e : *a) {
      TomlSection one(*e.as_table(), "partitions.set", s.source(), keys);
      PartitionValues p;
      REAM_RETURN_IF_ERROR(ParsePartitionValues(one, knobs, &p));
      out->push_back(std::move(p));
    }
  } else {
    // Lists expand to their product; a single value is a list of one. Each value is parsed
    // once, into a partition of its own, and the product merges them.
    std::vector<PartitionValues> acc(1);
    for (const auto& k : knobs.knobs()) {
      if (!k.in_spec) continue;
      auto* n = s.Get(k.key);
      if (!n) continue;
      std::vector<PartitionValues> values;
      auto add = [&](const toml::node& e) -> Status {
        std::optional<std::string> text = KnobText(e);
        if (!text) return s.Error(e, k.key, "values must be strings such as \"50%\" or \"512M\", or integers");
        if (text->empty()) return s.Error(e, k.key, "has an empty value");
        PartitionValues one;
        REAM_RETURN_IF_ERROR(AddKnobValue(s, k, *text, static_cast<int>(e.source().begin.line), &one));
        values.push_back(std::move(one));
        return Status::Ok();
      };
      if (const toml::array* a = n->as_array()) {
        if (a->empty()) return s.Error(*n, k.key, "is an empty list");
        for (const auto& e : *a) REAM_RETURN_IF_ERROR(add(e));
      } else {
        REAM_RETURN_IF_ERROR(add(*n));
      }
      std::vector<PartitionValues> next;
      for (const auto& base : acc) {
        for (const auto& v : values) {
          PartitionValues p = base;
          p.knobs[k.key] = v.knobs.at(k.key);
          p.lines[k.key] = v.lines.at(k.key);
          p.values[k.key] = v.values.at(k.key);
          next.push_back(std::move(p));
        }
      }
      acc = std::move(next);
      if (acc.size() > 10000) return s.Error(*n, k.key, "makes more than 10000 partitions");
    }
    *out = std::move(acc);
  }
  std::set<std::string> labels;
  for (const auto& p : *out) {
    if (!labels.insert(p.Label()).second) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.table().source().begin.line) +
                             ": [partitions] lists partition " + p.Label() + " twice");
    }
  }
  if (out->empty()) out->push_back({});
  return Status::Ok();
}

// One [sensitivity] table: the knob (a [partitions] key of `knobs`) and its values, each parsed
// by the knob's own parser. InvalidArgument naming the key, the value and its line otherwise.
Status ParseSensitivity(const TomlSection& s, const KnobTable& knobs, SensitivitySpec* out,
                        std::vector<PartitionValues>* values) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  out->line = static_cast<int>(s.table().source().begin.line);
  const std::string where = s.source() + ":" + std::to_string(out->line) + ": [sensitivity] ";
  const toml::node* kn = s.Get("knob");
  if (!kn) return InvalidArgument(where + "needs 'knob' (the [partitions] key to vary, e.g. \"net_overhead\")");
  REAM_RETURN_IF_ERROR(s.String("knob", &out->knob));
  const Knob* knob = knobs.Find(out->knob);
  if (!knob || !knob->in_spec) {
    std::string known;
    for (const auto& k : knobs.SpecKeys()) known += (known.empty() ? "" : ", ") + k;
    return s.Error(*kn, "knob", "is \"" + out->knob + "\": no such knob (the knobs: " + known + ")");
  }
  if (!knob->limits) {
    return s.Error(*kn, "knob", "is \"" + out->knob + "\": it qualifies other knobs and limits nothing, so "
                                "there is no sensitivity to it");
  }
  const toml::node* vn = s.Get("values");
  if (!vn) return InvalidArgument(where + "needs 'values' (the settings of " + out->knob + " to sweep)");
  const toml::array* a = vn->as_array();
  if (!a || a->empty()) return s.Error(*vn, "values", "must be a non-empty array of " + out->knob + " settings");
  std::set<std::string> seen;
  for (const auto& e : *a) {
    std::optional<std::string> text = KnobText(e);
    if (!text || text->empty()) {
      return s.Error(e, "values", "must be strings such as \"5us\" or \"50%\", or integers");
    }
    const int line = static_cast<int>(e.source().begin.line);
    auto v = knob->parse(*text, knob->key);
    if (!v.ok()) {
      return InvalidArgument(s.source() + ":" + std::to_string(line) + ": sensitivity.values = \"" + *text +
                             "\" (knob " + knob->key + "): " + v.status().message());
    }
    if (!seen.insert(*text).second) {
      return InvalidArgument(s.source() + ":" + std::to_string(line) + ": sensitivity.values lists \"" + *text +
                             "\" twice");
    }
    PartitionValues one;
    one.knobs[knob->key] = *text;
    one.lines[knob->key] = line;
    one.values[knob->key] = {knob, *v};
    values->push_back(std::move(one));
    out->values.push_back(*text);
  }
  return Status::Ok();
}

// The partitions of a sensitivity sweep: every base ([partitions]' partitions, or the
// unlimited default) with each table's knob at each of its values. A base that sets the swept
// knob itself is an error: the sweep, not the base, decides it.
Status ExpandSensitivity(const std::string& source, const std::vector<SensitivitySpec>& tables,
                         const std::vector<std::vector<PartitionValues>>& values,
                         std::vector<PartitionValues>* partitions) {
  std::vector<PartitionValues> out;
  for (size_t t = 0; t < tables.size(); ++t) {
    for (const auto& base : *partitions) {
      if (base.knobs.count(tables[t].knob)) {
        return InvalidArgument(source + ":" + std::to_string(base.lines.at(tables[t].knob)) + ": partitions." +
                               tables[t].knob + " is also the knob [sensitivity] (line " +
                               std::to_string(tables[t].line) + ") varies; leave it out of [partitions]");
      }
      for (const auto& v : values[t]) {
        PartitionValues p = base;
        const std::string& key = tables[t].knob;
        p.knobs[key] = v.knobs.at(key);
        p.lines[key] = v.lines.at(key);
        p.values[key] = v.values.at(key);
        out.push_back(std::move(p));
      }
    }
  }
  std::set<std::string> labels;
  for (const auto& p : out) {
    if (!labels.insert(p.Label()).second) {
      return InvalidArgument(source + ": [sensitivity] makes partition " + p.Label() +
                             " twice (two tables sweep the same knob over the same value)");
    }
  }
  if (out.size() > 10000) return InvalidArgument(source + ": [sensitivity] makes more than 10000 partitions");
  *partitions = std::move(out);
  return Status::Ok();
}

}  // namespace ream
