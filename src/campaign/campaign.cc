#include "campaign/campaign.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "experiment/run_events.h"
#include "platform/median.h"
#include "platform/text.h"
#include "remote/agent_session.h"
#include "spec/spec.h"
#include "store/store.h"

namespace ream {
namespace {

constexpr const char* kManifest = "campaign.json";

Result<nlohmann::json> ReadJson(Platform& p, const std::string& path) {
  REAM_ASSIGN_OR_RETURN(std::string text, p.ReadFile(path));
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corrupt(path + " is not JSON (was it cut short? the campaign's files are ream's own)");
  return j;
}

// Written whole or not at all: another command (status, a unit on another host) may read it.
Status WriteJson(Platform& p, const std::string& path, const nlohmann::json& j) {
  REAM_RETURN_IF_ERROR(p.WriteFile(path + ".tmp", j.dump(2) + "\n").Annotate("writing " + path + ".tmp"));
  return p.RenameFile(path + ".tmp", path).Annotate("moving " + path + ".tmp into place");
}

Status MakeDirIfAbsent(Platform& p, const std::string& dir) {
  Status s = p.MakeDir(dir);
  if (s.code() == StatusCode::kAlreadyExists) return Status::Ok();
  return s.Annotate("creating " + dir);
}

std::string ThisHost(Platform& p) { return Trim(p.ReadFile("/proc/sys/kernel/hostname").value_or("")); }

std::string FileSafe(const std::string& name) {
  std::string o;
  for (char ch : name) o.push_back(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' ? ch : '_');
  return o;
}

// The first attempt-K not taken in `unit_dir`.
std::string NextAttempt(Platform& p, const std::string& unit_dir) {
  for (int k = 1;; ++k) {
    const std::string a = unit_dir + "/attempt-" + std::to_string(k);
    if (!p.Exists(a + ".db") && !p.Exists(a + ".json")) return a;
  }
}

}  // namespace

nlohmann::json Campaign::ToJson() const {
  nlohmann::json specs_j = nlohmann::json::array(), units_j = nlohmann::json::array(),
                 subs_j = nlohmann::json::array();
  for (const auto& s : specs) {
    specs_j.push_back({{"file", s.file}, {"source", s.source}, {"name", s.name}, {"spec_hash", s.spec_hash}});
  }
  for (const auto& u : units) units_j.push_back(u.ToJson());
  for (const auto& s : submissions) {
    subs_j.push_back({{"array_job_id", s.array_job_id},
                      {"merge_job_id", s.merge_job_id},
                      {"indices", s.indices},
                      {"submitted_ns", s.submitted_ns}});
  }
  return {{"version", 1},
          {"id", id},
          {"created_ns", created_ns},
          {"ream", ream},
          {"slurm", options.slurm},
          {"options",
           {{"partition", options.submit.partition},
            {"constraint", options.submit.constraint},
            {"max_parallel", options.submit.max_parallel},
            {"exclude", options.submit.exclude},
            {"max_stall_fraction", options.max_stall_fraction}}},
          {"specs", specs_j},
          {"units", units_j},
          {"submissions", subs_j}};
}

Result<Campaign> Campaign::FromJson(const nlohmann::json& j, const std::string& dir) {
  Campaign c;
  c.dir = dir;
  try {
    if (j.at("version").get<int>() != 1) {
      return InvalidArgument(dir + "/" + kManifest + " is a campaign of another ream version (manifest version " +
                             j.at("version").dump() + ")");
    }
    c.id = j.at("id").get<std::string>();
    c.created_ns = j.at("created_ns").get<int64_t>();
    c.ream = j.at("ream").get<std::string>();
    c.options.slurm = j.at("slurm").get<bool>();
    const auto& o = j.at("options");
    c.options.submit.partition = o.at("partition").get<std::string>();
    c.options.submit.constraint = o.at("constraint").get<std::string>();
    c.options.submit.max_parallel = o.at("max_parallel").get<int>();
    c.options.submit.exclude = o.at("exclude").get<std::vector<std::string>>();
    c.options.max_stall_fraction = o.value("max_stall_fraction", 0.0);
    for (const auto& s : j.at("specs")) {
      c.specs.push_back({s.at("file").get<std::string>(), s.at("source").get<std::string>(),
                         s.at("name").get<std::string>(), s.at("spec_hash").get<std::string>()});
    }
    for (const auto& u : j.at("units")) {
      REAM_ASSIGN_OR_RETURN(CampaignUnit unit, CampaignUnit::FromJson(u));
      c.units.push_back(std::move(unit));
    }
    for (const auto& s : j.at("submissions")) {
      c.submissions.push_back({s.at("array_job_id").get<std::string>(), s.at("merge_job_id").get<std::string>(),
                               s.at("indices").get<std::vector<int>>(), s.at("submitted_ns").get<int64_t>()});
    }
  } catch (const nlohmann::json::exception& e) {
    return Corrupt(dir + "/" + kManifest + ": " + e.what());
  }
  return c;
}

Result<Campaign> CreateCampaign(Platform& p, const std::string& dir, const std::vector<std::string>& spec_paths,
                                const std::string& ream_binary, const CampaignOptions& options) {
  if (spec_paths.empty()) return InvalidArgument("a campaign needs at least one spec");
  std::vector<ExperimentSpec> specs;
  for (const auto& path : spec_paths) {
    REAM_ASSIGN_OR_RETURN(ExperimentSpec spec, LoadSpecFile(p, path));
    specs.push_back(std::move(spec));
  }
  REAM_ASSIGN_OR_RETURN(std::vector<CampaignUnit> units, SplitIntoUnits(specs));
  if (p.Exists(dir)) {
    REAM_ASSIGN_OR_RETURN(auto entries, p.ListDir(dir));
    if (!entries.empty()) {
      return InvalidArgument(dir + " is not empty: a campaign needs a directory of its own" +
                             (p.Exists(dir + "/" + kManifest) ? " (it holds one: ream campaign status " + dir + ")"
                                                               : std::string()));
    }
  } else {
    REAM_RETURN_IF_ERROR(MakeDirIfAbsent(p, dir));
  }
  Campaign c;
  REAM_ASSIGN_OR_RETURN(c.dir, p.RealPath(dir));
  c.created_ns = p.WallNanos();
  c.id = Fnv1aHex(c.dir + "@" + std::to_string(c.created_ns));
  c.ream = ream_binary;
  c.options = options;
  c.units = std::move(units);
  REAM_RETURN_IF_ERROR(MakeDirIfAbsent(p, c.dir + "/specs"));
  for (size_t i = 0; i < specs.size(); ++i) {
    Campaign::Spec s{"specs/" + std::to_string(i) + "-" + FileSafe(specs[i].name) + ".toml", spec_paths[i],
                     specs[i].name, Fnv1aHex(specs[i].text)};
    REAM_RETURN_IF_ERROR(p.WriteFile(c.dir + "/" + s.file, specs[i].text).Annotate("copying " + spec_paths[i]));
    c.specs.push_back(std::move(s));
  }
  REAM_RETURN_IF_ERROR(MakeDirIfAbsent(p, c.dir + "/units"));
  // Each unit's directory exists before Slurm opens the unit's output file in it.
  for (const auto& u : c.units) REAM_RETURN_IF_ERROR(MakeDirIfAbsent(p, c.UnitDir(u.index)));
  const std::string exec = "exec " + ShellQuote(c.ream) + " campaign ";
  for (auto [script, body] : {std::pair<std::string, std::string>{"unit.sh", exec + "run-unit " + ShellQuote(c.dir) +
                                                                                 " \"$SLURM_ARRAY_TASK_ID\""},
                              {"merge.sh", exec + "merge " + ShellQuote(c.dir)}}) {
    const std::string path = c.dir + "/" + script;
    REAM_RETURN_IF_ERROR(p.WriteFile(path, "#!/bin/sh\n# A Slurm job of ream campaign " + c.id + ".\n" + body + "\n")
                             .Annotate("writing " + path));
    REAM_RETURN_IF_ERROR(p.ChangeMode(path, 0755));
  }
  REAM_RETURN_IF_ERROR(SaveCampaign(p, c));
  return c;
}

Result<Campaign> LoadCampaign(Platform& p, const std::string& dir) {
  const std::string manifest = dir + "/" + kManifest;
  if (!p.Exists(manifest)) {
    return NotFound(dir + " holds no campaign (no " + kManifest + "); ream campaign submit makes one");
  }
  REAM_ASSIGN_OR_RETURN(std::string abs, p.RealPath(dir));
  REAM_ASSIGN_OR_RETURN(nlohmann::json j, ReadJson(p, manifest));
  return Campaign::FromJson(j, abs);
}

Status SaveCampaign(Platform& p, const Campaign& c) { return WriteJson(p, c.dir + "/" + kManifest, c.ToJson()); }

Result<std::optional<UnitResult>> ReadUnitResult(Platform& p, const Campaign& c, int index) {
  const std::string path = c.UnitDir(index) + "/result.json";
  if (!p.Exists(path)) return std::optional<UnitResult>();
  REAM_ASSIGN_OR_RETURN(nlohmann::json j, ReadJson(p, path));
  UnitResult r;
  r.code = j.value("status", std::string());
  r.ok = r.code == "ok";
  r.error = j.value("error", std::string());
  r.host = j.value("host", std::string());
  r.slurm_job_id = j.value("slurm_job_id", std::string());
  r.started_ns = j.value("started_ns", int64_t{0});
  r.finished_ns = j.value("finished_ns", int64_t{0});
  return std::optional<UnitResult>(r);
}

Status QuietHostVerdict(const TimingFloor& floor, double limit, const std::string& host, const std::string& dir) {
  const CpuTimingFloor* worst = nullptr;
  for (const auto& cpu : floor.cpus) {
    if (!worst || cpu.stalled_fraction > worst->stalled_fraction) worst = &cpu;
  }
  if (!worst || worst->stalled_fraction <= limit) return Status::Ok();
  return Unavailable("host " + host + " is noisy: CPU " + std::to_string(worst->cpu) + " was stalled " +
                     Fmt("%.2f", worst->stalled_fraction * 100) + " % of " + Fmt("%.1f", floor.duration_ns / 1e9) +
                     " s (gaps over " + Fmt("%.0f", floor.tolerance_ns / 1e3) + " us; the campaign allows " +
                     Fmt("%.2f", limit * 100) + " %); run the unit elsewhere: ream campaign resume " + dir +
                     " --exclude-host " + host);
}

Status RunUnit(Platform& p, const Campaign& c, int index, RunnerOptions base) {
  if (index < 0 || index >= static_cast<int>(c.units.size())) {
    return InvalidArgument("campaign " + c.dir + " has units 0 to " + std::to_string(c.units.size() - 1) +
                           ", not " + std::to_string(index));
  }
  const CampaignUnit& u = c.units[index];
  REAM_ASSIGN_OR_RETURN(auto earlier, ReadUnitResult(p, c, index));
  if (earlier && earlier->ok) return Status::Ok();
  const std::string dir = c.UnitDir(index), db = dir + "/unit.db";
  REAM_RETURN_IF_ERROR(MakeDirIfAbsent(p, dir));
  // An earlier attempt's database and result are kept aside, never merged: a run measured
  // partly on one host and partly on another would compare nothing.
  if (p.Exists(db) || earlier) {
    const std::string aside = NextAttempt(p, dir);
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {db, aside + ".db"}, {db + "-wal", aside + ".db-wal"}, {db + "-shm", aside + ".db-shm"},
             {dir + "/result.json", aside + ".json"}}) {
      if (p.Exists(from)) REAM_RETURN_IF_ERROR(p.RenameFile(from, to).Annotate("keeping an earlier attempt aside"));
    }
  }
  const std::string job = base.provenance.is_object() && base.provenance.contains("slurm")
                              ? base.provenance["slurm"].value("job_id", std::string())
                              : std::string();
  UnitResult r;
  r.host = ThisHost(p);
  r.slurm_job_id = job;
  r.started_ns = p.WallNanos();
  REAM_RETURN_IF_ERROR(WriteJson(p, dir + "/started.json",
                                 {{"host", r.host}, {"slurm_job_id", job}, {"started_ns", r.started_ns},
                                  {"pid", p.ProcessId()}}));
  const std::string label = "campaign unit " + std::to_string(index) + " of " + std::to_string(c.units.size()) +
                            " (" + u.Label() + ")";
  nlohmann::json quiet;  // what the quiet-host gate measured
  Status outcome = [&]() -> Status {
    const Campaign::Spec& s = c.specs.at(static_cast<size_t>(u.spec));
    REAM_ASSIGN_OR_RETURN(ExperimentSpec spec, LoadSpecFile(p, c.dir + "/" + s.file));
    if (Fnv1aHex(spec.text) != s.spec_hash) {
      return InvalidArgument(c.dir + "/" + s.file + " changed since the campaign was submitted; its units must all "
                             "measure the spec they were split from");
    }
    if (c.options.max_stall_fraction > 0) {
      // Every CPU of the host at once, at the spec's tolerance, before anything runs.
      REAM_ASSIGN_OR_RETURN(std::string online, p.ReadFile("/sys/devices/system/cpu/online"));
      REAM_ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpuList(Trim(online)));
      REAM_ASSIGN_OR_RETURN(TimingFloor floor,
                            MeasureTimingFloor(cpus, 300'000'000,
                                               std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   spec.load.timely_tolerance)
                                                   .count()));
      quiet = floor.ToJson();
      quiet["max_stall_fraction"] = c.options.max_stall_fraction;
      REAM_RETURN_IF_ERROR(QuietHostVerdict(floor, c.options.max_stall_fraction, r.host, c.dir));
    }
    RunnerOptions o = std::move(base);
    o.db_path = db;
    o.only_ordinals[spec.name] = std::set<int>(u.ordinals.begin(), u.ordinals.end());
    o.unit_note = label + "; the campaign's merged database (ream campaign merge " + c.dir + ") has the rest";
    if (!o.provenance.is_object()) o.provenance = nlohmann::json::object();
    o.provenance["ream_version"] = o.ream_version;
    o.provenance["ream_commit"] = o.ream_commit;
    o.provenance["campaign"] = c.id;
    o.provenance["unit"] = {{"index", index}, {"label", u.Label()}};
    REAM_ASSIGN_OR_RETURN(auto outcomes, RunExperiments(p, {spec}, o));
    for (const auto& oc : outcomes) {
      if (oc.interrupted) return Cancelled(label + " was interrupted before its runs ended");
    }
    return Status::Ok();
  }();
  r.finished_ns = p.WallNanos();
  r.ok = outcome.ok();
  nlohmann::json result = {{"status", r.ok ? std::string("ok") : std::string(StatusCodeName(outcome.code()))},
                           {"error", outcome.message()},
                           {"host", r.host},
                           {"slurm_job_id", job},
                           {"started_ns", r.started_ns},
                           {"finished_ns", r.finished_ns},
                           {"quiet", quiet}};
  Status written = WriteJson(p, dir + "/result.json", result);
  if (!outcome.ok()) return outcome;
  return written;
}

