// `ream doctor`: what this machine can do for ream, each capability established by trying.
#include <iostream>

#include "cli/commands.h"
#include "cli/table.h"
#include "platform/capabilities.h"
#include "sandbox/overhead_stats.h"
#include "sandbox/sandbox.h"
#include "sandbox/vm_sandbox.h"
#include "topology/topology.h"

namespace ream::cli {
namespace {

struct DoctorOptions {
  bool json = false;
  std::string root;  // a fixture tree to read instead of the machine (no kernel objects)
};

int RunDoctor(const DoctorOptions& o) {
  std::unique_ptr<Platform> platform;
  ProbeOptions probe;
  if (!o.root.empty()) {
    auto rooted = RootedPlatform::Open(o.root);
    if (!rooted.ok()) {
      std::cerr << "ream doctor: " << rooted.status().message() << "\n";
      return 2;
    }
    platform = std::move(rooted).value();
    probe.try_kernel_objects = false;
  } else {
    platform = MakePosixPlatform();
  }
  auto caps = ProbeCapabilities(*platform, probe);
  auto topo = ReadTopology(*platform);
  caps.push_back(SmtCapability(topo));
  if (o.root.empty()) caps.push_back(ProbeOverheadLibrary(*platform));  // LogGP o
  if (o.root.empty()) {
    // The vm sandbox ([sandbox] kind = "vm"): libvirt, the guest image, the accelerator.
    for (auto& c : MakeVmSandboxKind(*platform, {})->Probe()) caps.push_back(std::move(c));
  }
  if (o.json) {
    nlohmann::json j;
    j["capabilities"] = CapabilitiesToJson(caps);
    j["topology"] = topo.ok() ? topo->ToJson() : nlohmann::json(nullptr);
    if (!topo.ok()) j["topology_error"] = topo.status().message();
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& k : PartitionSupport(*platform, &caps))
      parts.push_back({{"flag", k.flag}, {"enforceable", k.enforceable}, {"detail", k.detail}});
    j["partitions"] = parts;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (topo.ok()) {
    std::cout << "CPU:      " << (topo->cpu_model.empty() ? "(model unknown)" : topo->cpu_model)
              << "\n";
    std::cout << "Topology: " << topo->cpus.size() << " logical CPUs, " << topo->cores.size()
              << " physical cores, " << topo->threads_per_core() << " thread(s) per core, "
              << topo->nodes.size() << " NUMA node(s)";
    if (const CacheInfo* llc = topo->llc()) {
      std::cout << ", LLC L" << llc->level << " " << llc->size_bytes / 1024 << " KiB "
                << llc->ways << "-way";
    } else {
      std::cout << ", LLC not exposed in sysfs";
    }
    std::cout << "\n\n";
  } else {
    std::cout << "Topology: unavailable (" << topo.status().message() << ")\n\n";
  }
  Table t({"CAPABILITY", "STATUS", "DETAIL"});
  for (const auto& c : caps) t.AddRow({c.name, std::string(SupportName(c.status)), c.detail});
  t.Print(std::cout);
  std::cout << "\nPartitions `ream exec` can enforce here:\n";
  Table pt({"FLAG", "ENFORCEABLE", "HOW / WHY NOT"});
  for (const auto& k : PartitionSupport(*platform, &caps))
    pt.AddRow({k.flag, k.enforceable ? "yes" : "no", k.detail});
  pt.Print(std::cout);
  return 0;
}

}  // namespace

void AddDoctorCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<DoctorOptions>();
  CLI::App* sub = app.add_subcommand(
      "doctor", "Probe what this machine supports (cgroups, netns, tc, resctrl, counters, SMT)");
  sub->add_flag("--json", opts->json, "Print {\"capabilities\":[...],\"topology\":{...}}");
  sub->add_option("--root", opts->root,
                  "Read /proc and /sys from this fixture tree instead (creates nothing)")
      ->check(CLI::ExistingDirectory);
  commands.push_back({sub, [opts] { return RunDoctor(*opts); }});
}

}  // namespace ream::cli
