// The vm sandbox kind: the workload runs in a libvirt/QEMU guest, as the seed ran every
// workload ("similar to that used by OpenStack on its compute nodes"). The guest boots ream's
// own image (sandbox/vm_image.h) once per command and partition; when the workload prints
// its readiness line the guest's state is saved to a file (virDomainSave), and every sandbox
// after that, the first included, is that state restored (virDomainRestore), so a run does not
// pay for booting. The guest's vCPUs are pinned one per allotted CPU (vcpupin; the emulator
// threads on the same CPUs), its memory is the partition's; it reaches the host over a bridge
// of ream's own (10.213.254.x/30), through a tap ream names. Monitors read the guest's CPU
// time from libvirt (virDomainListGetStats "cpu.time") and its traffic from the tap. Every
// libvirt object, file and link is recorded in a state file before it is created, so
// `ream cleanup` removes what a killed run left (docs/vm.md).
//
// Where KVM does not work (a nested guest), QEMU's TCG emulates the CPU: said by Probe() and
// stored with the experiment, since TCG timings are not comparable with KVM's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "partition/resctrl.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "sandbox/vm_image.h"

namespace ream {

struct VmKindOptions {
  std::string uri = "qemu:///system";
  // The ream binary the guest image carries; a workload argv[0] equal to it runs as the
  // guest's /bin/ream. "" : /proc/self/exe.
  std::string ream_binary;
  // A user's own image instead of ream's: a directory holding `vmlinuz` and `initrd.gz` whose
  // /init follows ream's guest conventions (docs/vm.md). "" : ream builds its own.
  std::string image;
  std::string package_dir = kVmPackageDir;
  std::string image_dir = kVmImageDir;
  // "kvm" or "tcg" (default: TCG, which runs everywhere; nested KVM barely runs).
  std::string accel = "tcg";
  int64_t default_memory_bytes = int64_t{512} << 20;  // when the partition sets none
  std::chrono::milliseconds boot_timeout{180000};
};

// How the last sandbox came up: a cold boot to the readiness line (once per command and
// partition), saving that state, and restoring it (every sandbox).
struct VmStartTimes {
  double cold_boot_s = 0;  // 0 when this sandbox did not boot
  double save_s = 0;
  double restore_s = 0;
  bool booted = false;
  std::string accel;  // "tcg" | "kvm"
};

std::unique_ptr<SandboxKind> MakeVmSandboxKind(Platform& platform, VmKindOptions options);

// The guest's vCPUs on `cpus`: vCPU i pinned to cpus[i], one vCPU per allotted CPU (the
// domain's vcpupin elements and the kind's VcpuPins).
std::vector<VcpuPin> VmVcpuPins(const std::vector<int>& cpus);

// Builds the domain XML. Pure; exposed for its unit test.
struct DomainConfig {
  std::string name, accel, kernel, initrd, cmdline, console_path, bridge, tap;
  std::vector<int> cpus;
  int64_t memory_bytes = 0;
  // The partition's other knobs, each through libvirt's own element (docs/vm.md):
  // cpu_quota in CPUs -> <global_quota> over a <global_period> of 100 ms (the whole domain:
  // vCPUs and emulator, as a process sandbox's quota covers every thread), cpu_weight ->
  // <shares> (weight * 1024 / 100, as the process sandbox's v1 cpu.shares).
  std::optional<double> cpu_quota;
  std::optional<int> cpu_weight;
  // <cachetune> (LLC ways as a size per L3 cache id: libvirt picks the bits) and <memorytune>
  // (memory bandwidth in percent per MBA domain), over every vCPU. libvirt creates the
  // resctrl group itself.
  struct L3Size {
    int cache_id = 0;
    int64_t kib = 0;
  };
  std::vector<L3Size> l3;
  struct MbaShare {
    int node = 0;
    int percent = 100;
  };
  std::vector<MbaShare> mba;
};
std::string DomainXml(const DomainConfig& c);

// The cputune and resctrl parts of a guest's domain for `partition`: cpu_quota, cpu_weight,
// llc_ways (ways * the LLC's size / the mask's bits, on every L3 domain) and mem_bw as a
// fraction (percent on every MBA domain). Unsupported naming the knob where this host cannot
// enforce it (no resctrl, MBA in MB/s only); `llc_bytes` is the LLC's size from the topology.
Status ApplyPartitionToDomain(const PartitionSpec& partition, const ResctrlInfo* resctrl, int64_t llc_bytes,
                              DomainConfig* c);

}  // namespace ream