Result<MergeReport> MergeCampaign(Platform& p, const Campaign& c) {
  std::vector<std::string> inputs;
  std::map<std::string, std::pair<int, int>> done_of;  // experiment -> (units with a result, units)
  for (const auto& u : c.units) {
    REAM_ASSIGN_OR_RETURN(auto r, ReadUnitResult(p, c, u.index));
    auto& [done, all] = done_of[u.experiment];
    ++all;
    if (r && r->ok) {
      ++done;
      inputs.push_back(c.UnitDir(u.index) + "/unit.db");
    }
  }
  if (inputs.empty()) {
    return Unavailable("no unit of campaign " + c.dir + " has a result yet (ream campaign status " + c.dir + ")");
  }
  const std::string out = c.dir + "/merged.db";
  REAM_ASSIGN_OR_RETURN(MergeReport report, MergeFiles(p, out, inputs));
  // Each unit left its experiment partial (it ran a part); the merge says what the whole is.
  REAM_ASSIGN_OR_RETURN(Store store, Store::Open(out, false));
  for (const auto& [name, counts] : done_of) {
    REAM_ASSIGN_OR_RETURN(auto e, store.FindExperiment(name));
    if (!e) continue;
    const auto [done, all] = counts;
    if (done == all) {
      REAM_RETURN_IF_ERROR(store.SetExperimentStatus(e->id, ExperimentStatus::kComplete, "",
                                                     e->finished_ns ? *e->finished_ns : p.WallNanos()));
    } else {
      REAM_RETURN_IF_ERROR(store.SetExperimentStatus(
          e->id, ExperimentStatus::kPartial,
          std::to_string(all - done) + " of " + std::to_string(all) + " campaign units have no result; ream campaign "
                                                                      "resume " + c.dir + " runs them",
          e->finished_ns));
    }
  }
  return report;
}

