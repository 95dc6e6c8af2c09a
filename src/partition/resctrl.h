// Last-level-cache ways (L3 CAT) and memory bandwidth (MBA) through the resctrl filesystem:
// one group per sandbox (a control group with a partition, a monitoring group without), masks
// chosen by the rules of info/ and the mount, and the group's monitoring counters
// (llc_occupancy, mbm_total_bytes). The rules follow the kernel's
// Documentation/arch/x86/resctrl.rst; each says where it comes from.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.h"

namespace ream {

// How the MB schemata expresses a bandwidth (Documentation/arch/x86/resctrl.rst, "Memory
// bandwidth Allocation"): a percentage by default on Intel; MB/s with the mba_MBps mount option
// (the kernel's software controller); on AMD an absolute amount in 1/8 GB/s units.
enum class MbUnit { kPercent, kMBps, kAmdEighthGBps };

struct ResctrlInfo {
  std::string mount;  // "/sys/fs/resctrl"
  std::string vendor;  // "intel", "amd" (also Hygon), "" when /proc/cpuinfo does not say
  // Mount options (/proc/mounts): cdp splits L3 into L3CODE/L3DATA; mba_MBps makes MB take MB/s.
  bool cdp = false;
  bool mba_mbps = false;
  // L3 CAT (info/L3, or info/L3CODE and info/L3DATA on a CDP mount: same masks for both).
  bool l3 = false;
  uint64_t cbm_mask = 0;  // info/L3/cbm_mask: all ways
  int cbm_bits = 0;       // ways = popcount(cbm_mask)
  int min_cbm_bits = 1;   // info/L3/min_cbm_bits: consecutive bits a mask must set at least
  // info/L3/shareable_bits: ways the hardware (I/O, other agents) also fills; avoided when
  // possible so a partition is the workload's alone.
  uint64_t shareable_bits = 0;
  // Non-contiguous masks allowed: info/L3/sparse_masks == 1 (kernels from 6.8), else by vendor
  // (AMD allows them, Intel requires one contiguous block of 1s).
  bool sparse_masks = false;
  std::vector<int> l3_domains;  // cache ids from the root schemata "L3:0=...;1=..."
  // Per domain: ways another group holds exclusively or pseudo-locked ('E'/'P' in
  // info/L3/bit_usage); a new group's mask must not overlap them.
  std::map<int, uint64_t> l3_taken;
  // MBA.
  bool mb = false;
  int min_bandwidth = 0;    // info/MB/min_bandwidth
  int bandwidth_gran = 1;   // info/MB/bandwidth_gran
  int mb_max = 100;         // 100 (percent), the root group's value on AMD (e.g. 2048)
  MbUnit mb_unit = MbUnit::kPercent;
  bool mb_is_percent = true;  // mb_unit == kPercent
  std::vector<int> mb_domains;
  // info/L3/num_closids and info/MB/num_closids (0: not said). Every control group, the
  // default one included, takes a CLOSID valid for every resource in use, so the fewer of the
  // two bounds the groups (resctrl.rst "num_closids").
  int l3_closids = 0;
  int mb_closids = 0;
  // Monitoring (info/L3_MON/mon_features).
  bool mon_llc_occupancy = false;
  bool mon_mbm_total = false;
  bool monitoring() const { return mon_llc_occupancy || mon_mbm_total; }
};

// Reads the mounted resctrl filesystem. Unsupported with the reason when resctrl is not
// mounted or the kernel lacks it (the reason names /proc/filesystems and the CPU flags).
Result<ResctrlInfo> ReadResctrl(Platform& platform);

// The L3 mask for `ways` ways on cache `domain`: within cbm_mask, off the ways other groups
// hold exclusively, off shareable_bits where possible, at least min_cbm_bits consecutive ways,
// one contiguous block unless sparse masks are allowed. InvalidArgument naming the rule that
// refuses (the info/ file it comes from).
Result<uint64_t> ChooseL3Mask(const ResctrlInfo& info, int domain, int ways);

// The memory bandwidth to ask for: a fraction of the maximum or an amount in MB/s.
struct MemBandwidth {
  std::optional<double> fraction;
  std::optional<int64_t> mbps;
  bool any() const { return fraction || mbps; }
};

// One tenant's L3 ways among a run's (AllocateL3Ways): who asks (for messages) and how many.
struct WaysRequest {
  std::string tenant;  // "the subject", "co-runner 'mcf'"
  int ways = 0;
};

// Disjoint L3 masks for several tenants of one run, in order: on every L3 domain, each
// request gets ChooseL3Mask's block with the ways of the requests before it counted as taken,
// so no two tenants that ask for ways share one, and the first keeps the block it would get
// alone. Per request, the mask per domain. InvalidArgument naming the tenants when their ways
// add up to more than the L3 has, or when the free ways left for one hold no valid mask.
Result<std::vector<std::map<int, uint64_t>>> AllocateL3Ways(const ResctrlInfo& info,
                                                            const std::vector<WaysRequest>& requests);

// The value the MB schemata line takes for `mb` on this mount: a percentage rounded down to
// bandwidth_gran (never below min_bandwidth), MB/s with mba_MBps, AMD's 1/8 GB/s units.
// Unsupported / InvalidArgument as BuildSchemata.
Result<int64_t> MbSchemataValue(const ResctrlInfo& info, const MemBandwidth& mb);

// The schemata lines for `ways` L3 ways (ChooseL3Mask per domain, or `l3_masks`' mask for a
// domain it names: the ways AllocateL3Ways chose among a run's tenants; L3CODE and L3DATA on a
// CDP mount) and the memory bandwidth `mb` on every domain, in the unit the mount takes
// (MbSchemataValue). InvalidArgument / Unsupported naming the info/ limit or the mount option
// that would be needed, or a given mask that is not `ways` ways of cbm_mask.
Result<std::string> BuildSchemata(const ResctrlInfo& info, std::optional<int> ways,
                                  const MemBandwidth& mb, const std::map<int, uint64_t>& l3_masks = {});
Result<std::string> BuildSchemata(const ResctrlInfo& info, std::optional<int> ways,
                                  std::optional<double> mb_fraction);

class ResctrlGroup {
 public:
  using BeforeCreate = std::function<Status(const std::string& dir)>;
  // mkdir <mount>/<name> and writes `schemata` (if not empty).
  static Result<std::unique_ptr<ResctrlGroup>> Create(Platform& platform, const ResctrlInfo& info,
                                                      const std::string& name,
                                                      const std::string& schemata,
                                                      const BeforeCreate& before_create);
  // mkdir <mount>/mon_groups/<name>: a monitoring group (an RMID, no CLOSID) in the default
  // group, for a sandbox without an LLC/MBA partition. Unsupported when the mount has no
  // monitoring or the RMIDs are used up.
  static Result<std::unique_ptr<ResctrlGroup>> CreateMonitoring(Platform& platform,
                                                                const ResctrlInfo& info,
                                                                const std::string& name,
                                                                const BeforeCreate& before_create);
  ~ResctrlGroup();
  const std::string& dir() const { return dir_; }
  std::string TasksFile() const { return dir_ + "/tasks"; }
  // Sum over the L3 domains of mon_data/mon_L3_*/llc_occupancy (bytes) / mbm_total_bytes.
  Result<int64_t> LlcOccupancyBytes() const;
  Result<int64_t> MbmTotalBytes() const;
  Status Destroy();

 private:
  ResctrlGroup(Platform& p, std::string dir) : p_(p), dir_(std::move(dir)) {}
  Result<int64_t> SumMon(const std::string& file) const;
  Platform& p_;
  std::string dir_;
  bool destroyed_ = false;
};

// rmdir of a resctrl group directory (its tasks return to the default group). Ok when gone.
Status RemoveResctrlDir(Platform& platform, const std::string& dir);

}  // namespace ream
