// The vm sandbox's pure parts: the domain it defines and how a command reaches the guest.
#include "sandbox/vm_sandbox.h"

#include <gtest/gtest.h>

#include "sandbox/vm_image.h"

namespace ream {
namespace {

TEST(VmDomainXml, PinsOneVcpuPerCpuAndKeepsEverythingReamNamed) {
  DomainConfig c;
  c.name = "ream-vm-12-1";
  c.accel = "tcg";
  c.kernel = "/var/cache/ream/vm/k/vmlinuz";
  c.initrd = "/var/cache/ream/vm/k/initrd.gz";
  c.cmdline = "console=ttyS0 ream.ip=10.213.254.2/30 ream.arg=2f62696e2f7265616d";
  c.console_path = "/run/ream/ream-vm-12-1.console";
  c.bridge = "ream12vb";
  c.tap = "ream12t1";
  c.cpus = {2, 3};
  c.memory_bytes = int64_t{256} << 20;
  std::string x = DomainXml(c);
  EXPECT_NE(x.find("<domain type='qemu'>"), std::string::npos) << x;  // TCG
  EXPECT_NE(x.find("<memory unit='KiB'>262144</memory>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpu placement='static' cpuset='2-3'>2</vcpu>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpupin vcpu='0' cpuset='2'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpupin vcpu='1' cpuset='3'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<emulatorpin cpuset='2-3'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<source bridge='ream12vb'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<target dev='ream12t1'/>"), std::string::npos) << x;
  // The console is appended to, so a restored guest's reader sees the boot's readiness line.
  EXPECT_NE(x.find("append='on'"), std::string::npos) << x;
  c.accel = "kvm";
  c.cmdline = "a<b & 'c'";
  x = DomainXml(c);
  EXPECT_NE(x.find("<domain type='kvm'>"), std::string::npos);
  EXPECT_NE(x.find("<cmdline>a&lt;b &amp; &apos;c&apos;</cmdline>"), std::string::npos) << x;
}

TEST(VmGuestArgs, EachArgumentIsOneHexWordSoSpacesAndQuotesSurviveTheCommandLine) {
  auto w = GuestArgWords({"/bin/ream", "a b", "'\""});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "ream.arg=2f62696e2f7265616d");
  EXPECT_EQ(w[1], "ream.arg=612062");
  EXPECT_EQ(w[2], "ream.arg=2722");
  EXPECT_EQ(GuestArgWords({""})[0], "ream.arg=");
}

}  // namespace
}  // namespace ream
