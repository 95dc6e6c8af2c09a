// `ream analyze`: an experiment from the results store as the first seed's findings —
// aligned tables, or JSON with --json.
#include <iostream>

#include "cli/analysis_input.h"
#include "cli/commands.h"
#include "report/reporter.h"

namespace ream::cli {
namespace {

int RunAnalyze(const AnalyzeOptions& o) {
  auto platform = MakePosixPlatform();
  auto l = LoadAndAnalyze("analyze", o, *platform);
  if (!l) return 1;
  auto reporter = o.json ? report::MakeJsonReporter() : report::MakeTextReporter();
  Status s = reporter->Report({&l->data, &l->analysis}, std::cout);
  if (!s.ok()) {
    std::cerr << "ream analyze: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand(
      "analyze",
      "QoS target, capacity, scaling, category, sensitivity and model fit of an experiment");
  AddAnalysisInputOptions(sub, opts.get());
  sub->add_flag("--json", opts->json, "Print the analysis as JSON");
  commands.push_back({sub, [opts] { return RunAnalyze(*opts); }});
}

}  // namespace ream::cli
