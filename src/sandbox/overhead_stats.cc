// Reading libream-overhead.so's statistics (sandbox/overhead_stats.h).
#include "sandbox/overhead_stats.h"

#include <nlohmann/json.hpp>

namespace ream {

Result<OverheadStats> ReadOverheadStats(Platform& p, const std::string& dir) {
  auto files = p.ListDir(dir);
  if (!files.ok()) return files.status().Annotate("the overhead statistics");
  OverheadStats out;
  for (const auto& f : *files) {
    if (f.is_dir || f.name.size() < 6 || f.name.substr(f.name.size() - 5) != ".json") continue;
    std::string path = dir + "/" + f.name;
    auto text = p.ReadFile(path);
    if (!text.ok()) {
      // A process may be renaming its file over this one right now; the next read sees it.
      if (text.status().code() == StatusCode::kNotFound) continue;
      return text.status();
    }
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("messages") || !j.contains("cpu_ns")) {
      return Corrupt(path + ": not libream-overhead.so's statistics");
    }
    out.requested_ns = j.value("requested_ns", int64_t{0});
    out.messages += j.value("messages", int64_t{0});
    out.cpu_ns += j.value("cpu_ns", int64_t{0});
    out.wall_ns += j.value("wall_ns", int64_t{0});
    std::string mode = j.value("mode", std::string());
    out.mode = out.processes == 0 || out.mode == mode ? mode : "mixed";
    ++out.processes;
  }
  if (out.processes == 0) {
    return NotFound("no process of the workload wrote overhead statistics in " + dir +
                    " (libream-overhead.so was not loaded)");
  }
  return out;
}

Result<std::string> FindOverheadLibrary(Platform& p) {
  REAM_ASSIGN_OR_RETURN(std::string exe, p.RealPath("/proc/self/exe"));
  const std::string dir = exe.substr(0, exe.rfind('/') + 1);
  std::string lib = dir + kOverheadLibraryName;
  if (p.Exists(lib)) return lib;  // the build tree: build/ream beside it
  // An install (cmake/install.cmake): PREFIX/bin/ream and PREFIX/lib/ream/.
  std::string installed = dir + "../lib/ream/" + kOverheadLibraryName;
  if (p.Exists(installed)) return p.RealPath(installed);
  return NotFound(std::string(kOverheadLibraryName) + " is not next to " + exe + " (looked for " + lib +
                  " and " + installed + "; build it with the target ream_overhead)");
}

Capability ProbeOverheadLibrary(Platform& p, const std::string& library) {
  Capability c{"preload.net_overhead", Support::kUnsupported, ""};
  std::string lib = library;
  if (lib.empty()) {
    auto found = FindOverheadLibrary(p);
    if (!found.ok()) {
      c.detail = "net_overhead (o): " + found.status().message();
      return c;
    }
    lib = *found;
  }
  std::string dir = "/tmp/ream-doctor-overhead-" + std::to_string(p.ProcessId());
  if (Status s = p.MakeDir(dir); !s.ok()) {
    c.status = Support::kUnknown;
    c.detail = "could not make " + dir + ": " + s.message();
    return c;
  }
  auto r = p.Run({"env", "LD_PRELOAD=" + lib, "REAM_NET_OVERHEAD_NS=1000",
                  "REAM_NET_OVERHEAD_STATS=" + dir, "/bin/true"},
                 std::chrono::seconds(10));
  auto stats = ReadOverheadStats(p, dir);
  if (auto files = p.ListDir(dir); files.ok()) {
    for (const auto& f : *files) (void)p.RemoveFile(dir + "/" + f.name);
  }
  (void)p.RemoveDir(dir);
  if (!r.ok()) {
    c.detail = "running /bin/true with " + lib + " preloaded: " + r.status().message();
  } else if (r->exit_code != 0 || !stats.ok()) {
    std::string err = Trim(r->err);
    c.detail = "/bin/true with " + lib + " preloaded " +
               (r->exit_code != 0 ? r->Describe() : "did not load it") +
               (err.empty() ? "" : ": " + err.substr(0, 300));
  } else {
    c.status = Support::kSupported;
    c.detail = lib + " (LD_PRELOAD; spins on the workload's socket calls, its own CPU)";
  }
  return c;
}

}  // namespace ream
