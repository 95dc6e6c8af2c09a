// What ream asks of Slurm for a campaign (experiment/campaign.h), through its commands: sbatch
// to submit a job array of units and the merge job after it, squeue and scontrol to follow them,
// scancel to stop them. The command lines and the parsers of their output are pure (tested on
// captured text); SlurmClient runs them. No accounting database is needed: squeue answers for
// the jobs queued or running, scontrol for those ended within the controller's MinJobAge, and
// each unit's own result file for the rest.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/status.h"

namespace ream {

struct SlurmSubmitOptions {
  std::string partition;            // --partition; "" : the cluster's default
  std::string constraint;           // --constraint: node features (hosts with CAT/MBA)
  std::vector<std::string> exclude;  // --exclude: hosts not to use
  int max_parallel = 0;             // the array's %K throttle; 0: none
};

// sbatch of the units' array: `indices` as Slurm's list ("0-3", "2,5"), each task running
// DIR/unit.sh with its index; its output appended to DIR/units/%a/slurm.out.
std::vector<std::string> SbatchArrayArgv(const std::string& dir, const std::string& job_name,
                                         const std::vector<int>& indices, const SlurmSubmitOptions& o);
// sbatch of DIR/merge.sh once every task of `array_job_id` has ended, however it ended.
std::vector<std::string> SbatchMergeArgv(const std::string& dir, const std::string& job_name,
                                         const std::string& array_job_id, const SlurmSubmitOptions& o);
// `sbatch --parsable` prints "JOBID" or "JOBID;CLUSTER".
Result<std::string> ParseSbatchParsable(const std::string& out);

// A job or array task as Slurm reports it.
struct SlurmTask {
  std::string id;      // "123_3" for an array's task, "124" for a job
  std::string state;   // PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, TIMEOUT, ...
  std::string reason;  // why it waits or ended: JobArrayTaskLimit, Dependency, None, ...
  std::string node;    // where it runs or ran; "" before
  std::string exit_code;  // "0:0" (scontrol only)
};

// `squeue -h -r -j IDS -o %i|%T|%r|%N`: one array task a line.
std::vector<std::string> SqueueArgv(const std::vector<std::string>& job_ids);
std::map<std::string, SlurmTask> ParseSqueue(const std::string& out);
// `scontrol -o show job ID`: the job on one line of KEY=VALUE pairs; nullopt when Slurm has no
// such job any more (its record is dropped MinJobAge after it ended, or it was cancelled before
// it started).
std::vector<std::string> ScontrolShowJobArgv(const std::string& id);
std::optional<SlurmTask> ParseScontrolJob(const std::string& out);
// Whether a state means the job ended without its work done.
bool SlurmStateFailed(const std::string& state);

// Runs Slurm's commands (each at most 30 s): the Unavailable status names the command and what
// it printed, and that Slurm's client commands must be installed and configured here.
class SlurmClient {
 public:
  explicit SlurmClient(Platform& p) : p_(p) {}
  // The job id sbatch printed.
  Result<std::string> Submit(const std::vector<std::string>& argv);
  // Every task of `job_ids` still queued or running, by id.
  Result<std::map<std::string, SlurmTask>> Queue(const std::vector<std::string>& job_ids);
  // One job or task that may have ended; nullopt when Slurm no longer knows it.
  Result<std::optional<SlurmTask>> Show(const std::string& id);
  Status Cancel(const std::vector<std::string>& ids);

 private:
  Result<CommandResult> Call(const std::vector<std::string>& argv);
  Platform& p_;
};

}  // namespace ream
