// State files and the removal of recorded objects.
#include "sandbox/state.h"

#include <algorithm>
#include <atomic>

#include "partition/cgroup.h"
#include "partition/resctrl.h"

namespace ream {
namespace {


// "Cannot find device", "No such file": the object is gone, which is what removal wants.
bool Gone(const CommandResult& r) {
  const std::string& e = r.err;
  return e.find("Cannot find device") != std::string::npos ||
         e.find("No such file") != std::string::npos ||
         e.find("does not exist") != std::string::npos ||
         e.find("Cannot delete qdisc with handle of zero") != std::string::npos ||
         e.find("Invalid handle") != std::string::npos ||
         e.find("Cannot open network namespace") != std::string::npos;
}

Status RunRemoval(Platform& p, const std::vector<std::string>& argv) {
  auto r = p.Run(argv, kSandboxCommandTimeout);
  if (!r.ok()) return r.status();
  if (r->exit_code == 0 || Gone(*r)) return Status::Ok();
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return IoError("'" + cmd + "': " + r->Describe());
}

int KindOrder(const std::string& kind) {
  // Removal order: a vm's domain first (it holds its tap on the bridge and its files), then
  // shaping, links, namespaces, resctrl, cgroups.
  if (kind == "domain") return -1;
  if (kind == "qdisc") return 0;
  if (kind == "veth" || kind == "bridge") return 1;
  if (kind == "netns") return 2;
  if (kind == "resctrl") return 3;
  if (kind == "cgroup") return 4;
  return 5;
}

// Files and directories are removed only when their own name starts with "ream-".
Status NamedReam(const StateEntry& e, const char* what) {
  std::string base = e.id.substr(e.id.rfind('/') + 1);
  if (base.rfind("ream-", 0) == 0) return Status::Ok();
  return InvalidArgument("refusing to remove " + std::string(what) + " '" + e.id + "' (not named ream-*)");
}

}  // namespace

Result<std::string> OwnerLine(Platform& p, int pid) {
  auto stat = p.ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return stat.status();
  // Field 22 (starttime) counts from after the ")" that closes the command name.
  auto close = stat->rfind(')');
  if (close == std::string::npos) return Corrupt("unexpected /proc/" + std::to_string(pid) + "/stat");
  auto f = Split(stat->substr(close + 1), ' ');
  if (f.size() < 20) return Corrupt("unexpected /proc/" + std::to_string(pid) + "/stat");
  return "owner " + std::to_string(pid) + " " + f[19];
}

bool OwnerAlive(Platform& p, const std::string& owner_line) {
  auto f = Split(Trim(owner_line), ' ');
  if (f.size() != 3 || f[0] != "owner") return false;
  auto now = OwnerLine(p, std::atoi(f[1].c_str()));
  return now.ok() && *now == Trim(owner_line);
}

Result<std::unique_ptr<StateFile>> StateFile::Create(Platform& p, const std::string& dir,
                                                     const std::string& name) {
  if (!p.IsDirectory(dir)) {
    Status s = p.MakeDir(dir);
    if (!s.ok() && s.code() != StatusCode::kAlreadyExists) {
      return s.Annotate("creating ream's state directory");
    }
  }
  REAM_ASSIGN_OR_RETURN(std::string owner, OwnerLine(p, p.ProcessId()));
  std::string path = dir + "/" + name + ".state";
  REAM_RETURN_IF_ERROR(p.WriteFile(path, owner + "\n").Annotate("writing the state file"));
  return std::unique_ptr<StateFile>(new StateFile(p, path));
}

Status StateFile::Record(const std::string& kind, const std::string& id) {
  REAM_RETURN_IF_ERROR(p_.AppendFile(path_, kind + " " + id + "\n").Annotate("recording " + kind));
  entries_.push_back({kind, id});
  return Status::Ok();
}

Status StateFile::Remove() {
  Status s = p_.RemoveFile(path_);
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  return s;
}

Status RemoveStateObject(Platform& p, const StateEntry& e) {
  if (e.kind == "cgroup") {
    if (e.id.find("/ream-") == std::string::npos) {
      return InvalidArgument("refusing to remove cgroup '" + e.id + "' (not named ream-*)");
    }
    return RemoveCgroupDir(p, e.id);
  }
  if (e.kind == "resctrl") {
    if (e.id.find("/ream-") == std::string::npos) {
      return InvalidArgument("refusing to remove resctrl group '" + e.id + "'");
    }
    return RemoveResctrlDir(p, e.id);
  }
  if (e.kind == "statsdir" || e.kind == "scratchdir" || e.kind == "tmpdir") {
    // A directory the workload wrote (libream-overhead.so's statistics; its private TMPDIR)
    // or ream's own (its ssh sessions' stderr): removed whole, without following the links a
    // workload may have planted in it.
    REAM_RETURN_IF_ERROR(NamedReam(e, "directory"));
    Status s = p.RemoveTreeNoFollow(e.id);
    return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
  }
  if (e.kind == "vmfile") {
    // The vm sandbox's saved guest state and console log (sandbox/vm_sandbox.h).
    REAM_RETURN_IF_ERROR(NamedReam(e, "file"));
    Status s = p.RemoveFile(e.id);
    return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
  }
  if (e.id.rfind("ream", 0) != 0) {
    return InvalidArgument("refusing to remove " + e.kind + " '" + e.id + "' (not named ream*)");
  }
  if (e.kind == "domain") {
    // A transient libvirt domain: destroying it is removing it. "failed to get domain" when it
    // is already gone.
    auto r = p.Run({"virsh", "-q", "-c", "qemu:///system", "destroy", e.id}, kSandboxCommandTimeout);
    if (!r.ok()) return r.status();
    if (r->exit_code == 0 || r->err.find("failed to get domain") != std::string::npos ||
        r->err.find("not running") != std::string::npos) {
      return Status::Ok();
    }
    return IoError("'virsh destroy " + e.id + "': " + r->Describe());
  }
  if (e.kind == "bridge") return RunRemoval(p, {"ip", "link", "delete", e.id});
  if (e.kind == "netns") return RunRemoval(p, {"ip", "netns", "delete", e.id});
  if (e.kind == "veth") return RunRemoval(p, {"ip", "link", "delete", e.id});
  if (e.kind == "qdisc") {
    auto slash = e.id.find('/');
    if (slash == std::string::npos) return RunRemoval(p, {"tc", "qdisc", "del", "dev", e.id, "root"});
    return RunRemoval(p, {"tc", "-n", e.id.substr(0, slash), "qdisc", "del", "dev",
                          e.id.substr(slash + 1), "root"});
  }
  return InvalidArgument("unknown object kind '" + e.kind + "' in a state file");
}

std::vector<Status> RemoveStateObjects(Platform& p, const std::vector<StateEntry>& entries) {
  std::vector<Status> errors;
  // Kill every process first so nothing holds a namespace or respawns into a group.
  for (const auto& e : entries) {
    if (e.kind != "cgroup" || !p.IsDirectory(e.id)) continue;
    for (const auto& l : Split(p.ReadFile(e.id + "/cgroup.procs").value_or(""), '\n')) {
      int pid = std::atoi(l.c_str());
      if (pid > 0) (void)p.Kill(pid, 9);
    }
  }
  std::vector<StateEntry> order(entries.rbegin(), entries.rend());
  std::stable_sort(order.begin(), order.end(), [](const StateEntry& a, const StateEntry& b) {
    return KindOrder(a.kind) < KindOrder(b.kind);
  });
  for (const auto& e : order) {
    Status s = RemoveStateObject(p, e);
    if (!s.ok()) errors.push_back(s);
  }
  return errors;
}

Result<std::unique_ptr<ScratchDir>> ScratchDir::Create(Platform& p, const std::string& state_dir,
                                                      const std::string& base, const std::string& prefix) {
  static std::atomic<int> next{0};
  const std::string pid = std::to_string(p.ProcessId()), n = std::to_string(++next);
  const std::string path = (base.empty() ? std::string("/tmp") : base) + "/" + prefix + "-" + pid + "-" + n;
  REAM_ASSIGN_OR_RETURN(auto state, StateFile::Create(p, state_dir.empty() ? kDefaultStateDir : state_dir,
                                                      pid + "-scratch" + n));
  Status s = state->Record("scratchdir", path);
  if (s.ok()) s = p.MakeDir(path);
  if (!s.ok() && s.code() != StatusCode::kAlreadyExists) {
    (void)state->Remove();
    return s.Annotate("scratch directory " + path);
  }
  return std::unique_ptr<ScratchDir>(new ScratchDir(p, path, std::move(state)));
}

ScratchDir::~ScratchDir() {
  if (RemoveStateObject(p_, {"scratchdir", path_}).ok()) (void)state_->Remove();
}

CleanupReport CleanupDeadRuns(Platform& p, const std::string& dir) {
  CleanupReport report;
  auto files = p.ListDir(dir);
  if (!files.ok()) return report;
  for (const auto& f : *files) {
    if (f.is_dir || f.name.size() < 7 || f.name.substr(f.name.size() - 6) != ".state") continue;
    std::string path = dir + "/" + f.name;
    auto text = p.ReadFile(path);
    if (!text.ok()) continue;
    auto lines = Split(*text, '\n');
    if (!lines.empty() && OwnerAlive(p, lines[0])) {
      ++report.live_runs;
      continue;
    }
    ++report.dead_runs;
    std::vector<StateEntry> entries;
    for (size_t i = 1; i < lines.size(); ++i) {
      auto sp = lines[i].find(' ');
      if (sp == std::string::npos) continue;
      entries.push_back({lines[i].substr(0, sp), Trim(lines[i].substr(sp + 1))});
    }
    auto errors = RemoveStateObjects(p, entries);
    for (const auto& e : entries) report.removed.push_back(e.kind + " " + e.id);
    for (const auto& e : errors) report.errors.push_back(e.message());
    if (errors.empty()) {
      // Gone already: another cleanup (a `ream run` starting clears dead runs too) got there
      // first, which is the end wanted (seen in a make test beside a second suite's ream run).
      Status s = p.RemoveFile(path);
      if (!s.ok() && s.code() != StatusCode::kNotFound) report.errors.push_back(s.message());
    }
  }
  return report;
}

}  // namespace ream
