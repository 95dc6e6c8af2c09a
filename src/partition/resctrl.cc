// resctrl: reading info/, building schemata, groups and their monitoring counters.
#include "partition/resctrl.h"

#include <bit>
#include <cmath>

namespace ream {
namespace {

std::string Str(Platform& p, const std::string& path) {
  return Trim(p.ReadFile(path).value_or(""));
}

// "L3:0=7ff;1=7ff" -> domain ids and values for `resource`.
std::vector<std::pair<int, std::string>> SchemataDomains(const std::string& schemata,
                                                         const std::string& resource) {
  std::vector<std::pair<int, std::string>> out;
  for (const auto& line : Split(schemata, '\n')) {
    std::string l = Trim(line);
    auto colon = l.find(':');
    if (colon == std::string::npos || Trim(l.substr(0, colon)) != resource) continue;
    for (const auto& d : Split(l.substr(colon + 1), ';')) {
      auto eq = d.find('=');
      if (eq == std::string::npos) continue;
      out.emplace_back(std::atoi(Trim(d.substr(0, eq)).c_str()), Trim(d.substr(eq + 1)));
    }
  }
  return out;
}

}  // namespace

Result<ResctrlInfo> ReadResctrl(Platform& p) {
  std::string mount;
  for (const auto& line : Split(p.ReadFile("/proc/mounts").value_or(""), '\n')) {
    auto f = Split(line, ' ');
    if (f.size() >= 3 && f[2] == "resctrl") mount = f[1];
  }
  if (mount.empty()) {
    std::string fs = p.ReadFile("/proc/filesystems").value_or("");
    if (fs.find("resctrl") == std::string::npos) {
      std::string cpuinfo = p.ReadFile("/proc/cpuinfo").value_or("");
      std::string flags;
      for (const char* f : {"cat_l3", "mba", "cqm_llc", "cqm_mbm_total"})
        if (cpuinfo.find(std::string(" ") + f) != std::string::npos) flags += std::string(" ") + f;
      return Unsupported(
          "resctrl is absent: the kernel has no resctrl filesystem (not in /proc/filesystems)" +
          (flags.empty() ? std::string("; the CPU advertises none of cat_l3, mba, cqm_llc")
                         : "; CPU flags present:" + flags));
    }
    return Unsupported(
        "resctrl is not mounted; mount it with 'mount -t resctrl resctrl /sys/fs/resctrl'");
  }
  ResctrlInfo info;
  info.mount = mount;
  std::string root_schemata = p.ReadFile(mount + "/schemata").value_or("");
  if (p.Exists(mount + "/info/L3/cbm_mask")) {
    info.l3 = true;
    info.cbm_mask = std::strtoull(Str(p, mount + "/info/L3/cbm_mask").c_str(), nullptr, 16);
    info.cbm_bits = std::popcount(info.cbm_mask);
    std::string min = Str(p, mount + "/info/L3/min_cbm_bits");
    if (!min.empty()) info.min_cbm_bits = std::atoi(min.c_str());
    info.sparse_masks = Str(p, mount + "/info/L3/sparse_masks") == "1";
    for (const auto& [id, v] : SchemataDomains(root_schemata, "L3")) info.l3_domains.push_back(id);
    if (info.cbm_bits == 0) return Corrupt(mount + "/info/L3/cbm_mask is empty or zero");
  }
  if (p.Exists(mount + "/info/MB/min_bandwidth")) {
    info.mb = true;
    info.min_bandwidth = std::atoi(Str(p, mount + "/info/MB/min_bandwidth").c_str());
    std::string gran = Str(p, mount + "/info/MB/bandwidth_gran");
    info.bandwidth_gran = std::max(1, std::atoi(gran.c_str()));
    auto doms = SchemataDomains(root_schemata, "MB");
    for (const auto& [id, v] : doms) info.mb_domains.push_back(id);
    if (!doms.empty()) info.mb_max = std::max(1, std::atoi(doms.front().second.c_str()));
    // Intel expresses MB as a percentage (root = 100); AMD as an absolute bandwidth.
    info.mb_is_percent = info.mb_max == 100;
  }
  std::string mon = p.ReadFile(mount + "/info/L3_MON/mon_features").value_or("");
  for (const auto& f : Split(mon, '\n')) {
    if (Trim(f) == "llc_occupancy") info.mon_llc_occupancy = true;
    if (Trim(f) == "mbm_total_bytes") info.mon_mbm_total = true;
  }
  return info;
}

Result<std::string> BuildSchemata(const ResctrlInfo& info, std::optional<int> ways,
                                  std::optional<double> mb_fraction) {
  std::string out;
  if (ways) {
    if (!info.l3) {
      return Unsupported("--llc-ways: this CPU/kernel has no L3 cache allocation (no info/L3 in " +
                         info.mount + ")");
    }
    if (*ways < info.min_cbm_bits || *ways > info.cbm_bits) {
      return InvalidArgument("--llc-ways " + std::to_string(*ways) + ": the L3 has " +
                             std::to_string(info.cbm_bits) + " ways (cbm_mask " +
                             [&] { char b[32]; std::snprintf(b, sizeof b, "%llx", (unsigned long long)info.cbm_mask); return std::string(b); }() +
                             ") and needs at least min_cbm_bits=" +
                             std::to_string(info.min_cbm_bits));
    }
    // The lowest `ways` set bits of cbm_mask: contiguous when the mask is (it always is on
    // real hardware), which satisfies CPUs without sparse mask support.
    uint64_t mask = 0;
    int taken = 0;
    for (int bit = 0; bit < 64 && taken < *ways; ++bit) {
      if (info.cbm_mask & (uint64_t{1} << bit)) {
        mask |= uint64_t{1} << bit;
        ++taken;
      }
    }
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(mask));
    out += "L3:";
    for (size_t i = 0; i < info.l3_domains.size(); ++i) {
      out += (i ? ";" : "") + std::to_string(info.l3_domains[i]) + "=" + hex;
    }
    out += "\n";
  }
  if (mb_fraction) {
    if (!info.mb) {
      return Unsupported("--mem-bw: this CPU/kernel has no memory bandwidth allocation (no "
                         "info/MB in " + info.mount + ")");
    }
    double raw = *mb_fraction * info.mb_max;
    int v = static_cast<int>(std::floor(raw / info.bandwidth_gran)) * info.bandwidth_gran;
    if (v < info.min_bandwidth || v <= 0) {
      return InvalidArgument("--mem-bw " + std::to_string(static_cast<int>(*mb_fraction * 100)) +
                             "% is below the minimum this CPU allows (min_bandwidth " +
                             std::to_string(info.min_bandwidth) + " of " +
                             std::to_string(info.mb_max) + ")");
    }
    out += "MB:";
    for (size_t i = 0; i < info.mb_domains.size(); ++i) {
      out += (i ? ";" : "") + std::to_string(info.mb_domains[i]) + "=" + std::to_string(v);
    }
    out += "\n";
  }
  return out;
}