Result<std::vector<UnitState>> CampaignStatus(Platform& p, const Campaign& c, SlurmClient* slurm) {
  // The latest submission of each unit, and what Slurm says of those.
  std::map<int, std::string> task_of;  // index -> "A_i"
  std::vector<std::string> arrays;
  for (const auto& s : c.submissions) {
    for (int i : s.indices) task_of[i] = s.array_job_id + "_" + std::to_string(i);
    arrays.push_back(s.array_job_id);
  }
  std::map<std::string, SlurmTask> queued;
  if (slurm && !arrays.empty()) {
    REAM_ASSIGN_OR_RETURN(queued, slurm->Queue(arrays));
  }
  // An embedded campaign's process, while it lives.
  bool embedded_alive = false;
  if (auto pid = p.ReadFile(c.dir + "/lock"); pid.ok()) {
    const int n = std::atoi(Trim(*pid).c_str());
    embedded_alive = n > 0 && p.Kill(n, 0).ok();
  }
  std::vector<UnitState> states;
  for (const auto& u : c.units) {
    UnitState st;
    st.index = u.index;
    st.label = u.Label();
    REAM_ASSIGN_OR_RETURN(auto r, ReadUnitResult(p, c, u.index));
    std::string started_host;
    if (auto started = ReadJson(p, c.UnitDir(u.index) + "/started.json"); started.ok()) {
      started_host = started->value("host", std::string());
    }
    auto task = task_of.find(u.index);
    auto q = task == task_of.end() ? queued.end() : queued.find(task->second);
    if (r && r->ok) {
      st.state = "done";
      st.host = r->host;
      st.seconds = static_cast<double>(r->finished_ns - r->started_ns) / 1e9;
    } else if (q != queued.end()) {
      const std::string& s = q->second.state;
      st.state = s == "PENDING" || s == "CONFIGURING" || s == "REQUEUED" ? "pending" : "running";
      st.why = "slurm: " + s + (q->second.reason.empty() || q->second.reason == "None" ? "" : " (" + q->second.reason + ")");
      st.host = q->second.node;
    } else if (r) {
      st.state = "failed";
      st.why = r->code + ": " + r->error;
      st.host = r->host;
    } else if (!slurm && embedded_alive && !started_host.empty()) {
      st.state = "running";
      st.host = started_host;
    } else if (task != task_of.end() && slurm) {
      REAM_ASSIGN_OR_RETURN(auto shown, slurm->Show(task->second));
      st.state = "failed";
      st.host = started_host;
      if (shown && SlurmStateFailed(shown->state)) {
        st.why = "slurm: " + shown->state + (shown->reason.empty() || shown->reason == "None" ? "" : " (" + shown->reason + ")");
        st.host = shown->node.empty() ? started_host : shown->node;
      } else if (shown) {
        st.why = "slurm: " + shown->state + ", and the unit left no result (see " + c.UnitDir(u.index) + "/slurm.out)";
      } else {
        st.why = "no result, and Slurm no longer knows job " + task->second +
                 " (cancelled before it started, or ended longer ago than the controller's MinJobAge; see " +
                 c.UnitDir(u.index) + "/slurm.out)";
      }
    } else if (!started_host.empty()) {
      st.state = "failed";
      st.host = started_host;
      st.why = "started on " + started_host + " and left no result (killed?)";
    } else {
      // Waiting for its turn in an embedded campaign that still runs; else never submitted.
      st.state = embedded_alive ? "pending" : "not-submitted";
    }
    states.push_back(std::move(st));
  }
  return states;
}

std::string CampaignProgress(const std::vector<UnitState>& states) {
  std::map<std::string, int> n;
  std::vector<double> took;
  for (const auto& s : states) {
    ++n[s.state];
    if (s.state == "done" && s.seconds) took.push_back(*s.seconds);
  }
  std::string line = std::to_string(n["done"]) + "/" + std::to_string(states.size()) + " done, " +
                     std::to_string(n["running"]) + " running, " + std::to_string(n["pending"]) + " pending, " +
                     std::to_string(n["failed"]) + " failed";
  if (n["not-submitted"]) line += ", " + std::to_string(n["not-submitted"]) + " not submitted";
  const int left = n["running"] + n["pending"];
  if (left == 0) return line;
  if (took.empty()) return line + "; time left unknown until a unit is done";
  // The units left, at the median unit's time, as many at once as run now.
  const double seconds = left * Median(took) / std::max(1, n["running"]);
  return line + "; about " + HumanSeconds(seconds) + " left";
}

}  // namespace ream
