#include "sandbox/vm_sandbox.h"

#include <atomic>
#include <map>
#include <mutex>

#include "partition/knobs.h"
#include "platform/text.h"
#include "sandbox/libvirt_api.h"
#include "sandbox/state.h"
#include "topology/topology.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

// The loaded API. Only called once Connect() succeeded, which loaded it.
const LibvirtApi& V() { return **Libvirt(); }

// libvirt prints every error on stderr unless told otherwise; ream says them itself.
void QuietErrors(void*, virErrorPtr) {}

std::string LibvirtError() {
  auto api = Libvirt();
  if (!api.ok()) return api.status().message();
  const char* m = (*api)->GetLastErrorMessage();
  return m ? m : "unknown libvirt error";
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\'': out += "&apos;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Secs(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

constexpr char kGuestPrefix[] = "ream-guest: the workload exited with status ";

// A guest's CPU quota: over libvirt's global period, at least libvirt's smallest quota.
constexpr int64_t kDomainPeriodUs = 100000;
constexpr int64_t kMinDomainQuotaUs = 1000;
int64_t DomainQuotaUs(double cpus) { return static_cast<int64_t>(cpus * kDomainPeriodUs + 0.5); }

// The cgroup libvirt made for a guest's QEMU (machine/qemu-N-<domain>.libvirt-qemu on cgroupfs):
// the domain's group, which QEMU's threads sit in, in sub-groups (emulator, vcpuN) where libvirt
// made them. Read-only for ream: libvirt removes it with the domain.
Result<std::unique_ptr<Cgroup>> DomainCgroup(Platform& p, int qemu_pid) {
  if (qemu_pid <= 0) return Unavailable("QEMU's pid is not known (libvirt's pid file cannot be read)");
  return Cgroup::OfProcess(p, DetectCgroups(p), qemu_pid,
                           [](const std::string& leaf) { return leaf == "emulator" || leaf.rfind("vcpu", 0) == 0; });
}

// What the domain's cgroup holds, read back after a start: its cpu files carry the <cputune>
// globals. "" when there is nothing to say; "unavailable: why" when it cannot be read.
std::string DomainCgroupCpu(const Result<std::unique_ptr<Cgroup>>& cg, bool quota, bool weight) {
  if (!quota && !weight) return "";
  if (!cg.ok()) return "unavailable: " + cg.status().message();
  if (!(*cg)->Has("cpu")) return "unavailable: QEMU's cgroup has no group of its own in a cpu hierarchy";
  std::string out;
  auto show = [&](const std::string& file) {
    auto v = (*cg)->Read("cpu", file);
    out += (out.empty() ? "" : ", ") + file + " " + (v.ok() ? Trim(*v) : "unreadable (" + v.status().message() + ")");
  };
  if ((*cg)->version() == 2) {
    if (quota) show("cpu.max");
    if (weight) show("cpu.weight");
  } else {
    if (quota) {
      show("cpu.cfs_quota_us");
      show("cpu.cfs_period_us");
    }
    if (weight) show("cpu.shares");
  }
  return "its cgroup " + (*cg)->Dir("cpu") + " holds " + out;
}

class VmKind;

// Guests side by side in one ream (a subject and co-runners, each kind of its own): every name
// of a guest or a kind is unique in the process, so no two collide on this host.
std::atomic<int> g_guests{0};
std::atomic<int> g_kinds{0};

class VmSandbox final : public Sandbox {
 public:
  VmSandbox(Platform& p, virDomainPtr dom, std::string name, std::unique_ptr<ChildProcess> console,
            std::vector<int> cpus, std::string ip, std::string tap, VmStartTimes times)
      : p_(p),
        dom_(dom),
        name_(std::move(name)),
        console_(std::move(console)),
        cpus_(std::move(cpus)),
        ip_(std::move(ip)),
        tap_(std::move(tap)),
        times_(std::move(times)) {}
  ~VmSandbox() override {
    (void)Stop();
    if (dom_) V().DomainFree(dom_);
  }

  const std::string& name() const override { return name_; }
  // QEMU's pid (the guest's process on this host), 0 when libvirt's pid file cannot be read.
  int pid() const override {
    return std::atoi(p_.ReadFile("/run/libvirt/qemu/" + name_ + ".pid").value_or("0").c_str());
  }
  std::string address() const override { return ip_; }
  const std::vector<int>& cpus() const override { return cpus_; }
  MonitorTarget monitor_target() const override {
    MonitorTarget t;
    t.cpus = cpus_;
    t.host_veth = tap_;
    // Memory from the domain's cgroup, libvirt's (QEMU: the guest's touched RAM and the emulator's
    // own); the guest has no disk to count.
    t.cgroup = domain_cg_.get();
    t.unavailable_reason = domain_cg_reason_;
    t.unavailable["disk"] = "the vm sandbox's guest has no disk (its root is an initramfs)";
    // The reader holds a reference of its own: a monitor may outlive the sandbox object.
    V().DomainRef(dom_);
    std::shared_ptr<virDomain> ref(dom_, [](virDomainPtr d) { V().DomainFree(d); });
    t.cpu_source = "libvirt virDomainListGetStats cpu.time (the guest's vCPUs and QEMU's own threads, host side)";
    t.cpu_ns_reader = [ref]() -> std::optional<int64_t> {
      virDomainPtr doms[] = {ref.get(), nullptr};
      virDomainStatsRecordPtr* records = nullptr;
      if (V().DomainListGetStats(doms, VIR_DOMAIN_STATS_CPU_TOTAL, &records, 0) < 1 || !records) return std::nullopt;
      std::optional<int64_t> ns;
      unsigned long long v = 0;
      if (V().TypedParamsGetULLong(records[0]->params, records[0]->nparams, "cpu.time", &v) == 1) {
        ns = static_cast<int64_t>(v);
      }
      V().DomainStatsRecordListFree(records);
      return ns;
    };
    return t;
  }

  bool Alive() override {
    if (stopped_ || !dom_) return false;
    return V().DomainIsActive(dom_) == 1;
  }
  Result<ProcessExit> Wait(milliseconds timeout) override {
    const int64_t end = p_.MonotonicNanos() + std::chrono::nanoseconds(timeout).count();
    while (Alive()) {
      if (p_.MonotonicNanos() >= end) return Timeout("the guest " + name_ + " still runs");
      p_.SleepFor(milliseconds(50));
    }
    ProcessExit e;
    e.exit_code = GuestExitStatus().value_or(-1);
    return e;
  }
  std::string ExitDescription() override {
    if (Alive()) return "still running";
    // Read after "the workload ": "... exited with status 1 in the guest ream-vm-7-1".
    if (auto st = GuestExitStatus()) {
      return "exited with status " + std::to_string(*st) + " in the guest " + name_ + ", which then powered off";
    }
    return stopped_ ? "stopped by ream" : "stopped with its guest " + name_ + ", which libvirt reports inactive";
  }
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  milliseconds timeout) override {
    return console_->WaitForLine(match, timeout);
  }
  ChildProcess& process() override { return *console_; }
  std::string startup_note() const override {
    std::string accel = times_.accel == "kvm" ? "KVM" : "TCG, software emulation";
    std::string s = "vm sandbox (" + accel + "): guest " + name_ + " at " + ip_ + " restored from its saved state in " +
                    Secs(times_.restore_s);
    if (times_.booted) {
      s += "; its cold boot to the workload's readiness took " + Secs(times_.cold_boot_s) + ", saving the state " +
           Secs(times_.save_s);
    }
    if (!cputune_.empty()) s += "; " + cputune_;
    return s;
  }
  void set_cputune_note(std::string note) { cputune_ = std::move(note); }
  // The domain's cgroup, for the monitor's memory (and disk, once a guest has one); its error
  // says why those figures are unavailable.
  void set_domain_cgroup(Result<std::unique_ptr<Cgroup>> cg) {
    if (cg.ok()) {
      domain_cg_ = std::move(*cg);
    } else {
      domain_cg_reason_ = "the domain's cgroup cannot be read: " + cg.status().message();
    }
  }
  const VmStartTimes& times() const { return times_; }

  Status Stop() override {
    if (stopped_) return Status::Ok();
    stopped_ = true;
    Status first;
    if (dom_ && V().DomainIsActive(dom_) == 1 && V().DomainDestroy(dom_) != 0) {
      first = IoError("destroying the guest " + name_ + ": " + LibvirtError());
    }
    if (console_) {
      (void)console_->Signal(SIGTERM);
      (void)console_->Wait(milliseconds(2000));
    }
    return first;
  }

 private:
  std::optional<int> GuestExitStatus() const {
    for (const auto& l : console_->Lines()) {
      auto at = l.find(kGuestPrefix);
      if (at != std::string::npos) return std::atoi(l.c_str() + at + sizeof(kGuestPrefix) - 1);
    }
    return std::nullopt;
  }

  Platform& p_;
  virDomainPtr dom_;  // on the kind's connection, which outlives it
  std::string name_;
  std::unique_ptr<ChildProcess> console_;
  std::vector<int> cpus_;
  std::string ip_, tap_;
  VmStartTimes times_;
  std::string cputune_;
  std::unique_ptr<Cgroup> domain_cg_;  // libvirt's, observed; null: domain_cg_reason_ says why
  std::string domain_cg_reason_;
  bool stopped_ = false;
};

