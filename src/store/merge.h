// `ream merge`: results databases joined into one — the units of a campaign (experiment/
// campaign.h), each holding some runs of the same experiments, or any databases of one schema
// version.
//
// Lossless: every run, point, histogram, timeline, manager window and action, and host
// environment of every input is in the output. Idempotent and order-free: an experiment is joined by name (its spec must be the same
// text, else the merge is refused, naming both files), a run by its key (scenario, partition,
// repetition, co-runner set; one already there must hold the same contents, else refused), and
// the experiment's few aggregate columns are set by rules of a set (status: the worst; created:
// the earliest; finished: the latest), so merging again adds nothing and any order of the inputs
// gives the same rows (CanonicalRows). One transaction: a merge that fails or is killed leaves
// the output as it was.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/status.h"
#include "store/store.h"

namespace ream {

struct MergeReport {
  int inputs = 0;
  int experiments_added = 0;   // new in the output
  int experiments_joined = 0;  // already there (same name and spec)
  int runs_added = 0;
  int runs_already_there = 0;  // the same run with the same contents: nothing to add
  int points_added = 0;
};

struct MergeOptions {
  // Called after each run copied, with the number copied so far (tests kill the merge here).
  std::function<void(int runs_copied)> after_run;
};

// Merges the databases at `inputs` into `out`, in one transaction. Every input must be a ream
// results database of `out`'s schema version (kStoreSchemaVersion; an input of another is
// refused, naming both files: merge with the ream that wrote it, or migrate it first). Inputs are
// opened read-only and never written.
Result<MergeReport> MergeInto(Store& out, const std::vector<std::string>& inputs, const MergeOptions& options = {});

// The whole command: `out_path` may exist (it must then be at kStoreSchemaVersion: it is not
// migrated silently) or not (the merge is then written to `out_path.partial-PID` and renamed
// into place once complete, so a kill leaves no output at all). Refuses an input that is the
// output, and reads an input named twice once.
Result<MergeReport> MergeFiles(Platform& p, const std::string& out_path, const std::vector<std::string>& inputs,
                               const MergeOptions& options = {});

// Every row of `db` (at kStoreSchemaVersion) as one JSON text, sorted, the table's name first
// and surrogate ids replaced by natural keys (an experiment's name; a run's key; a point's
// level and attempt): two databases hold the same results exactly when these are equal.
Result<std::vector<std::string>> CanonicalRows(sql::Database& db);

}  // namespace ream
