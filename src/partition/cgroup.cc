// Cgroup creation and removal on v1 and v2.
#include "partition/cgroup.h"

#include <algorithm>

namespace ream {

const std::vector<std::string>& Cgroup::V1Controllers() {
  // perf_event: where it is mounted, the monitor's LLC-miss estimate names the sandbox's
  // cgroup by its directory there (perf_event_open with PERF_FLAG_PID_CGROUP).
  static const std::vector<std::string> kControllers = {"cpuset", "cpu", "cpuacct", "memory",
                                                        "blkio", "perf_event"};
  return kControllers;
}

Result<std::unique_ptr<Cgroup>> Cgroup::Create(Platform& p, const CgroupLayout& layout,
                                               const std::string& name,
                                               const BeforeCreate& before_create) {
  if (layout.version == 0) {
    return Unsupported("no cgroup hierarchy is mounted (checked /proc/mounts)");
  }
  std::unique_ptr<Cgroup> cg(new Cgroup(p, layout.version, name));
  auto make = [&](const std::string& dir) -> Status {
    if (before_create) REAM_RETURN_IF_ERROR(before_create(dir));
    REAM_RETURN_IF_ERROR(p.MakeDir(dir).Annotate("creating cgroup"));
    cg->dirs_.push_back(dir);
    return Status::Ok();
  };
  if (layout.version == 2) {
    // Best effort: a controller that cannot be enabled makes its knob fail later, by name.
    for (const char* c : {"+cpuset", "+cpu", "+memory", "+io"}) {
      (void)p.WriteFile(layout.v2_root + "/cgroup.subtree_control", c);
    }
    Status s = make(layout.v2_root + "/" + name);
    if (!s.ok()) return s;
    return cg;
  }
  for (const auto& ctl : V1Controllers()) {
    std::string mount = layout.V1Mount(ctl);
    if (mount.empty()) continue;
    std::string dir = mount + "/" + name;
    if (std::find(cg->dirs_.begin(), cg->dirs_.end(), dir) == cg->dirs_.end()) {
      Status s = make(dir);
      if (!s.ok()) return s;  // ~Cgroup removes the directories already made
    }
    cg->v1_dirs_.emplace_back(ctl, dir);
    if (ctl == "cpuset") {
      // A new v1 cpuset is empty and refuses tasks until cpus and mems are set.
      for (const char* f : {"cpuset.mems", "cpuset.cpus"}) {
        auto parent = p.ReadFile(mount + "/" + f);
        if (!parent.ok()) return parent.status();
        Status s = p.WriteFile(dir + "/" + f, Trim(*parent));
        if (!s.ok()) return s.Annotate("initializing the cpuset cgroup");
      }
    }
  }
  return cg;
}

Result<std::unique_ptr<Cgroup>> Cgroup::OfProcess(Platform& p, const CgroupLayout& layout, int pid,
                                                 const std::function<bool(const std::string& leaf)>& parent_of) {
  const std::string file = "/proc/" + std::to_string(pid) + "/cgroup";
  REAM_ASSIGN_OR_RETURN(std::string text, p.ReadFile(file));
  std::unique_ptr<Cgroup> cg(new Cgroup(p, layout.version, ""));
  cg->observed_ = true;
  for (const std::string& line : Split(text, '\n')) {
    // hierarchy-id:controller,list:path (v2: "0::path")
    auto f = Split(line, ':', /*skip_empty=*/false);
    if (f.size() < 3) continue;
    std::string path = f[2];
    if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0 && parent_of &&
                                      parent_of(path.substr(slash + 1))) {
      path = path.substr(0, slash);
    }
    // A process at a hierarchy's root has no group of its own there: the root's figures would
    // be the whole host's.
    if (path == "/") continue;
    if (layout.version == 2) {
      if (f[0] != "0" || !f[1].empty()) continue;
      cg->dirs_.push_back(layout.v2_root + path);
      cg->name_ = path;
      break;
    }
    for (const auto& c : Split(f[1], ',')) {
      const std::string mount = layout.V1Mount(c);
      if (mount.empty() || std::find(V1Controllers().begin(), V1Controllers().end(), c) == V1Controllers().end()) {
        continue;
      }
      cg->v1_dirs_.emplace_back(c, mount + path);
      cg->dirs_.push_back(mount + path);
      if (c == "memory" || cg->name_.empty()) cg->name_ = path;
    }
  }
  if (cg->dirs_.empty()) return NotFound(file + " names no cgroup in a mounted hierarchy");
  return cg;
}

Cgroup::~Cgroup() {
  if (!destroyed_ && !observed_) (void)Destroy();
}

std::string Cgroup::Dir(const std::string& controller) const {
  if (version_ == 2) return dirs_.empty() ? "" : dirs_.front();
  for (const auto& [c, d] : v1_dirs_)
    if (c == controller) return d;
  return "";
}

Result<std::string> Cgroup::Read(const std::string& controller, const std::string& file) const {
  std::string dir = Dir(controller);
  if (dir.empty()) {
    return Unsupported("cgroup v1 controller '" + controller + "' is not mounted");
  }
  return p_.ReadFile(dir + "/" + file);
}

Status Cgroup::Write(const std::string& controller, const std::string& file,
                     const std::string& value) {
  std::string dir = Dir(controller);
  if (dir.empty()) {
    return Unsupported("cgroup v1 controller '" + controller + "' is not mounted");
  }
  if (version_ == 2 && !p_.Exists(dir + "/" + file)) {
    return Unsupported(dir + "/" + file + " does not exist: the v2 '" + controller +
                       "' controller is not enabled for ream's cgroups");
  }
  return p_.WriteFile(dir + "/" + file, value);
}

std::vector<std::string> Cgroup::ProcsFiles() const {
  std::vector<std::string> out;
  for (const auto& d : dirs_) out.push_back(d + "/cgroup.procs");
  return out;
}

std::vector<int> Cgroup::Pids() const {
  std::vector<int> out;
  for (const auto& d : dirs_) {
    auto procs = p_.ReadFile(d + "/cgroup.procs");
    if (!procs.ok()) continue;
    for (const auto& l : Split(*procs, '\n')) {
      int pid = std::atoi(l.c_str());
      if (pid > 0 && std::find(out.begin(), out.end(), pid) == out.end()) out.push_back(pid);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status Cgroup::Destroy() {
  if (observed_) return Status::Ok();  // another program's cgroup: it removes its own
  destroyed_ = true;
  Status first;
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
    Status s = RemoveCgroupDir(p_, *it);
    if (!s.ok() && first.ok()) first = s;
  }
  dirs_.clear();
  v1_dirs_.clear();
  return first;
}

Status RemoveCgroupDir(Platform& p, const std::string& dir) {
  if (!p.IsDirectory(dir)) return Status::Ok();
  auto entries = p.ListDir(dir);
  if (entries.ok()) {
    for (const auto& e : *entries) {
      if (e.is_dir) REAM_RETURN_IF_ERROR(RemoveCgroupDir(p, dir + "/" + e.name));
    }
  }
  Status last;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto procs = p.ReadFile(dir + "/cgroup.procs");
    if (procs.ok()) {
      for (const auto& l : Split(*procs, '\n')) {
        int pid = std::atoi(l.c_str());
        if (pid > 0) (void)p.Kill(pid, SIGKILL);
      }
    }
    last = p.RemoveDir(dir);
    if (last.ok() || last.code() == StatusCode::kNotFound) return Status::Ok();
    p.SleepFor(std::chrono::milliseconds(20));
  }
  return last.Annotate("removing cgroup " + dir + " (processes still inside?)");
}

}  // namespace ream