// One saved guest: a command and partition booted once.
struct Saved {
  std::string domain, tap, save_path, console_path;
  VmStartTimes boot;
  bool restored_once = false;
};

class VmKind final : public SandboxKind {
 public:
  VmKind(Platform& p, VmKindOptions o) : p_(p), o_(std::move(o)), seq_(++g_kinds) {}
  ~VmKind() override {
    // Every saved state and console recorded, booted or not (a failed boot leaves its console).
    if (state_) {
      for (const auto& e : state_->entries()) {
        if (e.kind == "vmfile") (void)p_.RemoveFile(e.id);
      }
    }
    if (!bridge_.empty()) (void)p_.Run({"ip", "link", "delete", bridge_}, milliseconds(10000));
    if (state_) (void)state_->Remove();
    if (conn_) V().ConnectClose(conn_);
  }
  std::string_view name() const override { return "vm"; }
  std::vector<VcpuPin> VcpuPins(const std::vector<int>& cpus) const override { return VmVcpuPins(cpus); }

  Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& options, const std::vector<std::string>& argv) override {
    PartitionSpec rest = options.partition;
    rest.cpus.clear();
    rest.memory_bytes.reset();
    rest.cpu_quota.reset();
    rest.cpu_weight.reset();
    rest.llc_ways.reset();
    rest.llc_masks.clear();  // libvirt picks a guest's ways itself (<cachetune> takes a size)
    rest.mem_bw_fraction.reset();
    rest.mem_bw_mbps.reset();  // refused by ApplyPartitionToDomain, naming why
    if (!rest.empty()) {
      return Unsupported("the vm sandbox enforces CPU placement and quota, CPU weight, memory, LLC ways and memory "
                         "bandwidth so far (asked also for " + rest.ToJson().dump() + ")");
    }
    DomainConfig tune;
    {
      std::optional<ResctrlInfo> rc;
      int64_t llc_bytes = 0;
      if (options.partition.llc_ways || options.partition.mem_bw_fraction) {
        if (auto r = ReadResctrl(p_); r.ok()) rc = *r;
        if (auto t = ReadTopology(p_); t.ok() && t->llc()) llc_bytes = t->llc()->size_bytes;
      }
      REAM_RETURN_IF_ERROR(ApplyPartitionToDomain(options.partition, rc ? &*rc : nullptr, llc_bytes, &tune));
    }
    if (argv.empty()) return InvalidArgument("the vm sandbox needs a command");
    std::vector<int> cpus;
    if (!options.partition.cpus.empty()) {
      auto parsed = ParseCpuList(options.partition.cpus);
      if (!parsed.ok()) return parsed.status();
      cpus = *parsed;
    }
    if (cpus.empty()) return InvalidArgument("the vm sandbox needs the CPUs its vCPUs are pinned to");
    REAM_RETURN_IF_ERROR(Connect());
    REAM_RETURN_IF_ERROR(EnsureImage());
    REAM_RETURN_IF_ERROR(EnsureBridge(options.state_dir));
    std::vector<std::string> guest = GuestArgv(argv);
    const int64_t memory = options.partition.memory_bytes.value_or(o_.default_memory_bytes);
    // One saved guest per command and partition: the saved state carries its domain's XML, so a
    // restore applies the same cputune again.
    std::string key = FormatCpuList(cpus) + "|" + std::to_string(memory) + "|" + options.partition.ToJson().dump();
    for (const auto& a : guest) key += "|" + a;
    auto it = saved_.find(key);
    if (it == saved_.end()) {
      REAM_ASSIGN_OR_RETURN(Saved s, Boot(guest, cpus, memory, tune));
      it = saved_.emplace(key, std::move(s)).first;
    }
    return Restore(it->second, options, cpus);
  }

  std::vector<KnobSupport> Support() override {
    std::vector<KnobSupport> out;
    for (const KnobSupportRow& row : BuiltinKnobs().support_rows()) {
      if (row.flag == "--cpus") {
        out.push_back({row.flag, true, "libvirt vcpupin and emulatorpin: one vCPU per allotted CPU"});
      } else if (row.flag == "--memory") {
        out.push_back({row.flag, true, "the domain's memory"});
      } else if (row.flag == "--cpu-quota") {
        out.push_back({row.flag, true,
                       "libvirt <cputune> global_quota over global_period (the whole domain); cpu_weight as <shares>"});
      } else if (row.flag == "--llc-ways" || row.flag == "--mem-bw") {
        const bool l3 = row.flag == "--llc-ways";
        auto rc = ReadResctrl(p_);
        const bool has = rc.ok() && (l3 ? rc->l3 : rc->mb);
        out.push_back({row.flag, has,
                       has ? std::string("libvirt <") + (l3 ? "cachetune" : "memorytune") + "> (libvirt makes the resctrl group)"
                           : std::string("libvirt's <") + (l3 ? "cachetune" : "memorytune") + "> needs resctrl: " +
                                 (rc.ok() ? "no " + std::string(l3 ? "L3 CAT" : "MBA") + " in " + rc->mount
                                          : rc.status().message())});
      } else {
        out.push_back({row.flag, false, "not applied by the vm sandbox yet (docs/vm.md)"});
      }
    }
    return out;
  }

  std::vector<Capability> Probe() override {
    std::vector<Capability> caps;
    Capability c{"vm.libvirt", Support::kUnsupported, ""};
    Status s = Connect();
    if (s.ok()) {
      unsigned long v = 0;
      V().ConnectGetLibVersion(conn_, &v);
      c.status = Support::kSupported;
      c.detail = o_.uri + ": libvirt " + std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
                 std::to_string(v % 1000);
      // A root-only /dev/kvm (a machine without udev) makes libvirt 9 call its cached QEMU probe
      // outdated on every call (probed as root: KVM usable; checked as its QEMU user: not), so
      // each guest start spends ~50 s re-probing QEMU.
      auto kvm = p_.Exists("/dev/kvm") ? p_.Run({"stat", "-c", "%G %A", "/dev/kvm"}, std::chrono::seconds(5))
                                       : Result<CommandResult>(NotFound("no /dev/kvm"));
      if (kvm.ok() && kvm->exit_code == 0 && kvm->out.rfind("kvm crw-rw", 0) != 0) {
        c.detail += "; /dev/kvm is not readable and writable by group kvm, so libvirt probes QEMU afresh on every "
                    "call (about 50 s per guest start): `chgrp kvm /dev/kvm && chmod 660 /dev/kvm`, as Debian's udev "
                    "rule sets it (scripts/install-deps does this)";
      }
    } else {
      c.detail = s.message();
    }
    caps.push_back(c);
    if (o_.image.empty()) {
      Capability img{"vm.image", Support::kUnsupported,
                     "no guest kernel in " + o_.package_dir + " (scripts/install-deps downloads Debian's linux-image-amd64)"};
      if (auto files = p_.ListDir(o_.package_dir); files.ok()) {
        for (const auto& f : *files) {
          if (f.name.rfind("linux-image-", 0) == 0 && f.name.size() > 4 && f.name.substr(f.name.size() - 4) == ".deb") {
            img.status = Support::kSupported;
            img.detail = "ream builds its guest image from " + o_.package_dir + "/" + f.name +
                         ", busybox-static and this ream binary, cached in " + o_.image_dir;
          }
        }
      }
      caps.push_back(img);
    } else {
      Capability img{"vm.image", Support::kSupported, "the user's image " + o_.image};
      for (const char* f : {"vmlinuz", "initrd.gz"}) {
        if (!p_.Exists(o_.image + "/" + f)) {
          img.status = Support::kUnsupported;
          img.detail = "the image " + o_.image + " has no " + f +
                       " (an image is a directory holding vmlinuz and initrd.gz; docs/vm.md)";
          break;
        }
      }
      caps.push_back(img);
    }
    caps.push_back({"vm.accel", Support::kSupported,
                    o_.accel == "kvm" ? "KVM ([sandbox] accel = \"kvm\")"
                                      : "TCG, QEMU's software emulation (the default; [sandbox] accel = \"kvm\" for KVM, "
                                        "which nested guests barely run): timings are not comparable with KVM's"});
    return caps;
  }

 private:
  Status Connect() {
    if (conn_) return Status::Ok();
    auto api = Libvirt();
    if (!api.ok()) return Unavailable("the vm sandbox cannot load libvirt: " + api.status().message());
    V().SetErrorFunc(nullptr, QuietErrors);
    conn_ = V().ConnectOpen(o_.uri.c_str());
    if (!conn_) {
      return Unavailable("the vm sandbox cannot reach libvirt at " + o_.uri + ": " + LibvirtError() +
                         " (is libvirtd running? `libvirtd -d`, or `systemctl start libvirtd`)");
    }
    return Status::Ok();
  }

  Status EnsureImage() {
    if (image_) return Status::Ok();
    if (!o_.image.empty()) {
      GuestImage img;
      img.kernel = o_.image + "/vmlinuz";
      img.initrd = o_.image + "/initrd.gz";
      for (const auto& f : {img.kernel, img.initrd}) {
        if (!p_.Exists(f)) {
          return NotFound("the vm sandbox's image " + o_.image + " has no " + f.substr(f.rfind('/') + 1) +
                          " (an image is a directory holding vmlinuz and initrd.gz; docs/vm.md)");
        }
      }
      img.key = "user image " + o_.image;
      image_ = img;
      ream_ = "/bin/ream";
      return Status::Ok();
    }
    std::string ream = o_.ream_binary;
    if (ream.empty()) {
      REAM_ASSIGN_OR_RETURN(ream, p_.RealPath("/proc/self/exe"));
    }
    ream_ = ream;
    REAM_ASSIGN_OR_RETURN(GuestImage img, EnsureGuestImage(p_, ream, o_.package_dir, o_.image_dir));
    image_ = img;
    return Status::Ok();
  }

  // The kind's objects' record, and its bridge: 10.213.254.(4k+1)/30 on the host side, the
  // guest at +2 (sandbox.h's kNodeNetwork; nodes take their pairs from the bottom).
  Status EnsureBridge(const std::string& state_dir) {
    if (!bridge_.empty()) return Status::Ok();
    const int pid = p_.ProcessId();
    if (!state_) {
      REAM_ASSIGN_OR_RETURN(state_,
                            StateFile::Create(p_, state_dir, "vm-" + std::to_string(pid) + "-" + std::to_string(seq_)));
      state_dir_ = state_dir;
    }
    auto addrs = p_.Run({"ip", "-o", "-4", "addr", "show"}, milliseconds(10000));
    if (!addrs.ok()) return addrs.status();
    int k = pid % 63;
    for (int tries = 0; tries < 63; ++tries, k = (k + 1) % 63) {
      if (addrs->out.find("10.213.254." + std::to_string(4 * k + 1) + "/") == std::string::npos) break;
    }
    host_ip_ = "10.213.254." + std::to_string(4 * k + 1);
    guest_ip_ = "10.213.254." + std::to_string(4 * k + 2);
    std::string name = "ream" + std::to_string(pid) + "b" + std::to_string(seq_);
    REAM_RETURN_IF_ERROR(state_->Record("bridge", name));
    for (const std::vector<std::string>& cmd :
         {std::vector<std::string>{"ip", "link", "add", name, "type", "bridge"},
          std::vector<std::string>{"ip", "addr", "add", host_ip_ + "/30", "dev", name},
          std::vector<std::string>{"ip", "link", "set", name, "up"}}) {
      auto r = p_.Run(cmd, milliseconds(10000));
      if (!r.ok() || r->exit_code != 0) {
        (void)p_.Run({"ip", "link", "delete", name}, milliseconds(10000));
        return IoError("creating the vm sandbox's bridge " + name + ": " + (r.ok() ? r->Describe() : r.status().message()));
      }
    }
    bridge_ = name;
    return Status::Ok();
  }

  // argv for the guest: this ream binary is the guest's /bin/ream (also where it is wrapped:
  // a co-runner's `ream corun -- ream serve ...`), and ream's own servers listen on the
  // guest's interface.
  std::vector<std::string> GuestArgv(std::vector<std::string> argv) const {
    const std::string base = argv[0].substr(argv[0].rfind('/') + 1);
    if (base == "ream") argv[0] = "/bin/ream";
    for (std::string& a : argv) {
      if (a == ream_) a = "/bin/ream";
    }
    for (size_t at = 0; at + 2 < argv.size(); ++at) {
      if (argv[at] != "/bin/ream" || argv[at + 1] != "serve") continue;
      bool bound = false;
      for (size_t i = at + 2; i + 1 < argv.size(); ++i) {
        if (argv[i] == "--bind") {
          argv[i + 1] = "0.0.0.0";
          bound = true;
        }
      }
      if (!bound) argv.insert(argv.begin() + static_cast<std::ptrdiff_t>(at) + 3, {"--bind", "0.0.0.0"});
      break;
    }
    return argv;
  }

  Result<std::unique_ptr<ChildProcess>> Console(const std::string& path, const SandboxOptions* o) {
    SpawnOptions so;
    // From the file's first line, following it: the readiness line the workload printed
    // before the state was saved is seen again by every restored sandbox.
    so.argv = {"tail", "-n", "+1", "-F", path};
    so.capture_stdout = true;
    if (o) so.on_stdout_line = o->on_stdout_line;
    return p_.Spawn(so);
  }

  Result<Saved> Boot(const std::vector<std::string>& argv, const std::vector<int>& cpus, int64_t memory,
                     const DomainConfig& tune) {
    const int pid = p_.ProcessId();
    const int n = ++g_guests;
    Saved s;
    s.domain = "ream-vm-" + std::to_string(pid) + "-" + std::to_string(n);
    s.tap = "ream" + std::to_string(pid) + "t" + std::to_string(n);
    s.save_path = state_dir_ + "/" + s.domain + ".save";
    s.console_path = state_dir_ + "/" + s.domain + ".console";
    REAM_RETURN_IF_ERROR(state_->Record("vmfile", s.console_path));
    REAM_RETURN_IF_ERROR(state_->Record("vmfile", s.save_path));
    REAM_RETURN_IF_ERROR(state_->Record("domain", s.domain));
    DomainConfig c = tune;
    c.name = s.domain;
    c.accel = o_.accel;
    c.kernel = image_->kernel;
    c.initrd = image_->initrd;
    c.cmdline = "console=ttyS0 quiet panic=-1 ream.ip=" + guest_ip_ + "/30";
    for (const auto& w : GuestArgWords(argv)) c.cmdline += " " + w;
    if (c.cmdline.size() > 2000) {
      return InvalidArgument("the workload's command is too long for the guest's kernel command line (" +
                             std::to_string(c.cmdline.size()) + " bytes, at most 2000)");
    }
    c.console_path = s.console_path;
    c.bridge = bridge_;
    c.tap = s.tap;
    c.cpus = cpus;
    c.memory_bytes = memory;
    (void)p_.RemoveFile(s.console_path);
    const int64_t t0 = p_.MonotonicNanos();
    virDomainPtr dom = V().DomainCreateXML(conn_, DomainXml(c).c_str(), 0);
    if (!dom) return Unavailable("the vm sandbox could not start the guest " + s.domain + ": " + LibvirtError());
    auto fail = [&](const std::string& why, ChildProcess* console) -> Status {
      std::string tail;
      if (console) {
        auto lines = console->Lines();
        for (size_t i = lines.size() > 8 ? lines.size() - 8 : 0; i < lines.size(); ++i) tail += "\n    " + lines[i];
      }
      if (V().DomainIsActive(dom) == 1) (void)V().DomainDestroy(dom);
      V().DomainFree(dom);
      (void)p_.RemoveFile(s.console_path);
      return Unavailable("the guest " + s.domain + " " + why +
                         (tail.empty() ? " (its console printed nothing)" : "; its console's last lines:" + tail));
    };
    auto console = Console(s.console_path, nullptr);
    if (!console.ok()) return fail("started, but its console cannot be read: " + console.status().message(), nullptr);
    const int64_t deadline = t0 + std::chrono::nanoseconds(o_.boot_timeout).count();
    while (true) {
      auto line = (*console)->WaitForLine([](const std::string& l) { return l.rfind("ready ", 0) == 0; },
                                          milliseconds(200));
      if (line.ok()) break;
      if (V().DomainIsActive(dom) != 1) return fail("stopped before its workload was ready", console->get());
      if (p_.MonotonicNanos() > deadline) {
        return fail("did not print its workload's readiness line within " +
                        Secs(std::chrono::duration<double>(o_.boot_timeout).count()) +
                        " (an image that does not boot, or a workload that never gets ready)",
                    console->get());
      }
    }
    s.boot.booted = true;
    s.boot.accel = o_.accel;
    s.boot.cold_boot_s = static_cast<double>(p_.MonotonicNanos() - t0) / 1e9;
    const int64_t t1 = p_.MonotonicNanos();
    if (V().DomainSave(dom, s.save_path.c_str()) != 0) {
      return fail("could not be saved to " + s.save_path + ": " + LibvirtError(), console->get());
    }
    s.boot.save_s = static_cast<double>(p_.MonotonicNanos() - t1) / 1e9;
    V().DomainFree(dom);
    (void)(*console)->Signal(SIGTERM);
    (void)(*console)->Wait(milliseconds(2000));
    return s;
  }

  Result<std::unique_ptr<Sandbox>> Restore(Saved& s, const SandboxOptions& options, const std::vector<int>& cpus) {
    const int64_t t0 = p_.MonotonicNanos();
    if (V().DomainRestore(conn_, s.save_path.c_str()) != 0) {
      return Unavailable("restoring the guest " + s.domain + " from " + s.save_path + ": " + LibvirtError());
    }
    VmStartTimes times;
    times.accel = o_.accel;
    times.restore_s = static_cast<double>(p_.MonotonicNanos() - t0) / 1e9;
    if (!s.restored_once) {
      times.booted = true;
      times.cold_boot_s = s.boot.cold_boot_s;
      times.save_s = s.boot.save_s;
      s.restored_once = true;
    }
    virDomainPtr dom = V().DomainLookupByName(conn_, s.domain.c_str());
    if (!dom) return Unavailable("the restored guest " + s.domain + " is not found: " + LibvirtError());
    auto console = Console(s.console_path, &options);
    if (!console.ok()) {
      (void)V().DomainDestroy(dom);
      V().DomainFree(dom);
      return console.status();
    }
    auto sb = std::make_unique<VmSandbox>(p_, dom, s.domain, std::move(*console), cpus, guest_ip_, s.tap, times);
    auto cg = DomainCgroup(p_, sb->pid());
    sb->set_cputune_note(DomainCgroupCpu(cg, options.partition.cpu_quota.has_value(),
                                         options.partition.cpu_weight.has_value()));
    sb->set_domain_cgroup(std::move(cg));
    if (options.before_exec) options.before_exec(*sb);
    return std::unique_ptr<Sandbox>(std::move(sb));
  }

  Platform& p_;
  VmKindOptions o_;
  virConnectPtr conn_ = nullptr;
  std::optional<GuestImage> image_;
  std::string ream_;
  std::unique_ptr<StateFile> state_;
  std::string state_dir_;
  std::string bridge_, host_ip_, guest_ip_;
  std::map<std::string, Saved> saved_;
  const int seq_;  // this kind's bridge and state file
};

}  // namespace

