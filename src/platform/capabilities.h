// What this machine can do, established by trying: cgroups, namespaces, veth, tc qdiscs,
// resctrl, hardware counters, SMT, KVM. Each capability is tri-state and carries the concrete
// reason, so `ream doctor`, the report and the partitions can say why a knob is missing.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ream {

enum class Support { kSupported, kUnsupported, kUnknown };
std::string_view SupportName(Support s);

struct Capability {
  std::string name;    // stable id: "cgroup.cpuset", "tc.netem", "resctrl.cat_l3", ...
  Support status = Support::kUnknown;
  std::string detail;  // what was tried and what happened
};

struct CgroupLayout {
  int version = 0;              // 1, 2, or 0 when no usable hierarchy was found
  std::string v2_root;          // v2 (or hybrid's unified) mount point
  // v1: controller name -> its hierarchy's mount point ("cpu" -> "/sys/fs/cgroup/cpu").
  std::vector<std::pair<std::string, std::string>> v1_mounts;
  std::string V1Mount(const std::string& controller) const;  // "" when not mounted
};

// Reads /proc/mounts (and cgroup.controllers) to find the cgroup hierarchies.
CgroupLayout DetectCgroups(Platform& p);

struct ProbeOptions {
  bool try_kernel_objects = true;  // create/remove cgroups, netns, veth, qdiscs
};

// Runs every probe but SMT (which topology/ answers: SmtCapability). Leaves nothing behind: every object it creates is named
// "ream-doctor-<pid>"/"rmd<pid>[ab]" and removed before it returns, whatever happened.
std::vector<Capability> ProbeCapabilities(Platform& p, const ProbeOptions& options = {});

nlohmann::json CapabilitiesToJson(const std::vector<Capability>& caps);
// The inverse (a remote host's probes, as its agent sends them). InvalidArgument when `j` is
// not such a list; an unknown status reads as unknown.
Result<std::vector<Capability>> CapabilitiesFromJson(const nlohmann::json& j);
const Capability* FindCapability(const std::vector<Capability>& caps, std::string_view name);

}  // namespace ream
