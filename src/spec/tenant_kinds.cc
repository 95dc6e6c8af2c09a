#include "spec/tenant_kinds.h"

#include <algorithm>
#include <memory>

#include "batch/batch.h"
#include "spec/spec.h"
#include "platform/text.h"
#include "spec/toml_section.h"
#include "pressure/pressure.h"
#include "workloads/builtins.h"

namespace ream {
namespace {

// command = [...]: any program; "{port}" is its port when it serves a load of its own.
Status ParseCommand(const TomlSection& s, const std::string& me, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.StringList("command", &c->command));
  if (c->command.empty()) return InvalidArgument(me + "'command' needs the program and its arguments");
  return Status::Ok();
}
std::vector<std::string> CommandArgv(const CorunnerSpec& c, const TenantStart& at) {
  std::vector<std::string> argv;
  for (const std::string& a : c.command) argv.push_back(FillPlaceholders(a, {{"{port}", std::to_string(at.port)}}));
  return argv;
}

// batch = "NAME": a program of ream's batch suite, run to completion, sized to batch_seconds.
Status ParseBatch(const TomlSection& s, const std::string&, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.String("batch", &c->batch));
  REAM_RETURN_IF_ERROR(s.Number("batch_seconds", &c->batch_seconds, 0.1, 3600));
  return Status::Ok();
}
std::vector<std::string> BatchArgv(const CorunnerSpec& c, const TenantStart& at) {
  return {at.ream, "batch", c.batch, "--seconds", Fmt("%.6g", c.batch_seconds)};
}
Status CheckBatch(Platform& p, const CorunnerSpec& c) {
  const batch::BatchProgram* prog = batch::FindBatchProgram(c.batch);
  if (!prog) return InvalidArgument("batch = \"" + c.batch + "\" is not a program of `ream batch --list`");
  return batch::ResolveProgram(p, *prog).status();
}
Status PrepareBatch(Platform& p, const CorunnerSpec& c) {
  // A helper built with ream, where the co-runner's user can reach it (batch/batch.h).
  if (const batch::BatchProgram* prog = batch::FindBatchProgram(c.batch)) return batch::PublishHelper(p, *prog);
  return Status::Ok();
}
void DescribeBatch(const CorunnerSpec& c, nlohmann::json* j) {
  (*j)["batch"] = c.batch;
  (*j)["batch_seconds"] = c.batch_seconds;
}

// pressure = "SOURCE", intensity = P: one of ream's sources of interference at P %, run until
// its sandbox stops it (SIGTERM, which `ream pressure` handles).
Status ParsePressure(const TomlSection& s, const std::string& me, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.String("pressure", &c->pressure));
  if (auto source = pressure::ParseSource(c->pressure); !source.ok()) {
    return s.Error(*s.Get("pressure"), "pressure", source.status().message());
  }
  if (!s.Get("intensity")) return InvalidArgument(me + "pressure = \"" + c->pressure + "\" needs 'intensity' (0-100, %)");
  return s.Number("intensity", &c->intensity, 0, 100);
}
std::vector<std::string> PressureArgv(const CorunnerSpec& c, const TenantStart& at) {
  return {at.ream, "pressure", c.pressure, "--intensity", Fmt("%.6g", c.intensity)};
}
void DescribePressure(const CorunnerSpec& c, nlohmann::json* j) {
  (*j)["pressure"] = c.pressure;
  (*j)["intensity"] = c.intensity;
}

