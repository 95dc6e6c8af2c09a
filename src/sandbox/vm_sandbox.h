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
#include <string>

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
};
std::string DomainXml(const DomainConfig& c);

}  // namespace ream
