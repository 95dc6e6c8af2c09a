#include "sandbox/vm_image.h"

#include <cstdio>

namespace ream {
namespace {

// Run by `sh -s` with: REAM_BINARY PACKAGE_DIR IMAGE_DIR. Prints "image DIR built|cached".
// Every failure names what is missing and exits non-zero; a half-built image never lands in
// the cache (it is built in a temporary directory and renamed into place).
constexpr char kBuildScript[] = R"SH(
set -eu
ream=$1 pkgdir=$2 imgdir=$3
fail() { echo "$*" >&2; exit 3; }
[ -x "$ream" ] || fail "the ream binary $ream is not executable"
key=$(sha256sum "$ream" | cut -c1-16)
dir=$imgdir/$key
if [ -f "$dir/vmlinuz" ] && [ -f "$dir/initrd.gz" ]; then echo "image $dir $key cached"; exit 0; fi
deb=$(ls "$pkgdir"/linux-image-*-amd64_*.deb 2>/dev/null | sort | tail -n 1 || true)
[ -n "$deb" ] || fail "no guest kernel: $pkgdir holds no linux-image-*-amd64 package (scripts/install-deps downloads Debian's)"
bb=$(command -v busybox || true)
[ -n "$bb" ] || fail "busybox is missing (Debian's busybox-static; run scripts/install-deps)"
"$bb" --list | grep -qx insmod || fail "$bb has no insmod applet (install Debian's busybox-static)"
ldd "$bb" >/dev/null 2>&1 && fail "$bb is dynamically linked; the guest needs Debian's busybox-static"
command -v objcopy >/dev/null || fail "objcopy is missing (binutils; run scripts/install-deps)"
mkdir -p "$imgdir"
tmp=$(mktemp -d "$imgdir/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/k"
root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run" "$root/etc" "$root/lib/modules"
cp "$bb" "$root/bin/busybox"
# virtio (the disk-less guest's only devices: its NIC; the console is the 8250 UART, built in),
# in dependency order (each module's "depends=").
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net"
for m in $mods; do
  f=$(find "$tmp/k/lib/modules" -name "$m.ko" | head -n 1)
  [ -n "$f" ] || fail "the kernel package $deb has no module $m.ko"
  cp "$f" "$root/lib/modules/"
done
echo "$mods" > "$root/etc/modules"
objcopy --strip-debug "$ream" "$root/bin/ream"
for l in $(ldd "$ream" | grep -o '/[^ ]*'); do
  mkdir -p "$root$(dirname "$l")"
  cp -L "$l" "$root$l"
done
libdirs=$(ldd "$ream" | grep -o '/[^ ]*' | xargs -n1 dirname | sort -u | tr '\n' ':')
cat > "$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin LD_LIBRARY_PATH=${libdirs%:}
EOF
cat >> "$root/init" <<'EOF'
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs tmp /tmp
for m in $(cat /etc/modules); do insmod /lib/modules/$m.ko; done
set --
for w in $(cat /proc/cmdline); do
  case $w in
    ream.ip=*) ip=${w#ream.ip=} ;;
    ream.arg=*) set -- "$@" "$(printf "$(echo "${w#ream.arg=}" | sed 's/../\\x&/g')")" ;;
  esac
done
ip link set lo up
ip link set eth0 up && ip addr add "$ip" dev eth0 || echo "ream-guest: no network (eth0, $ip)"
echo "ream-guest: up at $ip, running: $*"
# The workload's output goes to the console, which ream reads on the host.
"$@" </dev/null 2>&1 &
wait $!
echo "ream-guest: the workload exited with status $?"
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | "$bb" cpio -o -H newc 2>/dev/null | gzip -1 > "$tmp/initrd.gz")
cp "$(ls "$tmp"/k/boot/vmlinuz-* | head -n 1)" "$tmp/vmlinuz"
mkdir "$tmp/img"
mv "$tmp/vmlinuz" "$tmp/initrd.gz" "$tmp/img/"
chmod 755 "$tmp/img"
chmod 644 "$tmp/img/vmlinuz" "$tmp/img/initrd.gz"
rm -rf "$dir"
mv "$tmp/img" "$dir"
# The three newest images stay (other ream builds may be using theirs); older ones go.
ls -td "$imgdir"/*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
echo "image $dir $key built"
)SH";

}  // namespace

std::vector<std::string> GuestArgWords(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const auto& a : argv) {
    std::string w = "ream.arg=";
    char hex[3];
    for (unsigned char c : a) {
      std::snprintf(hex, sizeof hex, "%02x", c);
      w += hex;
    }
    words.push_back(w);
  }
  return words;
}

Result<GuestImage> EnsureGuestImage(Platform& p, const std::string& ream_binary, const std::string& package_dir,
                                    const std::string& image_dir) {
  const int64_t t0 = p.MonotonicNanos();
  // The script goes in as an argument of `sh -c`: Platform::Run has no stdin.
  auto r = p.Run({"sh", "-c", kBuildScript, "ream-vm-image", ream_binary, package_dir, image_dir},
                 std::chrono::minutes(5));
  if (!r.ok()) return Unavailable("building the vm guest image: " + r.status().message());
  if (r->exit_code != 0) {
    std::string err = r->err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return Unavailable("building the vm guest image failed: " + (err.empty() ? r->Describe() : err));
  }
  // "image DIR KEY built|cached"
  std::string line = r->out.substr(0, r->out.find('\n'));
  size_t a = line.find(' '), b = line.find(' ', a + 1), c = line.find(' ', b + 1);
  if (line.rfind("image ", 0) != 0 || b == std::string::npos || c == std::string::npos) {
    return Internal("the vm image builder printed '" + line + "'");
  }
  GuestImage img;
  std::string dir = line.substr(a + 1, b - a - 1);
  img.key = line.substr(b + 1, c - b - 1);
  img.built = line.substr(c + 1) == "built";
  img.kernel = dir + "/vmlinuz";
  img.initrd = dir + "/initrd.gz";
  img.build_seconds = static_cast<double>(p.MonotonicNanos() - t0) / 1e9;
  return img;
}

}  // namespace ream
