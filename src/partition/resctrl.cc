// resctrl: reading info/, building schemata, groups and their monitoring counters.
#include "partition/resctrl.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>

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

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
  return b;
}

// info/<res>/bit_usage: "0=SSSSSSSSSSX;1=..." per domain, the most significant way first
// (resctrl.rst "bit_usage"; the kernel prints from bit cbm_len-1 down to 0). 'E' (exclusive to
// one group) and 'P' (pseudo-locked) ways cannot go into another group's mask.
void ReadTakenWays(const std::string& text, std::map<int, uint64_t>* taken) {
  for (const auto& d : Split(Trim(text), ';')) {
    auto eq = d.find('=');
    if (eq == std::string::npos) continue;
    int id = std::atoi(Trim(d.substr(0, eq)).c_str());
    std::string u = Trim(d.substr(eq + 1));
    uint64_t bits = 0;
    for (size_t i = 0; i < u.size() && i < 64; ++i) {
      if (u[i] == 'E' || u[i] == 'P') bits |= uint64_t{1} << (u.size() - 1 - i);
    }
    (*taken)[id] |= bits;
  }
}

// Lengths of the runs of consecutive 1s in `m`.
std::vector<int> Runs(uint64_t m) {
  std::vector<int> out;
  int run = 0;
  for (int b = 0; b <= 64; ++b) {
    if (b < 64 && (m & (uint64_t{1} << b))) {
      ++run;
    } else if (run) {
      out.push_back(run);
      run = 0;
    }
  }
  return out;
}

}  // namespace

