// `ream batch NAME`: one copy of a batch program (batch/batch.h) run to completion on one thread
// on its generated input; `--list` names them, `--prepare` only generates the input.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "batch/batch.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/table.h"

namespace ream::cli {
namespace {

struct BatchFlags {
  std::string name;
  double seconds = batch::kDefaultSeconds;
  uint64_t seed = 1;
  std::string cache = std::string(batch::kDefaultCacheRoot);
  bool json = false;
  bool list = false;
  bool prepare = false;
};

int ListPrograms(Platform& p, bool json) {
  nlohmann::json out = nlohmann::json::array();
  Table t({"NAME", "SPEC", "CATEGORY", "PACKAGE", "INSTALLED", "SIZE AT 5 S"});
  for (const batch::BatchProgram& b : batch::BatchPrograms()) {
    auto found = batch::ResolveProgram(p, b);
    std::string size = std::to_string(b.size_for_default) + " " + b.size_unit;
    t.AddRow({b.name, b.spec, std::string(batch::CategoryName(b.category)), b.package, found.ok() ? "yes" : "no", size});
    out.push_back({{"name", b.name}, {"spec", b.spec}, {"category", batch::CategoryName(b.category)},
                   {"package", b.package}, {"program", found.ok() ? *found : b.program}, {"installed", found.ok()},
                   {"size_for_default", b.size_for_default}, {"size_unit", b.size_unit}});
  }
  if (json) std::cout << out.dump(2) << "\n";
  else t.Print(std::cout);
  return kExitDone;
}

int RunBatch(const BatchFlags& f) {
  auto platform = MakePosixPlatform();
  if (f.list) return ListPrograms(*platform, f.json);
  if (f.name.empty()) {
    std::cerr << "ream batch: name a program (" << batch::BatchProgramNames() << ") or give --list\n";
    return kExitBadInput;
  }
  const batch::BatchProgram* prog = batch::FindBatchProgram(f.name);
  if (!prog) {
    std::cerr << "ream batch: unknown program '" << f.name << "' (known: " << batch::BatchProgramNames() << ")\n";
    return kExitBadInput;
  }
  if (!(f.seconds > 0)) {
    std::cerr << "ream batch " << f.name << ": --seconds must be > 0\n";
    return kExitBadInput;
  }
  // A missing program is found before minutes of input generation, not after.
  if (auto found = batch::ResolveProgram(*platform, *prog); !found.ok()) {
    std::cerr << "ream batch " << f.name << ": " << found.status().message() << "\n";
    return kExitCouldNotRun;
  }
  auto input = batch::PrepareInput(*platform, *prog, {.seconds = f.seconds, .seed = f.seed, .cache_root = f.cache});
  if (!input.ok()) {
    std::cerr << "ream batch " << f.name << ": " << input.status().message() << "\n";
    return ExitCodeFor(input.status());
  }
  nlohmann::json j = {{"name", prog->name},
                      {"input", input->dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(input->dir)},
                      {"input_bytes", input->bytes},
                      {"size", input->size},
                      {"seed", f.seed}};
  if (f.prepare) {
    j["generated"] = input->generated;
    if (f.json) std::cout << j.dump() << "\n";
    else std::cout << prog->name << ": input " << (input->dir.empty() ? "(none needed)" : input->dir) << ", "
                   << input->bytes << " bytes" << (input->generated ? " (generated)" : " (cached)") << "\n";
    return kExitDone;
  }
  auto run = batch::RunBatchProgram(*platform, *prog, *input, f.seconds);
  if (!run.ok()) {
    std::cerr << "ream batch " << f.name << ": " << run.status().message() << "\n";
    return ExitCodeFor(run.status()) == kExitBadInput ? kExitCouldNotRun : ExitCodeFor(run.status());
  }
  j["seconds"] = run->seconds;
  j["exit"] = run->exit.ShellCode();
  if (f.json) std::cout << j.dump() << "\n";
  else std::printf("%s: %.3f s, %s, input %s (%llu bytes)\n", prog->name.c_str(), run->seconds,
                   run->exit.Describe().c_str(), input->dir.empty() ? "(none)" : input->dir.c_str(),
                   static_cast<unsigned long long>(input->bytes));
  std::fflush(stdout);
  if (run->exit.signaled || run->exit.exit_code != 0) {
    std::cerr << "ream batch " << f.name << ": " << prog->program << " " << run->exit.Describe()
              << "; its last lines of stderr:\n";
    for (const std::string& line : run->stderr_tail) std::cerr << "  " << line << "\n";
    return kExitCouldNotRun;
  }
  return kExitDone;
}

}  // namespace

void AddBatchCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<BatchFlags>();
  CLI::App* sub = app.add_subcommand("batch", "Run one copy of a batch program (SPEC CPU stand-in) to completion");
  sub->add_option("name", f->name, "The program (see --list)");
  sub->add_flag("--list", f->list, "List the programs, their SPEC benchmark, package and category");
  sub->add_option("--seconds", f->seconds, "Size the input for about this many seconds on the calibration machine")
      ->capture_default_str();
  sub->add_option("--seed", f->seed, "Seed of the generated input")->capture_default_str();
  sub->add_option("--cache", f->cache, "Directory of the generated inputs")->capture_default_str();
  sub->add_flag("--prepare", f->prepare, "Generate (or find) the input only, run nothing");
  sub->add_flag("--json", f->json, "Print the result as one JSON object");
  commands.push_back({sub, [f] { return RunBatch(*f); }});
}

}  // namespace ream::cli
