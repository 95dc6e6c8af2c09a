#include "campaign/slurm.h"

#include "platform/text.h"

namespace ream {

std::vector<std::string> SbatchArrayArgv(const std::string& dir, const std::string& job_name,
                                         const std::vector<int>& indices, const SlurmSubmitOptions& o) {
  std::string array = FormatCpuList(indices);
  if (o.max_parallel > 0) array += "%" + std::to_string(o.max_parallel);
  // --exclusive: a unit measures a whole host (no other job's load beside it). The output file
  // is opened for appending, so a resubmitted unit keeps the earlier attempt's log.
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + job_name, "--array=" + array,
                                   "--exclusive"};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.constraint.empty()) argv.push_back("--constraint=" + o.constraint);
  if (!o.exclude.empty()) argv.push_back("--exclude=" + Join(o.exclude, ","));
  for (std::string a : {"--output=" + dir + "/units/%a/slurm.out", std::string("--open-mode=append"),
                        "--chdir=" + dir, dir + "/unit.sh"}) {
    argv.push_back(a);
  }
  return argv;
}

std::vector<std::string> SbatchMergeArgv(const std::string& dir, const std::string& job_name,
                                         const std::string& array_job_id, const SlurmSubmitOptions& o) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + job_name,
                                   "--dependency=afterany:" + array_job_id};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  for (std::string a : {"--output=" + dir + "/merge.out", std::string("--open-mode=append"), "--chdir=" + dir,
                        dir + "/merge.sh"}) {
    argv.push_back(a);
  }
  return argv;
}

Result<std::string> ParseSbatchParsable(const std::string& out) {
  const std::string line = Trim(out.substr(0, out.find('\n')));
  const std::string id = line.substr(0, line.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return Unavailable("sbatch printed '" + Trim(out) + "', not a job id");
  }
  return id;
}

std::vector<std::string> SqueueArgv(const std::vector<std::string>& job_ids) {
  return {"squeue", "-h", "-r", "-j", Join(job_ids, ","), "-o", "%i|%T|%r|%N"};
}

std::map<std::string, SlurmTask> ParseSqueue(const std::string& out) {
  std::map<std::string, SlurmTask> tasks;
  for (const std::string& line : Split(out, '\n')) {
    std::vector<std::string> f = Split(line, '|', /*skip_empty=*/false);
    if (f.size() < 4 || Trim(f[0]).empty()) continue;
    SlurmTask t{Trim(f[0]), Trim(f[1]), Trim(f[2]), Trim(f[3]), ""};
    tasks[t.id] = t;
  }
  return tasks;
}

std::vector<std::string> ScontrolShowJobArgv(const std::string& id) { return {"scontrol", "-o", "show", "job", id}; }

std::optional<SlurmTask> ParseScontrolJob(const std::string& out) {
  std::map<std::string, std::string> kv;
  for (const std::string& field : Split(Trim(out.substr(0, out.find('\n'))), ' ')) {
    const size_t eq = field.find('=');
    if (eq != std::string::npos) kv.emplace(field.substr(0, eq), field.substr(eq + 1));
  }
  if (!kv.count("JobId") || !kv.count("JobState")) return std::nullopt;
  SlurmTask t;
  t.id = kv.count("ArrayTaskId") && kv.count("ArrayJobId") ? kv["ArrayJobId"] + "_" + kv["ArrayTaskId"] : kv["JobId"];
  t.state = kv["JobState"];
  t.reason = kv["Reason"];
  t.node = kv["NodeList"] == "(null)" ? "" : kv["NodeList"];
  t.exit_code = kv["ExitCode"];
  return t;
}

bool SlurmStateFailed(const std::string& state) {
  for (const char* s : {"CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
                        "DEADLINE"}) {
    if (state.rfind(s, 0) == 0) return true;
  }
  return false;
}

Result<CommandResult> SlurmClient::Call(const std::vector<std::string>& argv) {
  auto r = p_.Run(argv, std::chrono::seconds(30));
  if (!r.ok()) {
    return Unavailable("running " + argv[0] + ": " + r.status().message() +
                       " (Slurm's client commands, Debian's slurm-client, must be installed and configured here)");
  }
  return r;
}

Result<std::string> SlurmClient::Submit(const std::vector<std::string>& argv) {
  REAM_ASSIGN_OR_RETURN(CommandResult r, Call(argv));
  if (r.exit_code != 0) return Unavailable(Join(argv) + " failed: " + Trim(r.err + r.out));
  return ParseSbatchParsable(r.out);
}

Result<std::map<std::string, SlurmTask>> SlurmClient::Queue(const std::vector<std::string>& job_ids) {
  if (job_ids.empty()) return std::map<std::string, SlurmTask>{};
  REAM_ASSIGN_OR_RETURN(CommandResult r, Call(SqueueArgv(job_ids)));
  // squeue fails when none of the ids is known any more ("Invalid job id specified"): nothing
  // is queued then.
  if (r.exit_code != 0) {
    if ((r.err + r.out).find("Invalid job id") != std::string::npos) return std::map<std::string, SlurmTask>{};
    return Unavailable(Join(SqueueArgv(job_ids)) + " failed: " + Trim(r.err + r.out));
  }
  return ParseSqueue(r.out);
}

Result<std::optional<SlurmTask>> SlurmClient::Show(const std::string& id) {
  REAM_ASSIGN_OR_RETURN(CommandResult r, Call(ScontrolShowJobArgv(id)));
  if (r.exit_code != 0) {
    const std::string said = r.err + r.out;
    if (said.find("not found") != std::string::npos || said.find("Invalid job id") != std::string::npos) {
      return std::optional<SlurmTask>();
    }
    return Unavailable(Join(ScontrolShowJobArgv(id)) + " failed: " + Trim(r.err + r.out));
  }
  return ParseScontrolJob(r.out);
}

Status SlurmClient::Cancel(const std::vector<std::string>& ids) {
  if (ids.empty()) return Status::Ok();
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  REAM_ASSIGN_OR_RETURN(CommandResult r, Call(argv));
  if (r.exit_code != 0) return Unavailable(Join(argv) + " failed: " + Trim(r.err + r.out));
  return Status::Ok();
}

}  // namespace ream