Result<ResctrlInfo> ReadResctrl(Platform& p) {
  std::string mount;
  std::vector<std::string> options;
  for (const auto& line : Split(p.ReadFile("/proc/mounts").value_or(""), '\n')) {
    auto f = Split(line, ' ');
    if (f.size() >= 3 && f[2] == "resctrl") {
      mount = f[1];
      options = f.size() >= 4 ? Split(f[3], ',') : std::vector<std::string>{};
    }
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
  // resctrl.rst: "mount -t resctrl resctrl [-o cdp[,cdpl2][,mba_MBps]]"; /proc/mounts lists them.
  for (const auto& o : options) {
    if (o == "cdp") info.cdp = true;
    if (o == "mba_MBps") info.mba_mbps = true;
  }
  for (const auto& line : Split(p.ReadFile("/proc/cpuinfo").value_or(""), '\n')) {
    if (line.rfind("vendor_id", 0) != 0) continue;
    if (line.find("GenuineIntel") != std::string::npos) info.vendor = "intel";
    // Hygon's CPUs are AMD's design and the kernel treats their resctrl as AMD's.
    if (line.find("AuthenticAMD") != std::string::npos || line.find("HygonGenuine") != std::string::npos)
      info.vendor = "amd";
    break;
  }
  std::string root_schemata = p.ReadFile(mount + "/schemata").value_or("");
  // A CDP mount has info/L3CODE and info/L3DATA instead of info/L3, with the same cbm_mask
  // (resctrl.rst "L3 schemata file details (CDP enabled via mount option to resctrl)").
  std::vector<std::string> l3_res = {"L3"};
  if (p.Exists(mount + "/info/L3CODE/cbm_mask")) {
    info.cdp = true;
    l3_res = {"L3CODE", "L3DATA"};
  }
  const std::string l3 = mount + "/info/" + l3_res.front();
  if (p.Exists(l3 + "/cbm_mask")) {
    info.l3 = true;
    info.cbm_mask = std::strtoull(Str(p, l3 + "/cbm_mask").c_str(), nullptr, 16);
    info.cbm_bits = std::popcount(info.cbm_mask);
    std::string min = Str(p, l3 + "/min_cbm_bits");
    if (!min.empty()) info.min_cbm_bits = std::max(1, std::atoi(min.c_str()));
    info.shareable_bits = std::strtoull(Str(p, l3 + "/shareable_bits").c_str(), nullptr, 16);
    // sparse_masks (resctrl.rst: "1: non-contiguous 1s value in CBM is supported"); kernels
    // before 6.8 lack the file: Intel "requires that these masks have all the '1' bits in a
    // contiguous block" (resctrl.rst, "Cache Bit Masks"), AMD does not.
    std::string sparse = Str(p, l3 + "/sparse_masks");
    info.sparse_masks = sparse.empty() ? info.vendor == "amd" : sparse == "1";
    for (const auto& r : l3_res) ReadTakenWays(Str(p, mount + "/info/" + r + "/bit_usage"), &info.l3_taken);
    info.l3_closids = std::atoi(Str(p, l3 + "/num_closids").c_str());
    for (const auto& [id, v] : SchemataDomains(root_schemata, l3_res.front())) info.l3_domains.push_back(id);
    if (info.cbm_bits == 0) return Corrupt(l3 + "/cbm_mask is empty or zero");
  }
  if (p.Exists(mount + "/info/MB/min_bandwidth")) {
    info.mb = true;
    info.min_bandwidth = std::atoi(Str(p, mount + "/info/MB/min_bandwidth").c_str());
    std::string gran = Str(p, mount + "/info/MB/bandwidth_gran");
    info.bandwidth_gran = std::max(1, std::atoi(gran.c_str()));
    info.mb_closids = std::atoi(Str(p, mount + "/info/MB/num_closids").c_str());
    auto doms = SchemataDomains(root_schemata, "MB");
    for (const auto& [id, v] : doms) info.mb_domains.push_back(id);
    // Wide enough for the software controller's U32_MAX.
    int64_t root = doms.empty() ? 0 : std::strtoll(doms.front().second.c_str(), nullptr, 10);
    if (info.mba_mbps) {
      // "Memory bandwidth Allocation specified in MBps": the root shows the software
      // controller's unlimited value (U32_MAX), not a maximum to scale.
      info.mb_unit = MbUnit::kMBps;
    } else if (info.vendor == "amd" || (info.vendor.empty() && root != 0 && root != 100)) {
      // AMD: "The allocated resources are in multiples of one eighth GB/s"; the root value is
      // the maximum (2048). Without the vendor, a root other than 100 is the only sign.
      info.mb_unit = MbUnit::kAmdEighthGBps;
      info.mb_max = static_cast<int>(std::clamp<int64_t>(root, 1, 1 << 30));
    } else {
      info.mb_unit = MbUnit::kPercent;  // "by indicating the percentage of total memory bandwidth"
      info.mb_max = 100;
    }
    info.mb_is_percent = info.mb_unit == MbUnit::kPercent;
  }
  std::string mon = p.ReadFile(mount + "/info/L3_MON/mon_features").value_or("");
  for (const auto& f : Split(mon, '\n')) {
    if (Trim(f) == "llc_occupancy") info.mon_llc_occupancy = true;
    if (Trim(f) == "mbm_total_bytes") info.mon_mbm_total = true;
  }
  return info;
}

Result<uint64_t> ChooseL3Mask(const ResctrlInfo& info, int domain, int ways) {
  const std::string what = "--llc-ways " + std::to_string(ways);
  if (ways < info.min_cbm_bits || ways > info.cbm_bits) {
    return InvalidArgument(what + ": the L3 has " + std::to_string(info.cbm_bits) + " ways (cbm_mask " +
                           Hex(info.cbm_mask) + ") and needs at least min_cbm_bits=" +
                           std::to_string(info.min_cbm_bits));
  }
  auto t = info.l3_taken.find(domain);
  const uint64_t taken = t == info.l3_taken.end() ? 0 : t->second;
  const uint64_t free = info.cbm_mask & ~taken;
  if (std::popcount(free) < ways) {
    return InvalidArgument(what + ": L3 domain " + std::to_string(domain) + " has " +
                           std::to_string(std::popcount(free)) + " ways left; other groups hold ways " +
                           Hex(taken) + " exclusively ('E'/'P' in info/L3/bit_usage)");
  }
  // A contiguous block is valid on every CPU: the one overlapping shareable_bits least (those
  // ways are also filled by I/O, resctrl.rst "shareable_bits"), lowest first.
  std::optional<uint64_t> best;
  int best_shared = 65;
  const uint64_t block = ways >= 64 ? ~uint64_t{0} : (uint64_t{1} << ways) - 1;
  for (int lo = 0; lo + ways <= 64; ++lo) {
    uint64_t m = block << lo;
    if ((m & free) != m) continue;
    int shared = std::popcount(m & info.shareable_bits);
    if (shared < best_shared) {
      best = m;
      best_shared = shared;
    }
  }
  if (best) return *best;
  if (!info.sparse_masks) {
    return InvalidArgument(what + ": L3 domain " + std::to_string(domain) + " has no " +
                           std::to_string(ways) + " contiguous free ways (free: " + Hex(free) +
                           ") and this CPU requires contiguous masks (info/L3/sparse_masks is not 1)");
  }
  // Sparse masks allowed: whole runs of free ways, those off shareable_bits first, lowest
  // first, skipping runs shorter than min_cbm_bits ("the minimum number of consecutive bits
  // which must be set when writing a mask", resctrl.rst "min_cbm_bits").
  uint64_t mask = 0;
  int left = ways;
  for (uint64_t pool : {free & ~info.shareable_bits, free & info.shareable_bits}) {
    for (int b = 0; b < 64 && left > 0;) {
      if (!(pool & (uint64_t{1} << b))) {
        ++b;
        continue;
      }
      int len = 0;
      while (b + len < 64 && (pool & (uint64_t{1} << (b + len)))) ++len;
      if (len >= info.min_cbm_bits) {
        int take = std::min(left, len);
        for (int i = 0; i < take; ++i) mask |= uint64_t{1} << (b + i);
        left -= take;
      }
      b += len;
    }
  }
  if (left > 0) {
    return InvalidArgument(what + ": the free ways of L3 domain " + std::to_string(domain) + " (" +
                           Hex(free) + ") hold no " + std::to_string(ways) + " ways in runs of at least "
                           "min_cbm_bits=" + std::to_string(info.min_cbm_bits));
  }
  for (int run : Runs(mask)) {
    if (run < info.min_cbm_bits) {
      return InvalidArgument(what + ": the free ways of L3 domain " + std::to_string(domain) + " (" +
                             Hex(free) + ") leave a run shorter than min_cbm_bits=" +
                             std::to_string(info.min_cbm_bits));
    }
  }
  return mask;
}

Result<std::vector<std::map<int, uint64_t>>> AllocateL3Ways(const ResctrlInfo& info,
                                                            const std::vector<WaysRequest>& requests) {
  std::vector<std::map<int, uint64_t>> out(requests.size());
  int total = 0;
  std::string who;
  for (const auto& r : requests) {
    total += r.ways;
    who += (who.empty() ? "" : ", ") + r.tenant + " " + std::to_string(r.ways);
  }
  if (total > info.cbm_bits) {
    return InvalidArgument("llc_ways: the run's tenants ask for " + std::to_string(total) + " L3 ways (" + who +
                           ") but the L3 has " + std::to_string(info.cbm_bits) + " (cbm_mask " + Hex(info.cbm_mask) +
                           "); each tenant's ways are its own, so they must add up to at most that");
  }
  ResctrlInfo left = info;  // the earlier requests' ways count as taken for the later ones
  for (int domain : info.l3_domains) {
    for (size_t i = 0; i < requests.size(); ++i) {
      auto mask = ChooseL3Mask(left, domain, requests[i].ways);
      if (!mask.ok()) {
        std::string before;
        for (size_t j = 0; j < i; ++j) {
          before += (before.empty() ? "" : ", ") + requests[j].tenant + " " + Hex(out[j][domain]);
        }
        return InvalidArgument(requests[i].tenant + ": " + mask.status().message() +
                               (before.empty() ? "" : " (the run's other tenants hold " + before + ")"));
      }
      out[i][domain] = *mask;
      left.l3_taken[domain] |= *mask;
    }
  }
  return out;
}

Result<std::string> BuildSchemata(const ResctrlInfo& info, std::optional<int> ways,
                                  std::optional<double> mb_fraction) {
  return BuildSchemata(info, ways, MemBandwidth{.fraction = mb_fraction});
}

Result<int64_t> MbSchemataValue(const ResctrlInfo& info, const MemBandwidth& mb) {
  if (!info.mb) {
    return Unsupported("--mem-bw: this CPU/kernel has no memory bandwidth allocation (no "
                       "info/MB in " + info.mount + ")");
  }
  int64_t v = 0;
  if (mb.mbps) {
    const std::string what = "--mem-bw " + std::to_string(*mb.mbps) + "MBps";
    if (info.mb_unit == MbUnit::kPercent) {
      return Unsupported(what + ": " + info.mount + " takes memory bandwidth as a percentage; an "
                         "amount in MB/s needs the mba_MBps mount option (mount -t resctrl -o "
                         "mba_MBps resctrl " + info.mount + "), or give a percentage");
    }
    if (info.mb_unit == MbUnit::kMBps) {
      v = *mb.mbps;  // the software controller keeps the group under this many MB/s
    } else {
      // AMD: 1/8 GB/s units, 1 GB = 1000 MB (125 MB/s a unit), rounded down.
      v = *mb.mbps * 8 / 1000;
      if (v < 1 || v > info.mb_max) {
        return InvalidArgument(what + ": AMD expresses bandwidth in 1/8 GB/s units, from 1 (125 MB/s) "
                               "to " + std::to_string(info.mb_max) + " (the root group's value)");
      }
    }
  } else {
    const std::string what = "--mem-bw " + std::to_string(static_cast<int>(mb.fraction.value_or(0) * 100)) + "%";
    if (info.mb_unit == MbUnit::kMBps) {
      return Unsupported(what + ": " + info.mount + " is mounted with mba_MBps and takes memory "
                         "bandwidth in MB/s; give it as e.g. '4000MBps', or remount without mba_MBps");
    }
    double raw = mb.fraction.value_or(0) * info.mb_max;
    // Steps are min_bandwidth + N * bandwidth_gran (resctrl.rst "bandwidth_gran"); rounding
    // down keeps the limit at or under what was asked.
    v = static_cast<int64_t>(std::floor(raw / info.bandwidth_gran)) * info.bandwidth_gran;
    if (v < info.min_bandwidth || v <= 0) {
      return InvalidArgument(what + " is below the minimum this CPU allows (min_bandwidth " +
                             std::to_string(info.min_bandwidth) + " of " +
                             std::to_string(info.mb_max) + ")");
    }
  }
  return v;
}

Result<std::string> BuildSchemata(const ResctrlInfo& info, std::optional<int> ways,
                                  const MemBandwidth& mb, const std::map<int, uint64_t>& l3_masks) {
  std::string out;
  if (ways) {
    if (!info.l3) {
      return Unsupported("--llc-ways: this CPU/kernel has no L3 cache allocation (no info/L3 in " +
                         info.mount + ")");
    }
    std::string line;
    for (size_t i = 0; i < info.l3_domains.size(); ++i) {
      const int domain = info.l3_domains[i];
      uint64_t mask = 0;
      if (auto given = l3_masks.find(domain); given != l3_masks.end()) {
        mask = given->second;
        if ((mask & ~info.cbm_mask) != 0 || std::popcount(mask) != *ways) {
          return InvalidArgument("--llc-ways " + std::to_string(*ways) + ": the mask chosen for L3 domain " +
                                 std::to_string(domain) + " (" + Hex(mask) + ") is not " + std::to_string(*ways) +
                                 " ways of cbm_mask " + Hex(info.cbm_mask));
        }
      } else {
        REAM_ASSIGN_OR_RETURN(mask, ChooseL3Mask(info, domain, *ways));
      }
      line += (i ? ";" : "") + std::to_string(domain) + "=" + Hex(mask);
    }
    // CDP: code and data each get the workload's ways (the knob counts ways, not halves).
    if (info.cdp) {
      out += "L3CODE:" + line + "\nL3DATA:" + line + "\n";
    } else {
      out += "L3:" + line + "\n";
    }
  }
  if (mb.any()) {
    REAM_ASSIGN_OR_RETURN(int64_t v, MbSchemataValue(info, mb));
    out += "MB:";
    for (size_t i = 0; i < info.mb_domains.size(); ++i) {
      out += (i ? ";" : "") + std::to_string(info.mb_domains[i]) + "=" + std::to_string(v);
    }
    out += "\n";
  }
  return out;
}

Result<std::unique_ptr<ResctrlGroup>> ResctrlGroup::CreateMonitoring(Platform& p, const ResctrlInfo& info,
                                                                     const std::string& name,
                                                                     const BeforeCreate& before_create) {
  if (!info.monitoring()) {
    return Unsupported("resctrl at " + info.mount + " has no monitoring (no llc_occupancy or "
                       "mbm_total_bytes in info/L3_MON/mon_features)");
  }
  // "MON" groups live in the default group's mon_groups (resctrl.rst "Resource alloc and
  // monitor groups"): an RMID only, the schemata stay the default group's.
  std::string dir = info.mount + "/mon_groups/" + name;
  if (before_create) REAM_RETURN_IF_ERROR(before_create(dir));
  Status s = p.MakeDir(dir);
  if (!s.ok()) {
    return Unsupported("creating resctrl monitoring group " + dir + ": " + s.message() +
                       " (the RMIDs may be used up: info/L3_MON/num_rmids)");
  }
  return std::unique_ptr<ResctrlGroup>(new ResctrlGroup(p, dir));
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