// builtin = "NAME", args = [...]: one of ream's servers; its port is the one it prints in its
// ready line (the subject's builtins do the same).
Status ParseBuiltin(const TomlSection& s, const std::string&, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.String("builtin", &c->builtin));
  REAM_RETURN_IF_ERROR(s.StringList("args", &c->args));
  if (!BuiltinWorkloads().Find(c->builtin)) {
    return s.Error(*s.Get("builtin"), "builtin",
                   "unknown builtin server (known: " + Join(BuiltinWorkloads().Names(), ", ") + ")");
  }
  return Status::Ok();
}
std::vector<std::string> BuiltinArgv(const CorunnerSpec& c, const TenantStart& at) {
  std::vector<std::string> argv = {at.ream, "serve", c.builtin, "--port", "0", "--threads",
                                   std::to_string(std::max(at.threads, 1))};
  if (at.listen_everywhere) argv.insert(argv.end(), {"--bind", "0.0.0.0"});
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  return argv;
}
std::string BuiltinSpeaks(const CorunnerSpec& c) {
  const BuiltinWorkload* w = BuiltinWorkloads().Find(c.builtin);
  return w ? w->protocol : std::string();
}
void DescribeBuiltin(const CorunnerSpec& c, nlohmann::json* j) { (*j)["builtin"] = c.builtin; }

std::string RunsCommand(const CorunnerSpec& c) { return c.command.empty() ? std::string() : c.command.front(); }
std::string RunsBatch(const CorunnerSpec& c) { return c.batch; }
std::string RunsPressure(const CorunnerSpec& c) { return c.pressure + Fmt(" %.0f%%", c.intensity); }
std::string RunsBuiltin(const CorunnerSpec& c) { return c.builtin; }

TenantKindTable MakeBuiltinTable() {
  TenantKindTable t;
  t.Add({.key = "command",
         .takes = "an argv array",
         .serves = true,
         .fills_port = true,
         .finds_program = true,
         .throughput_unit = "CPU-s/s",
         .parse = ParseCommand,
         .argv = CommandArgv,
         .runs = RunsCommand});
  t.Add({.key = "batch",
         .takes = "a program of `ream batch --list`",
         .own_keys = {"batch_seconds"},
         .completes = true,
         .throughput_unit = "completions/s",
         .parse = ParseBatch,
         .argv = BatchArgv,
         .check = CheckBatch,
         .prepare = PrepareBatch,
         .describe = DescribeBatch,
         .runs = RunsBatch});
  t.Add({.key = "pressure",
         .takes = "a source of interference: " + pressure::SourceNames(),
         .own_keys = {"intensity"},
         .default_ready_line = pressure::kReadyLine,
         .throughput_unit = "CPU-s/s",
         .parse = ParsePressure,
         .argv = PressureArgv,
         .describe = DescribePressure,
         .runs = RunsPressure});
  t.Add({.key = "builtin",
         .takes = "one of ream's servers, with [corunner.load]",
         .own_keys = {"args"},
         .serves = true,
         .needs_load = true,
         .runs_in_vm = true,
         .readiness = TenantReadiness::kPrintsPort,
         .throughput_unit = "CPU-s/s",
         .parse = ParseBuiltin,
         .argv = BuiltinArgv,
         .speaks = BuiltinSpeaks,
         .describe = DescribeBuiltin,
         .runs = RunsBuiltin});
  return t;
}

}  // namespace

std::string TenantKind::Label(const CorunnerSpec& c) const {
  const std::string what = runs ? runs(c) : std::string();
  return what.empty() ? key : key + " " + what;
}

void TenantKindTable::Add(TenantKind k) {
  rows_.push_back(std::make_unique<TenantKind>(std::move(k)));
  order_.push_back(rows_.back().get());
}

const TenantKind* TenantKindTable::Find(std::string_view key) const {
  for (const TenantKind* k : order_) {
    if (k->key == key) return k;
  }
  return nullptr;
}

std::vector<std::string> TenantKindTable::SpecKeys() const {
  std::vector<std::string> keys;
  for (const TenantKind* k : order_) {
    keys.push_back(k->key);
    for (const auto& own : k->own_keys) {
      if (std::find(keys.begin(), keys.end(), own) == keys.end()) keys.push_back(own);
    }
  }
  return keys;
}

std::string TenantKindTable::Choices() const {
  std::string s;
  for (size_t i = 0; i < order_.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == order_.size() ? " and " : ", ") + ("'" + order_[i]->key + "' (" + order_[i]->takes + ")");
  }
  return s;
}

const TenantKindTable& BuiltinTenantKinds() {
  static const TenantKindTable table = MakeBuiltinTable();
  return table;
}

}  // namespace ream
