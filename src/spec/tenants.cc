// The spec's tenants: the subject's [workload] and its neighbours ([[corunner]] with their
// variants and [corunner.load], [colocation], [interference]), over spec/toml_section.h.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

#include <toml++/toml.h>

#include "batch/batch.h"
#include "load/session_schedule.h"
#include "platform/text.h"
#include "pressure/pressure.h"
#include "protocol/registry.h"
#include "spec/sections.h"
#include "spec/spec.h"
#include "spec/tenant_kinds.h"
#include "spec/tenant_places.h"
#include "spec/toml_section.h"
#include "workloads/builtins.h"

namespace ream {

Status ParseWorkload(const TomlSection& s, WorkloadSpec* w) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  w->line = static_cast<int>(s.table().source().begin.line);
  const std::vector<std::string> builtins = BuiltinWorkloads().Names();
  REAM_RETURN_IF_ERROR(s.OneOf("builtin", &w->builtin, builtins));
  REAM_RETURN_IF_ERROR(s.StringList("args", &w->args));
  REAM_RETURN_IF_ERROR(s.StringList("command", &w->command));
  REAM_RETURN_IF_ERROR(s.String("protocol", &w->protocol));
  REAM_RETURN_IF_ERROR(s.Int("port", &w->port, 0, 65535));
  std::string ready = ToString(w->ready);
  REAM_RETURN_IF_ERROR(s.OneOf("ready", &ready, {"port", "line"}));
  w->ready = *ReadyByFromString(ready);
  REAM_RETURN_IF_ERROR(s.String("ready_line", &w->ready_line));
  REAM_RETURN_IF_ERROR(s.Duration("ready_timeout", &w->ready_timeout,
                                  std::chrono::milliseconds(100), std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.Int("threads", &w->threads, 0, 1024));
  std::string restart = ToString(w->restart);
  REAM_RETURN_IF_ERROR(s.OneOf("restart", &restart, {"sweep", "point"}));
  w->restart = *RestartEveryFromString(restart);
  REAM_RETURN_IF_ERROR(s.String("user", &w->user));
  REAM_RETURN_IF_ERROR(s.String("batch", &w->batch));
  REAM_RETURN_IF_ERROR(s.Number("batch_seconds", &w->batch_seconds, 0.1, 3600));
  const std::string where = s.source() + ":" + std::to_string(w->line) + ": [workload] ";
  if (s.Get("batch_seconds") && w->batch.empty()) {
    return InvalidArgument(where + "batch_seconds applies to a batch subject (batch = \"NAME\")");
  }
  if (!w->batch.empty()) {
    if (!w->builtin.empty() || !w->command.empty()) {
      return InvalidArgument(where + "needs exactly one of 'builtin', 'command' and 'batch'");
    }
    if (!batch::FindBatchProgram(w->batch)) {
      return InvalidArgument(where + "batch = \"" + w->batch + "\" is not a batch program (known: " +
                             batch::BatchProgramNames() + ")");
    }
    // A batch program serves no requests and runs one thread per copy: the server keys say
    // nothing about it.
    for (const char* key : {"args", "protocol", "port", "ready", "ready_line", "threads", "restart"}) {
      if (s.Get(key)) {
        return InvalidArgument(where + key + " is for a server; a batch subject runs `ream batch " + w->batch +
                               "` in each copy (its load is [sweep] copies)");
      }
    }
    if (s.Get("user") && (w->user.empty() || w->user.find_first_of(" \t\n/:") != std::string::npos)) {
      return InvalidArgument(where + "user \"" + w->user + "\" is not an account name");
    }
    return Status::Ok();
  }
  if (s.table().contains("user") &&
      (w->user.empty() || w->user.find_first_of(" \t\n/:") != std::string::npos)) {
    return InvalidArgument(where + "user \"" + w->user +
                           "\" is not an account name (\"ream\", \"nobody\", or \"root\" to keep ream's privileges)");
  }
  if (w->builtin.empty() == w->command.empty()) {
    std::string names;
    for (size_t i = 0; i < builtins.size(); ++i) {
      names += (i == 0 ? "" : i + 1 == builtins.size() ? " or " : ", ") + ("\"" + builtins[i] + "\"");
    }
    return InvalidArgument(where + "needs exactly one of 'builtin' (" + names + "), 'command' (an argv array) and "
                                   "'batch' (a program of `ream batch --list`)");
  }
  if (!w->builtin.empty()) {
    // Each builtin speaks its own protocol (ream's; nginx's HTTP for "stream"): the default.
    const std::string& speaks = BuiltinWorkloads().Find(w->builtin)->protocol;
    if (!s.Get("protocol")) w->protocol = speaks;
    if (w->protocol != speaks) {
      return InvalidArgument(where + "a builtin server speaks protocol \"" + speaks + "\" (builtin \"" + w->builtin +
                             "\"), not \"" + w->protocol + "\"");
    }
  }
  if (!w->command.empty()) {
    if (!w->args.empty()) {
      return InvalidArgument(where + "'args' is for a builtin; put arguments in 'command'");
    }
    bool has_placeholder = std::any_of(w->command.begin(), w->command.end(), [](const std::string& a) {
      return a.find("{port}") != std::string::npos;
    });
    if (w->port == 0 && !has_placeholder) {
      return InvalidArgument(where + "an external command needs 'port' (where it listens) or a "
                                     "\"{port}\" placeholder in 'command'");
    }
    if (w->ready == ReadyBy::kLine && w->ready_line.empty()) {
      return InvalidArgument(where + "ready = \"line\" needs 'ready_line' (text the command "
                                     "prints on stdout when it is ready)");
    }
  }
  return Status::Ok();
}

namespace {

// The co-runner keys beside the knob table's.
// The keys of every [[corunner]]; its kind's keys (spec/tenant_kinds.h) come beside them.
const std::vector<std::string> kCorunnerKeys = {"name",          "cpus",   "sched", "restart", "ready_line",
                                                "ready_timeout", "settle", "user",  "load",    "sandbox",
                                                "address"};

}  // namespace

// A batch subject: its load is copies, its window [load] warmup and duration; the request
// keys of [load] and the server-only sections have nothing to act on, so they are refused.
Status CheckBatchSubject(const TomlSection& top, const ExperimentSpec& spec) {
  const std::string at = spec.source + ": [workload] batch = \"" + spec.workload.batch + "\": ";
  if (spec.sweep.axis != LoadAxis::kCopies) {
    return InvalidArgument(at + "a batch subject's load is its concurrent copies: give [sweep] copies = [1, 2] "
                                "(not qps or sessions levels)");
  }
  if (const toml::node* l = top.Get("load"); l && l->is_table()) {
    for (const auto& [key, node] : *l->as_table()) {
      if (key.str() != "warmup" && key.str() != "duration") {
        return InvalidArgument(at + "[load] " + std::string(key.str()) +
                               " sets request load levels, which a batch subject has none of; only [load] warmup "
                               "and duration (the point's window) apply");
      }
    }
  }
  for (const char* section : {"qos", "model", "nodes"}) {
    if (top.Get(section)) {
      return InvalidArgument(at + "[" + section + "] is for a server under request load; a batch subject is judged "
                                  "by its run time and throughput");
    }
  }
  if (spec.sandbox.kind != "process") {
    return InvalidArgument(at + "[sandbox] kind = \"" + spec.sandbox.kind + "\" cannot run batch copies yet");
  }
  return Status::Ok();
}

namespace {

Status ParseCorunner(const TomlSection& s, const KnobTable& knobs, const TenantKindTable& kinds, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  c->line = static_cast<int>(s.table().source().begin.line);
  const std::string at = s.source() + ":" + std::to_string(c->line) + ": [[corunner]] ";
  REAM_RETURN_IF_ERROR(s.String("name", &c->name));
  if (c->name.empty() || c->name.find_first_of(" \t\n+/,") != std::string::npos || c->name == "alone") {
    return InvalidArgument(at + "needs a 'name' without spaces, '+', '/' or ',' (and not \"alone\"), which "
                                "names it in sets, messages and the results");
  }
  const std::string me = at.substr(0, at.size() - 1) + " '" + c->name + "': ";
  // Its kind: the one row whose key it gives (spec/tenant_kinds.h).
  int given = 0;
  for (const TenantKind* k : kinds.rows()) {
    if (!s.Get(k->key)) continue;
    ++given;
    c->kind = k;
  }
  if (given != 1) return InvalidArgument(me + "needs exactly one of " + kinds.Choices());
  // Another kind's own keys have nothing to act on here.
  for (const TenantKind* k : kinds.rows()) {
    for (const std::string& own : k->own_keys) {
      const bool mine = std::find(c->kind->own_keys.begin(), c->kind->own_keys.end(), own) != c->kind->own_keys.end();
      if (!mine && s.Get(own)) {
        return InvalidArgument(me + "'" + own + "' belongs to '" + k->key + "'; this co-runner is a '" + c->kind->key +
                               "'");
      }
    }
  }
  REAM_RETURN_IF_ERROR(c->kind->parse(s, me, c));
  REAM_RETURN_IF_ERROR(s.String("sandbox", &c->sandbox));
  if (auto where = ParseTenantPlace(c->sandbox); !where.ok()) {
    return s.Error(*s.Get("sandbox"), "sandbox", where.status().message());
  }
  REAM_RETURN_IF_ERROR(s.String("address", &c->address));
  if (const toml::node* l = s.Get("load")) {
    if (!l->is_table()) return s.Error(*l, "load", "must be a table ([corunner.load])");
    if (!c->kind->serves) {
      return InvalidArgument(me + "[corunner.load] drives a server: a '" + c->kind->key + "' co-runner generates its "
                                  "own work");
    }
    TomlSection ls(*l->as_table(), "corunner.load", s.source(), {"qps", "connections", "protocol"});
    REAM_RETURN_IF_ERROR(ls.Unknown());
    CorunnerLoadSpec load;
    load.line = static_cast<int>(l->source().begin.line);
    if (!ls.Get("qps")) return InvalidArgument(me + "[corunner.load] needs 'qps' (requests per second)");
    REAM_RETURN_IF_ERROR(ls.Number("qps", &load.qps, 1, 1e8));
    REAM_RETURN_IF_ERROR(ls.Int("connections", &load.connections, 1, 10000));
    REAM_RETURN_IF_ERROR(ls.String("protocol", &load.protocol));
    if (const std::string speaks = c->kind->speaks ? c->kind->speaks(*c) : std::string(); !speaks.empty()) {
      if (load.protocol.empty()) load.protocol = speaks;
      if (load.protocol != speaks) {
        return InvalidArgument(me + "[corunner.load] protocol \"" + load.protocol + "\": its server speaks \"" +
                               speaks + "\"");
      }
    } else if (load.protocol.empty()) {
      return InvalidArgument(me + "[corunner.load] needs 'protocol' for a " + c->kind->key + " (one of: " +
                             Join(ClientCodecNames(), ", ") + ")");
    }
    const auto names = ClientCodecNames();
    if (std::find(names.begin(), names.end(), load.protocol) == names.end()) {
      return InvalidArgument(me + "[corunner.load] protocol \"" + load.protocol + "\" is not one ream speaks (" +
                             Join(names, ", ") + ")");
    }
    if (c->kind->fills_port) {
      // Its argv's "{port}" is where it serves (ream fills in a free port and loads it there).
      if (c->kind->argv(*c, {"ream", 1, 1}) == c->kind->argv(*c, {"ream", 2, 1})) {
        return InvalidArgument(me + "[corunner.load] needs the " + c->kind->key + " to serve on \"{port}\" (ream "
                                    "fills in a free port and loads it there)");
      }
    }
    c->load = load;
  } else if (c->kind->needs_load) {
    // A server as a neighbour is only useful under a load of its own: refused rather than run
    // idle.
    return InvalidArgument(me + c->kind->key + " needs [corunner.load] (qps = N): an idle server is no neighbour");
  }
  if (!s.Get("ready_line")) c->ready_line = c->kind->default_ready_line;
  if (!s.Get("restart")) c->restart = c->kind->completes;
  REAM_RETURN_IF_ERROR(s.Bool("restart", &c->restart));
  REAM_RETURN_IF_ERROR(s.String("cpus", &c->cpus));
  if (c->cpus != "subject" && c->cpus != "others" && c->cpus != "siblings") {
    auto list = ParseCpuList(c->cpus);
    if (!list.ok() || list->empty()) {
      return s.Error(*s.Get("cpus"), "cpus", "must be \"subject\", \"others\", \"siblings\" or a CPU list such as \"0,2-3\"");
    }
  }
  std::string sched = ToString(c->sched);
  REAM_RETURN_IF_ERROR(s.OneOf("sched", &sched, {"normal", "batch", "idle"}));
  c->sched = *SchedClassFromString(sched);
  REAM_RETURN_IF_ERROR(s.String("ready_line", &c->ready_line));
  REAM_RETURN_IF_ERROR(s.Duration("ready_timeout", &c->ready_timeout, std::chrono::milliseconds(100),
                                  std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.Duration("settle", &c->settle, std::chrono::milliseconds(0),
                                  std::chrono::milliseconds(60000)));
  REAM_RETURN_IF_ERROR(s.String("user", &c->user));
  if (s.table().contains("user") && (c->user.empty() || c->user.find_first_of(" \t\n/:") != std::string::npos)) {
    return InvalidArgument(me + "user \"" + c->user + "\" is not an account name");
  }
  Status knob_error = ParsePartitionValues(s, knobs, &c->partition);
  if (!knob_error.ok()) return InvalidArgument("[[corunner]] '" + c->name + "': " + knob_error.message());
  return Status::Ok();
}

// [interference] sources × intensities as co-runners "SOURCE@P", each a set of its own (after
// the sets of the spec's own co-runners, which [colocation] or its default already chose).
Status ParseInterference(const TomlSection& top, const TenantKindTable& kinds, ExperimentSpec* spec) {
  auto pct = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  Status err;
  const toml::table* t = top.Table("interference", &err);
  REAM_RETURN_IF_ERROR(err);
  if (!t) return Status::Ok();
  const std::string& source = top.source();
  TomlSection s(*t, "interference", source, {"sources", "intensities", "cpus", "sched", "load"});
  REAM_RETURN_IF_ERROR(s.Unknown());
  InterferenceSpec& in = spec->interference;
  in.line = static_cast<int>(t->source().begin.line);
  const std::string at = source + ":" + std::to_string(in.line) + ": [interference] ";
  if (!spec->workload.batch.empty()) {
    return InvalidArgument(at + "profiles a server under request load; a batch subject has no QoS to tolerate by");
  }
  if (spec->colocation.line && !spec->colocation.alone) {
    return InvalidArgument(at + "needs the subject measured alone (the 0 % of every curve): [colocation] alone = "
                                "false leaves it out");
  }
  std::vector<int> lines;
  REAM_RETURN_IF_ERROR(s.StringList("sources", &in.sources, &lines));
  if (in.sources.empty()) {
    return InvalidArgument(at + "needs 'sources', a non-empty list of " + pressure::SourceNames());
  }
  for (size_t i = 0; i < in.sources.size(); ++i) {
    if (auto src = pressure::ParseSource(in.sources[i]); !src.ok()) {
      return InvalidArgument(source + ":" + std::to_string(lines[i]) + ": [interference] sources: " +
                             src.status().message());
    }
    if (std::count(in.sources.begin(), in.sources.end(), in.sources[i]) > 1) {
      return InvalidArgument(at + "sources lists \"" + in.sources[i] + "\" twice");
    }
  }
  const toml::node* ints = s.Get("intensities");
  if (!ints) {
    in.intensities = {25, 50, 75, 100};
  } else {
    const toml::array* a = ints->as_array();
    if (!a || a->empty()) return s.Error(*ints, "intensities", "must be a non-empty array of percentages (0-100)");
    for (const auto& e : *a) {
      std::optional<double> v = e.value<double>();
      if (!v || *v < 0 || *v > 100) return s.Error(e, "intensities", "must hold percentages from 0 to 100");
      if (*v == 0) continue;  // the subject alone, measured anyway
      if (std::find(in.intensities.begin(), in.intensities.end(), *v) != in.intensities.end()) {
        return s.Error(e, "intensities", "lists " + pct(*v) + " twice");
      }
      in.intensities.push_back(*v);
    }
    if (in.intensities.empty()) return s.Error(*ints, "intensities", "needs an intensity above 0 (0 is the subject alone)");
    std::sort(in.intensities.begin(), in.intensities.end());
  }
  REAM_RETURN_IF_ERROR(s.String("cpus", &in.cpus));
  if (in.cpus != "subject" && in.cpus != "others" && in.cpus != "siblings") {
    auto list = ParseCpuList(in.cpus);
    if (!list.ok() || list->empty()) {
      return s.Error(*s.Get("cpus"), "cpus", "must be \"subject\", \"others\", \"siblings\" or a CPU list such as \"0,2-3\"");
    }
  }
  std::string sched = ToString(in.sched);
  REAM_RETURN_IF_ERROR(s.OneOf("sched", &sched, {"normal", "batch", "idle"}));
  in.sched = *SchedClassFromString(sched);
  REAM_RETURN_IF_ERROR(s.Number("load", &in.load, 0, 1e9));
  for (const std::string& src : in.sources) {
    for (double p : in.intensities) {
      CorunnerSpec c;
      c.name = src + "@" + pct(p);
      if (spec->FindCorunner(c.name)) {
        return InvalidArgument(at + "its co-runner \"" + c.name + "\" has the name of a [[corunner]]; rename that one");
      }
      // A source of interference is a co-runner of the pressure kind by definition.
      c.kind = kinds.Find("pressure");
      if (!c.kind) return InvalidArgument(at + "needs the 'pressure' tenant kind, which this table has not");
      c.pressure = src;
      c.intensity = p;
      c.cpus = in.cpus;
      c.sched = in.sched;
      c.ready_line = pressure::kReadyLine;
      c.interference = true;
      c.interference_load = in.load;
      c.line = in.line;
      spec->corunners.push_back(c);
      spec->colocation.sets.push_back({c.name});
    }
  }
  return Status::Ok();
}

// A [[corunner]]'s variants: each a table with single values and its label "KEY=VALUE;...".
using Variants = std::vector<std::pair<toml::table, std::string>>;

// The product of `variants` with the values of `list` (the key `key`, `what` in messages): each
// variant's table with `set` applied to one value, which returns that value's text for the
// label, or nullopt when the value is not one of `kinds`.
Status Multiply(Variants* variants, const std::string& source, const std::string& what, const std::string& key,
                const toml::array& list,
                const std::function<std::optional<std::string>(toml::table&, const toml::node&)>& set,
                const std::string& kinds) {
  if (list.empty()) {
    return InvalidArgument(source + ":" + std::to_string(list.source().begin.line) + ": " + what + " is an empty list");
  }
  Variants next;
  for (const auto& [table, label] : *variants) {
    for (const auto& v : list) {
      toml::table one = table;
      std::optional<std::string> text = set(one, v);
      if (!text) {
        return InvalidArgument(source + ":" + std::to_string(v.source().begin.line) + ": " + what +
                               ": the values of a list must be " + kinds);
      }
      next.emplace_back(std::move(one), label + (label.empty() ? "" : ";") + key + "=" + *text);
    }
  }
  *variants = std::move(next);
  return Status::Ok();
}

}  // namespace

Status ParseCorunners(const TomlSection& top, const KnobTable& knobs, const TenantKindTable& kinds,
                      ExperimentSpec* spec) {
  const std::string& source = top.source();
  // The [[corunner]] tables' names in order (a varied one once, by its base name).
  std::vector<std::string> bases;
  if (const toml::node* n = top.Get("corunner")) {
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables()) {
      return top.Error(*n, "corunner", "must be tables ([[corunner]]), one per co-runner");
    }
    std::vector<std::string> keys = kCorunnerKeys;
    for (const auto& k : kinds.SpecKeys()) keys.push_back(k);
    for (const auto& k : knobs.SpecKeys()) keys.push_back(k);
    // The keys whose value may be a list: the co-runner's knobs and its scheduling class.
    std::vector<std::string> variable = knobs.SpecKeys();
    variable.push_back("sched");
    std::set<std::string> names;
    for (const auto& e : *a) {
      const toml::table& t = *e.as_table();
      // A knob (or sched) given as a list makes one co-runner per value (the product over such
      // keys), each named NAME@KEY=VALUE[;KEY=VALUE...]: "which partition protects the subject"
      // is then one experiment, each variant a set of its own where [colocation] names NAME.
      Variants variants = {{t, ""}};
      for (const std::string& key : variable) {
        const toml::node* n = t.get(key);
        if (!n || !n->is_array()) continue;
        REAM_RETURN_IF_ERROR(Multiply(&variants, source, "[[corunner]] " + key, key, *n->as_array(),
                                      [&](toml::table& one, const toml::node& v) -> std::optional<std::string> {
                                        std::optional<std::string> text = KnobText(v);
                                        if (!text) return std::nullopt;
                                        if (v.is_integer()) one.insert_or_assign(key, *v.value<int64_t>());
                                        else one.insert_or_assign(key, *text);
                                        return text;
                                      },
                                      "strings such as \"50%\", or integers"));
      }
      // [corunner.load] qps as a list: the neighbour at each rate, PARTIES' question of how much
      // load it carries while both keep their QoS.
      if (const toml::table* load = t.get_as<toml::table>("load"); load && load->get_as<toml::array>("qps")) {
        REAM_RETURN_IF_ERROR(Multiply(&variants, source, "[corunner.load] qps", "qps", *load->get_as<toml::array>("qps"),
                                      [&](toml::table& one, const toml::node& v) -> std::optional<std::string> {
                                        if (!v.is_integer() && !v.is_floating_point()) return std::nullopt;
                                        toml::table l = *load;
                                        l.insert_or_assign("qps", *v.value<double>());
                                        one.insert_or_assign("load", std::move(l));
                                        return Fmt("%g", *v.value<double>());
                                      },
                                      "numbers"));
      }
      bases.push_back(t.get_as<std::string>("name") ? t.get_as<std::string>("name")->get() : std::string());
      for (const auto& [table, label] : variants) {
        CorunnerSpec c;
        REAM_RETURN_IF_ERROR(ParseCorunner(TomlSection(table, "corunner", source, keys), knobs, kinds, &c));
        c.line = static_cast<int>(t.source().begin.line);
        if (!label.empty()) {
          spec->corunner_variants[c.name].push_back(c.name + "@" + label);
          c.name += "@" + label;
        }
        if (!names.insert(c.name).second) {
          return InvalidArgument(source + ":" + std::to_string(c.line) + ": [[corunner]] name \"" + c.name +
                                 "\" is used twice");
        }
        spec->corunners.push_back(std::move(c));
      }
    }
  }
  // A set's names, each varied co-runner replaced by its variants: one set per combination.
  auto expand = [&](const std::vector<std::string>& set) {
    std::vector<std::vector<std::string>> out(1);
    for (const std::string& name : set) {
      auto it = spec->corunner_variants.find(name);
      std::vector<std::string> alts = it == spec->corunner_variants.end() ? std::vector<std::string>{name} : it->second;
      std::vector<std::vector<std::string>> next;
      for (const auto& base : out) {
        for (const auto& alt : alts) {
          next.push_back(base);
          next.back().push_back(alt);
        }
      }
      out = std::move(next);
    }
    return out;
  };
  Status err;
  if (const toml::table* t = top.Table("colocation", &err)) {
    TomlSection s(*t, "colocation", source, {"alone", "sets"});
    REAM_RETURN_IF_ERROR(s.Unknown());
    spec->colocation.line = static_cast<int>(t->source().begin.line);
    if (spec->corunners.empty()) {
      return InvalidArgument(source + ":" + std::to_string(spec->colocation.line) +
                             ": [colocation] needs at least one [[corunner]]");
    }
    REAM_RETURN_IF_ERROR(s.Bool("alone", &spec->colocation.alone));
    if (const toml::node* sets = s.Get("sets")) {
      const toml::array* a = sets->as_array();
      if (!a || a->empty()) return s.Error(*sets, "sets", "must be a non-empty array of arrays of co-runner names");
      std::set<std::string> labels;
      for (const auto& e : *a) {
        const toml::array* names = e.as_array();
        if (!names || names->empty()) {
          return s.Error(e, "sets", "must hold arrays of co-runner names, such as [[\"cache\"], [\"cache\", \"stream\"]]");
        }
        std::vector<std::string> set;
        for (const auto& n : *names) {
          auto name = n.value<std::string>();
          if (!name) return s.Error(n, "sets", "must hold co-runner names (strings)");
          if (!spec->FindCorunner(*name) && !spec->corunner_variants.count(*name)) {
            std::string known;
            for (const auto& c : spec->corunners) known += (known.empty() ? "" : ", ") + c.name;
            return s.Error(n, "sets", "names \"" + *name + "\", which is no [[corunner]] (there are: " + known + ")");
          }
          if (std::find(set.begin(), set.end(), *name) != set.end()) {
            return s.Error(n, "sets", "lists \"" + *name + "\" twice in one set");
          }
          set.push_back(*name);
        }
        for (auto& one : expand(set)) {
          spec->colocation.sets.push_back(std::move(one));
          if (!labels.insert(spec->colocation.Label(spec->colocation.sets.size() - 1)).second) {
            return s.Error(e, "sets", "lists the set " + spec->colocation.Label(spec->colocation.sets.size() - 1) +
                                           " twice");
          }
        }
      }
    }
  }
  REAM_RETURN_IF_ERROR(err);
  if (!spec->corunners.empty() && spec->colocation.sets.empty()) {
    // Every co-runner together; a varied one by its base name, so that each of its variants
    // makes a set of its own.
    spec->colocation.sets = expand(bases);
  }
  REAM_RETURN_IF_ERROR(ParseInterference(top, kinds, spec));
  // Beside a subject on another host, a co-runner shares that host (CPUs named "subject" and
  // "others" are that host's): one here would share nothing of the subject's.
  if (!spec->nodes.workload_host.empty()) {
    for (auto& c : spec->corunners) {
      if (c.address.empty()) c.address = spec->nodes.workload_address;
      if (c.sandbox != "ssh:" + spec->nodes.workload_host) {
        return InvalidArgument(source + ":" + std::to_string(c.line) + ": [[corunner]] '" + c.name +
                               "' runs beside a subject on ssh:" + spec->nodes.workload_host +
                               " ([nodes] workload): give it sandbox = \"ssh:" + spec->nodes.workload_host +
                               "\" so that it shares the subject's host");
      }
    }
  }
  if (!spec->corunners.empty() && spec->sweep.axis == LoadAxis::kSessions) {
    return InvalidArgument(source + ": [[corunner]] with [sweep] axis = \"sessions\" is not supported yet");
  }
  // A co-runner under a load of its own is driven by a second generator on the generator's CPUs,
  // which yields on every turn of its spin; the subject's generator then waits the same way
  // unless [load] wait says otherwise. Spinning before each send (wait = "sleep"), it lost the CPU
  // to the other generator often enough here that every shared point at 20 000 QPS was invalid by
  // lateness; both yielding, every one was valid (6 Dec 2026).
  bool loaded = false;
  for (const auto& c : spec->corunners) loaded = loaded || c.load.has_value();
  if (loaded) {
    Status none;
    const toml::table* l = top.Table("load", &none);
    if (!l || !l->contains("wait")) spec->load.wait = "yield";
  }
  return Status::Ok();
}

}  // namespace ream
