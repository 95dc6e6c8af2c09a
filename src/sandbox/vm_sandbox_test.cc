// The vm sandbox's pure parts: the domain it defines and how a command reaches the guest.
#include "sandbox/vm_sandbox.h"

#include <gtest/gtest.h>

#include "sandbox/vm_image.h"

namespace ream {
namespace {

DomainConfig Plain() {
  DomainConfig c;
  c.name = "ream-vm-12-1";
  c.accel = "tcg";
  c.kernel = "/var/cache/ream/vm/k/vmlinuz";
  c.initrd = "/var/cache/ream/vm/k/initrd.gz";
  c.cmdline = "console=ttyS0";
  c.console_path = "/run/ream/ream-vm-12-1.console";
  c.bridge = "ream12b1";
  c.tap = "ream12t1";
  c.cpus = {2, 3};
  c.memory_bytes = int64_t{256} << 20;
  return c;
}

TEST(VmDomainXml, PinsOneVcpuPerCpuAndKeepsEverythingReamNamed) {
  DomainConfig c = Plain();
  c.cmdline = "console=ttyS0 ream.ip=10.213.254.2/30 ream.arg=2f62696e2f7265616d";
  std::string x = DomainXml(c);
  EXPECT_NE(x.find("<domain type='qemu'>"), std::string::npos) << x;  // TCG
  EXPECT_NE(x.find("<memory unit='KiB'>262144</memory>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpu placement='static' cpuset='2-3'>2</vcpu>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpupin vcpu='0' cpuset='2'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<vcpupin vcpu='1' cpuset='3'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<emulatorpin cpuset='2-3'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<source bridge='ream12b1'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<target dev='ream12t1'/>"), std::string::npos) << x;
  // The console is appended to, so a restored guest's reader sees the boot's readiness line.
  EXPECT_NE(x.find("append='on'"), std::string::npos) << x;
  c.accel = "kvm";
  c.cmdline = "a<b & 'c'";
  x = DomainXml(c);
  EXPECT_NE(x.find("<domain type='kvm'>"), std::string::npos);
  EXPECT_NE(x.find("<cmdline>a&lt;b &amp; &apos;c&apos;</cmdline>"), std::string::npos) << x;
}

// The seed's machine (two Xeon Silver 4116, 16.5 MiB LLC of 11 ways each): resctrl as its
// kernel shows it, for the knobs this host's kernel lacks.
ResctrlInfo SeedResctrl() {
  ResctrlInfo rc;
  rc.mount = "/sys/fs/resctrl";
  rc.l3 = true;
  rc.cbm_mask = 0x7ff;
  rc.cbm_bits = 11;
  rc.l3_domains = {0, 1};
  rc.mb = true;
  rc.min_bandwidth = 10;
  rc.bandwidth_gran = 10;
  rc.mb_domains = {0, 1};
  return rc;
}
constexpr int64_t kSeedLlcBytes = int64_t{11} * 1536 * 1024;

// libvirt's own schema (virt-xml-validate, libvirt-clients) is the judge of every element.
void ExpectValidDomain(const std::string& xml, const std::string& what) {
  auto p = MakePosixPlatform();
  if (!p->FindExecutable("virt-xml-validate").ok()) GTEST_SKIP() << "virt-xml-validate (libvirt-clients) is missing";
  const std::string path = "/tmp/ream-domain-xml-" + std::to_string(p->ProcessId()) + ".xml";
  ASSERT_TRUE(p->WriteFile(path, xml).ok());
  auto r = p->Run({"virt-xml-validate", path, "domain"}, std::chrono::seconds(30));
  (void)p->RemoveFile(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << what << ": " << r->out << r->err << "\n" << xml;
}

TEST(VmDomainXml, EveryKnobIsLibvirtsOwnElementAndValidatesAgainstItsSchema) {
  ExpectValidDomain(DomainXml(Plain()), "plain");

  PartitionSpec ps;
  ps.cpu_quota = 0.5;
  ps.cpu_weight = 200;
  DomainConfig c = Plain();
  ASSERT_TRUE(ApplyPartitionToDomain(ps, nullptr, 0, &c).ok());
  std::string x = DomainXml(c);
  // The quota covers the whole domain (vCPUs and emulator), not each vCPU thread (<quota>).
  EXPECT_NE(x.find("<global_period>100000</global_period>"), std::string::npos) << x;
  EXPECT_NE(x.find("<global_quota>50000</global_quota>"), std::string::npos) << x;
  EXPECT_EQ(x.find("<quota>"), std::string::npos) << x;
  EXPECT_NE(x.find("<shares>2048</shares>"), std::string::npos) << x;  // weight 200 = 2 x the default 1024
  ExpectValidDomain(x, "quota and weight");

  ps.llc_ways = 4;
  ps.mem_bw_fraction = 0.5;
  const ResctrlInfo rc = SeedResctrl();
  c = Plain();
  ASSERT_TRUE(ApplyPartitionToDomain(ps, &rc, kSeedLlcBytes, &c).ok());
  x = DomainXml(c);
  // Four ways of 1.5 MiB on each L3 domain, as a size: libvirt picks the bits.
  EXPECT_NE(x.find("<cachetune vcpus='0-1'>"), std::string::npos) << x;
  EXPECT_NE(x.find("<cache id='0' level='3' type='both' size='6144' unit='KiB'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<cache id='1' level='3' type='both' size='6144' unit='KiB'/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<memorytune vcpus='0-1'>"), std::string::npos) << x;
  EXPECT_NE(x.find("<node id='1' bandwidth='50'/>"), std::string::npos) << x;
  ExpectValidDomain(x, "every knob");
}

TEST(VmDomainXml, AKnobThisHostCannotEnforceIsRefusedNamingWhy) {
  PartitionSpec ways;
  ways.llc_ways = 2;
  DomainConfig c = Plain();
  Status s = ApplyPartitionToDomain(ways, nullptr, kSeedLlcBytes, &c);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("no resctrl"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("<cachetune>"), std::string::npos) << s.message();

  ResctrlInfo rc = SeedResctrl();
  ways.llc_ways = 12;
  s = ApplyPartitionToDomain(ways, &rc, kSeedLlcBytes, &c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("11 ways"), std::string::npos) << s.message();

  PartitionSpec mbps;
  mbps.mem_bw_mbps = 4000;
  s = ApplyPartitionToDomain(mbps, &rc, kSeedLlcBytes, &c);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("percentage"), std::string::npos) << s.message();

  PartitionSpec tiny;
  tiny.cpu_quota = 0.005;
  s = ApplyPartitionToDomain(tiny, nullptr, 0, &c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("at least 1000 us"), std::string::npos) << s.message();
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
