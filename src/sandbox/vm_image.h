// The guest image of the vm sandbox: a Debian kernel (from Debian's linux-image-amd64 package,
// which scripts/install-deps downloads into kVmPackageDir) and an initramfs that ream builds
// itself from busybox-static, the kernel's virtio modules, and this ream binary (debug
// information stripped) with the libraries it links. Its /init brings up the network from
// the kernel command line, runs the workload's command (ream.arg=... words, hex-encoded), and
// powers the guest off when the workload exits, saying how. Cached under kVmImageDir by the
// ream binary's content hash, so a new ream builds a new image (docs/vm.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "platform/platform.h"

namespace ream {

inline constexpr char kVmPackageDir[] = "/var/cache/ream/vm-packages";
inline constexpr char kVmImageDir[] = "/var/cache/ream/vm";

struct GuestImage {
  std::string kernel;  // vmlinuz
  std::string initrd;  // initrd.gz
  std::string key;     // the ream binary's hash: what the image was built from
  bool built = false;  // false: found in the cache
  double build_seconds = 0;
};

// Builds (or finds) the image for `ream_binary`. The messages name what is missing: the
// kernel package ("run scripts/install-deps"), busybox, objcopy.
Result<GuestImage> EnsureGuestImage(Platform& p, const std::string& ream_binary,
                                    const std::string& package_dir = kVmPackageDir,
                                    const std::string& image_dir = kVmImageDir);

// The kernel command-line words that carry `argv` to the guest's /init: one "ream.arg=HEX"
// per argument, HEX the argument's bytes. Pure.
std::vector<std::string> GuestArgWords(const std::vector<std::string>& argv);

}  // namespace ream
