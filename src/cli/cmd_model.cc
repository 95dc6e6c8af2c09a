// `ream model`: the second seed's queueing model of an experiment alone — the fitted queue,
// its Table 5.1 of the mean and of the tail over the operating range (measured vs model), and
// the predicted LogGP sensitivities beside the measured ones; JSON with --json.
#include <iostream>

#include "cli/analysis_input.h"
#include "cli/commands.h"
#include "report/reporter.h"

namespace ream::cli {
namespace {

int RunModel(const AnalyzeOptions& o) {
  auto platform = MakePosixPlatform();
  auto l = LoadAndAnalyze("model", o, *platform);
  if (!l) return 1;
  auto reporter = o.json ? report::MakeModelJsonReporter() : report::MakeModelReporter();
  Status s = reporter->Report({&l->data, &l->analysis}, std::cout);
  if (!s.ok()) {
    std::cerr << "ream model: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddModelCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand(
      "model", "The queueing model of an experiment: measured vs modeled regressions and predicted sensitivities");
  AddAnalysisInputOptions(sub, opts.get());
  sub->add_flag("--json", opts->json, "Print the model as JSON (each group's model and the predicted sensitivities)");
  commands.push_back({sub, [opts] { return RunModel(*opts); }});
}

}  // namespace ream::cli