Result<std::unique_ptr<ResctrlGroup>> ResctrlGroup::Create(Platform& p, const ResctrlInfo& info,
                                                           const std::string& name,
                                                           const std::string& schemata,
                                                           const BeforeCreate& before_create) {
  std::string dir = info.mount + "/" + name;
  if (before_create) REAM_RETURN_IF_ERROR(before_create(dir));
  Status s = p.MakeDir(dir);
  if (!s.ok()) {
    if (s.code() == StatusCode::kIoError || s.message().find("No space") != std::string::npos) {
      return Unsupported("creating resctrl group " + dir + ": " + s.message() +
                         " (all CLOSIDs/RMIDs are in use)");
    }
    return s.Annotate("creating resctrl group");
  }
  std::unique_ptr<ResctrlGroup> g(new ResctrlGroup(p, dir));
  for (const auto& line : Split(schemata, '\n')) {
    // One resource per write; the kernel explains a rejection in info/last_cmd_status.
    Status w = p.WriteFile(dir + "/schemata", line + "\n");
    if (!w.ok()) {
      std::string why = Trim(p.ReadFile(info.mount + "/info/last_cmd_status").value_or(""));
      return w.Annotate("writing schemata '" + line + "'" + (why.empty() ? "" : " (" + why + ")"));
    }
  }
  return g;
}

ResctrlGroup::~ResctrlGroup() {
  if (!destroyed_) (void)Destroy();
}

Status ResctrlGroup::Destroy() {
  destroyed_ = true;
  return RemoveResctrlDir(p_, dir_);
}

Result<int64_t> ResctrlGroup::SumMon(const std::string& file) const {
  auto doms = p_.ListDir(dir_ + "/mon_data");
  if (!doms.ok()) return doms.status().Annotate("resctrl monitoring of " + dir_);
  int64_t sum = 0;
  int n = 0;
  for (const auto& d : *doms) {
    if (d.name.rfind("mon_L3_", 0) != 0) continue;
    auto v = p_.ReadFile(dir_ + "/mon_data/" + d.name + "/" + file);
    if (!v.ok()) return v.status();
    std::string t = Trim(*v);
    if (t == "Unavailable" || t == "Error") {
      return Unavailable(dir_ + "/mon_data/" + d.name + "/" + file + " reads '" + t + "'");
    }
    sum += std::atoll(t.c_str());
    ++n;
  }
  if (n == 0) return Unsupported("no mon_L3_* domains under " + dir_ + "/mon_data");
  return sum;
}

Result<int64_t> ResctrlGroup::LlcOccupancyBytes() const { return SumMon("llc_occupancy"); }
Result<int64_t> ResctrlGroup::MbmTotalBytes() const { return SumMon("mbm_total_bytes"); }

Status RemoveResctrlDir(Platform& p, const std::string& dir) {
  if (!p.IsDirectory(dir)) return Status::Ok();
  Status s = p.RemoveDir(dir);
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  return s.Annotate("removing resctrl group");
}

}  // namespace ream
