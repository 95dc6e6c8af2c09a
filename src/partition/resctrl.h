// Last-level-cache ways (L3 CAT) and memory bandwidth (MBA) through the resctrl filesystem:
// one group per sandbox, schemata validated against info/, and the group's monitoring
// counters (llc_occupancy, mbm_total_bytes). Intel and AMD layouts both: AMD's MB values are
// absolute (1/8 GB/s units, max in the root group's schemata), Intel's are percentages.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.h"

namespace ream {

struct ResctrlInfo {
  std::string mount;  // "/sys/fs/resctrl"
  // L3 CAT.
  bool l3 = false;
  uint64_t cbm_mask = 0;  // info/L3/cbm_mask: all ways
  int cbm_bits = 0;       // ways = popcount(cbm_mask)
  int min_cbm_bits = 1;
  bool sparse_masks = false;  // info/L3/sparse_masks == 1: non-contiguous masks allowed
  std::vector<int> l3_domains;  // cache ids from the root schemata "L3:0=...;1=..."
  // MBA.
  bool mb = false;
  int min_bandwidth = 0;    // info/MB/min_bandwidth
  int bandwidth_gran = 1;   // info/MB/bandwidth_gran
  int mb_max = 100;         // the root group's MB value (100 on Intel, e.g. 2048 on AMD)
  bool mb_is_percent = true;
  std::vector<int> mb_domains;
  // Monitoring (info/L3_MON/mon_features).
  bool mon_llc_occupancy = false;
  bool mon_mbm_total = false;
};

// Reads the mounted resctrl filesystem. Unsupported with the reason when resctrl is not
// mounted or the kernel lacks it (the reason names /proc/filesystems and the CPU flags).
Result<ResctrlInfo> ReadResctrl(Platform& platform);

// The schemata lines for `ways` L3 ways (the lowest contiguous ways, valid on every CPU) and
// `mb_fraction` of the memory bandwidth (rounded down to bandwidth_gran, never below
// min_bandwidth), on every domain. InvalidArgument / Unsupported naming the info/ limit.
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