Status ApplyPartitionToDomain(const PartitionSpec& partition, const ResctrlInfo* resctrl, int64_t llc_bytes,
                              DomainConfig* c) {
  c->cpu_quota = partition.cpu_quota;
  c->cpu_weight = partition.cpu_weight;
  if (partition.cpu_quota && DomainQuotaUs(*partition.cpu_quota) < kMinDomainQuotaUs) {
    return InvalidArgument("cpu_quota " + Fmt("%.1f", *partition.cpu_quota * 100) + "%: libvirt takes a quota of at least " +
                           std::to_string(kMinDomainQuotaUs) + " us per " + std::to_string(kDomainPeriodUs) + " us");
  }
  const std::string no_resctrl = "this host has no resctrl (/sys/fs/resctrl), so libvirt cannot apply ";
  if (partition.llc_ways) {
    if (!resctrl || !resctrl->l3) return Unsupported("llc_ways: " + no_resctrl + "<cachetune>");
    if (resctrl->cbm_bits <= 0 || llc_bytes <= 0) {
      return Unsupported("llc_ways: the LLC's size or its ways are unknown, so no <cachetune> size can be given");
    }
    if (*partition.llc_ways < 1 || *partition.llc_ways > resctrl->cbm_bits) {
      return InvalidArgument("llc_ways " + std::to_string(*partition.llc_ways) + ": this LLC has " +
                             std::to_string(resctrl->cbm_bits) + " ways");
    }
    // libvirt takes a size and picks the bits itself; a size of whole ways is one it can grant.
    const int64_t way_kib = llc_bytes / 1024 / resctrl->cbm_bits;
    for (int id : resctrl->l3_domains) c->l3.push_back({id, way_kib * *partition.llc_ways});
  }
  if (partition.mem_bw_mbps) {
    return Unsupported("mem_bw in MB/s: libvirt's <memorytune> writes its bandwidth as given, a percentage on this "
                       "kind of mount; give mem_bw as a percentage for a guest");
  }
  if (partition.mem_bw_fraction) {
    if (!resctrl || !resctrl->mb) return Unsupported("mem_bw: " + no_resctrl + "<memorytune>");
    if (!resctrl->mb_is_percent) {
      return Unsupported("mem_bw: this resctrl mount takes memory bandwidth in MB/s, and libvirt's <memorytune> "
                         "writes a percentage as given");
    }
    const int percent = std::max(resctrl->min_bandwidth, static_cast<int>(*partition.mem_bw_fraction * 100 + 0.5));
    for (int id : resctrl->mb_domains) c->mba.push_back({id, percent});
  }
  return Status::Ok();
}

