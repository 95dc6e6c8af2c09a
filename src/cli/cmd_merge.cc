// `ream merge OUT.db IN.db...`: results databases joined into one (store/merge.h): the units of
// a campaign, or runs of the same experiments made apart.
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "platform/platform.h"
#include "store/merge.h"

namespace ream::cli {
namespace {

struct MergeFlags {
  std::string out;
  std::vector<std::string> inputs;
};

int RunMerge(const MergeFlags& f) {
  auto platform = MakePosixPlatform();
  auto merged = MergeFiles(*platform, f.out, f.inputs);
  if (!merged.ok()) {
    std::cerr << "ream merge: " << merged.status().message() << "\n";
    return ExitCodeFor(merged.status());
  }
  const MergeReport& r = *merged;
  std::cerr << "ream merge: " << r.inputs << " database(s) into " << f.out << ": " << r.experiments_added
            << " experiment(s) added, " << r.experiments_joined << " joined; " << r.runs_added << " run(s) added ("
            << r.points_added << " point(s)), " << r.runs_already_there << " already there\n";
  return kExitDone;
}

}  // namespace

void AddMergeCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<MergeFlags>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge results databases into one: every run of every input, experiments joined by name and spec; "
               "merging again adds nothing");
  sub->add_option("out", f->out, "The output database (created, or added to; in one transaction)")->required();
  sub->add_option("inputs", f->inputs, "The databases to merge (read only; of this ream's schema version)")
      ->required();
  commands.push_back({sub, [f] { return RunMerge(*f); }});
}

}  // namespace ream::cli