std::vector<VcpuPin> VmVcpuPins(const std::vector<int>& cpus) {
  std::vector<VcpuPin> out;
  for (size_t i = 0; i < cpus.size(); ++i) out.push_back({static_cast<int>(i), cpus[i]});
  return out;
}

std::string DomainXml(const DomainConfig& c) {
  std::string cpus = FormatCpuList(c.cpus);
  std::string x = "<domain type='" + std::string(c.accel == "kvm" ? "kvm" : "qemu") + "'>\n";
  x += "  <name>" + XmlEscape(c.name) + "</name>\n";
  x += "  <memory unit='KiB'>" + std::to_string(c.memory_bytes / 1024) + "</memory>\n";
  x += "  <vcpu placement='static' cpuset='" + cpus + "'>" + std::to_string(c.cpus.size()) + "</vcpu>\n";
  x += "  <cputune>\n";
  if (c.cpu_weight) x += "    <shares>" + std::to_string(static_cast<int64_t>(*c.cpu_weight) * 1024 / 100) + "</shares>\n";
  if (c.cpu_quota) {
    x += "    <global_period>" + std::to_string(kDomainPeriodUs) + "</global_period>\n";
    x += "    <global_quota>" + std::to_string(DomainQuotaUs(*c.cpu_quota)) + "</global_quota>\n";
  }
  for (const VcpuPin& pin : VmVcpuPins(c.cpus)) {
    x += "    <vcpupin vcpu='" + std::to_string(pin.vcpu) + "' cpuset='" + std::to_string(pin.host_cpu) + "'/>\n";
  }
  x += "    <emulatorpin cpuset='" + cpus + "'/>\n";
  const std::string vcpus = c.cpus.empty() ? "0" : "0-" + std::to_string(c.cpus.size() - 1);
  if (!c.l3.empty()) {
    x += "    <cachetune vcpus='" + vcpus + "'>\n";
    for (const auto& l : c.l3) {
      x += "      <cache id='" + std::to_string(l.cache_id) + "' level='3' type='both' size='" + std::to_string(l.kib) +
           "' unit='KiB'/>\n";
    }
    x += "    </cachetune>\n";
  }
  if (!c.mba.empty()) {
    x += "    <memorytune vcpus='" + vcpus + "'>\n";
    for (const auto& m : c.mba) {
      x += "      <node id='" + std::to_string(m.node) + "' bandwidth='" + std::to_string(m.percent) + "'/>\n";
    }
    x += "    </memorytune>\n";
  }
  x += "  </cputune>\n";
  x += "  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n";
  x += "    <kernel>" + XmlEscape(c.kernel) + "</kernel>\n    <initrd>" + XmlEscape(c.initrd) + "</initrd>\n";
  x += "    <cmdline>" + XmlEscape(c.cmdline) + "</cmdline>\n  </os>\n";
  x += "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n  <on_crash>destroy</on_crash>\n";
  x += "  <devices>\n";
  x += "    <interface type='bridge'>\n      <source bridge='" + XmlEscape(c.bridge) + "'/>\n";
  x += "      <target dev='" + XmlEscape(c.tap) + "'/>\n      <model type='virtio'/>\n    </interface>\n";
  x += "    <serial type='file'>\n      <source path='" + XmlEscape(c.console_path) + "' append='on'/>\n";
  x += "      <target port='0'/>\n    </serial>\n";
  x += "    <memballoon model='none'/>\n  </devices>\n</domain>\n";
  return x;
}

std::unique_ptr<SandboxKind> MakeVmSandboxKind(Platform& platform, VmKindOptions options) {
  return std::make_unique<VmKind>(platform, std::move(options));
}

}  // namespace ream
