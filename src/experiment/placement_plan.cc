// Placement plan: the tenants of every run on the workload's host, checked against its cores,
// its L3 and its CLOSIDs.
#include "experiment/placement_plan.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <set>

#include "experiment/corunners.h"
#include "experiment/preflight.h"
#include "platform/text.h"
#include "spec/tenant_kinds.h"

namespace ream {
namespace {

std::string Hex(uint64_t v, int bits) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", std::max(1, (bits + 3) / 4), static_cast<unsigned long long>(v));
  return b;
}

std::string SubjectWorkload(const WorkloadSpec& w) {
  if (!w.builtin.empty()) return "builtin " + w.builtin;
  if (!w.batch.empty()) return "batch " + w.batch;
  return "command " + (w.command.empty() ? std::string() : w.command.front());
}

// A co-runner as its kind's row labels it.
std::string CorunnerWorkload(const CorunnerSpec& c) { return c.kind ? c.kind->Label(c) : "?"; }

// The tenant in messages: the first of a run is the subject.
std::string Who(const std::vector<PlacedTenant>& tenants, size_t i) {
  return i == 0 ? "the subject" : "co-runner '" + tenants[i].name + "'";
}

// Each physical core (Topology::cores index) a tenant uses, with its CPUs there.
std::map<int, std::vector<int>> ByCore(const Topology& topo, const std::vector<int>& cpus) {
  std::map<int, std::vector<int>> out;
  for (int c : cpus) {
    const LogicalCpu* l = topo.cpu(c);
    out[l ? l->core_index : -1 - c].push_back(c);  // an unknown CPU is a core of its own
  }
  return out;
}

bool Subset(const std::vector<int>& a, const std::vector<int>& b) {
  return std::all_of(a.begin(), a.end(), [&](int x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

std::string CoreName(const Topology& topo, int core_index) {
  if (core_index < 0 || core_index >= static_cast<int>(topo.cores.size())) return "?";
  const PhysicalCore& c = topo.cores[static_cast<size_t>(core_index)];
  return std::to_string(c.package_id) + ":" + std::to_string(c.core_id);
}

// Two CPU sets that run on different SMT threads of one physical core at once: on some core,
// neither's CPUs there are among the other's. (The same CPUs, or one's among the other's, is
// time-sharing the CPUs named, which naming them asks for.) The core, or -1 when none.
int SplitCore(const Topology& topo, const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* a_there,
              std::vector<int>* b_there) {
  auto ca = ByCore(topo, a);
  auto cb = ByCore(topo, b);
  for (const auto& [core, cpus] : ca) {
    auto it = cb.find(core);
    if (it == cb.end() || Subset(cpus, it->second) || Subset(it->second, cpus)) continue;
    *a_there = cpus;
    *b_there = it->second;
    return core;
  }
  return -1;
}

}  // namespace

const PlacedTenant* PlacedRun::FindCorunner(const std::string& name) const {
  for (size_t i = 1; i < tenants.size(); ++i) {
    if (tenants[i].name == name) return &tenants[i];
  }
  return nullptr;
}

const PlacedRun* PlacementPlan::Find(const std::string& scenario, const std::string& partition, int tenant_set) const {
  for (const auto& r : runs) {
    if (r.scenario == scenario && r.partition == partition && r.tenant_set == tenant_set) return &r;
  }
  return nullptr;
}

std::map<int, uint64_t> PlacementPlan::MasksOf(const PlannedRun& run, const CorunnerSpec* corunner) const {
  const PlacedRun* r = Find(run.scenario, run.partition.Label(), run.tenant_set);
  const PlacedTenant* t = !r ? nullptr : corunner ? r->FindCorunner(corunner->name) : &r->tenants.front();
  return t ? t->llc_masks : std::map<int, uint64_t>{};
}

Result<PlacementPlan> PlanPlacement(const ExperimentSpec& spec, const Plan& plan, const Prepared& prep,
                                    const ResctrlInfo* resctrl, const std::string& resctrl_why,
                                    const TenantKindOf& kind_of) {
  PlacementPlan out;
  const Topology& topo = prep.topology;
  // The generator is on this host; beside the workload only when the workload is here too and
  // no client node drives the load.
  const bool generator_here = !prep.workload_host && !spec.nodes.remote();
  if (generator_here) {
    out.generator_cpus = prep.generator_cpus;
  } else {
    out.generator_note = prep.workload_host ? "the load comes from this host, the workload runs on " +
                                                  prep.workload_host->name
                                            : "the load comes from the client nodes ([nodes] clients)";
  }
  if (!resctrl) out.resctrl_note = resctrl_why;
  for (const PlannedRun& run : plan.runs) {
    const std::string label = run.partition.Label();
    if (!prep.scenario_cpus.count(run.scenario) || out.Find(run.scenario, label, run.tenant_set)) continue;
    const std::string where = SpecAt(spec, 0) + "scenario " + run.scenario + ", partition " + label +
                              (run.corunner_set.empty() ? "" : ", beside " + run.corunner_set) + ": ";
    PlacedRun pr;
    pr.scenario = run.scenario;
    pr.partition = label;
    pr.tenant_set = run.tenant_set;
    pr.set_label = run.corunner_set;
    std::vector<PartitionSpec> parts;
    std::vector<const CorunnerSpec*> specs;
    {
      PlacedTenant s;
      s.name = "subject";
      s.workload = SubjectWorkload(spec.workload);
      s.cpus_asked = run.scenario;
      s.cpus = prep.scenario_cpus.at(run.scenario);
      parts.push_back(prep.partitions.count(label) ? prep.partitions.at(label) : run.partition.ToPartitionSpec(spec.node));
      auto mb = run.partition.knobs.find("mem_bw");
      if (mb != run.partition.knobs.end()) s.mem_bw_asked = mb->second;
      pr.tenants.push_back(std::move(s));
      specs.push_back(nullptr);
    }
    if (run.tenant_set >= 0) {
      for (const auto& name : spec.colocation.sets.at(static_cast<size_t>(run.tenant_set))) {
        const CorunnerSpec* c = spec.FindCorunner(name);
        if (!c) return InvalidArgument(where + "co-runner '" + name + "' is not defined");
        PlacedTenant t;
        t.name = c->name;
        t.workload = CorunnerWorkload(*c);
        t.cpus_asked = c->cpus;
        REAM_ASSIGN_OR_RETURN(t.cpus, CorunnerCpus(spec, *c, prep, run.scenario));
        auto mb = c->partition.knobs.find("mem_bw");
        if (mb != c->partition.knobs.end()) t.mem_bw_asked = mb->second;
        parts.push_back(c->partition.ToPartitionSpec(false));
        pr.tenants.push_back(std::move(t));
        specs.push_back(c);
      }
    }
    for (size_t i = 0; i < pr.tenants.size(); ++i) {
      PlacedTenant& t = pr.tenants[i];
      std::sort(t.cpus.begin(), t.cpus.end());
      const SandboxKind& kind = kind_of(specs[i]);
      t.sandbox = std::string(kind.name());
      t.vcpus = kind.VcpuPins(t.cpus);
      t.llc_ways = parts[i].llc_ways;
    }
    // Cores: tenants on different SMT threads of one core share its L1, L2 and pipeline; only
    // a co-runner that asked for the subject's siblings may.
    for (size_t i = 0; i < pr.tenants.size(); ++i) {
      for (size_t j = i + 1; j < pr.tenants.size(); ++j) {
        const PlacedTenant& a = pr.tenants[i];
        const PlacedTenant& b = pr.tenants[j];
        std::vector<int> at, bt;
        int core = SplitCore(topo, a.cpus, b.cpus, &at, &bt);
        if (core == -1 || (i == 0 && b.cpus_asked == "siblings")) continue;
        return InvalidArgument(where + Who(pr.tenants, j) + " (CPU " + FormatCpuList(bt) + ") and " + Who(pr.tenants, i) + " (CPU " +
                               FormatCpuList(at) + ") would run on different SMT threads of physical core " +
                               CoreName(topo, core) + " (package:core), sharing its L1, L2 and pipeline, which "
                               "neither asked for; give '" + b.name + "' CPUs of other cores, the same CPUs to "
                               "time-share them, or cpus = \"siblings\" for the subject's SMT siblings");
      }
    }
    // The generator keeps whole cores: a tenant on a sibling of its CPUs would disturb the
    // very clock the latencies are measured with. (Naming one of its CPUs is sharing that CPU,
    // as asked.)
    if (generator_here) {
      for (size_t i = 0; i < pr.tenants.size(); ++i) {
        std::vector<int> tt, gt;
        int core = SplitCore(topo, pr.tenants[i].cpus, out.generator_cpus, &tt, &gt);
        if (core == -1) continue;
        return InvalidArgument(where + Who(pr.tenants, i) + " (CPU " + FormatCpuList(tt) + ") would run on an SMT sibling of "
                               "the load generator's CPU " + FormatCpuList(gt) + " (physical core " +
                               CoreName(topo, core) + "), disturbing its sends and its clock; give it CPUs of other "
                               "cores or move the generator (generator_cpus)");
      }
    }
    // L3 ways: each tenant that asks has its own.
    std::vector<WaysRequest> requests;
    std::vector<size_t> asking;
    int groups = 0;
    for (size_t i = 0; i < pr.tenants.size(); ++i) {
      const PartitionSpec& ps = parts[i];
      if (ps.llc_ways) {
        requests.push_back({Who(pr.tenants, i), *ps.llc_ways});
        asking.push_back(i);
      }
      if (ps.llc_ways || ps.mem_bw_fraction || ps.mem_bw_mbps) ++groups;
    }
    if (!requests.empty() && resctrl) {
      if (!resctrl->l3) {
        return Unsupported(where + "llc_ways: the machine's resctrl at " + resctrl->mount + " has no L3 cache "
                           "allocation (no info/L3)");
      }
      auto masks = AllocateL3Ways(*resctrl, requests);
      if (!masks.ok()) return Status(masks.status().code(), where + masks.status().message());
      for (size_t k = 0; k < asking.size(); ++k) pr.tenants[asking[k]].llc_masks = (*masks)[k];
    } else if (!requests.empty()) {
      // resctrl unknown here: at least the ways must fit the L3 the topology shows.
      int total = 0;
      for (const auto& r : requests) total += r.ways;
      const CacheInfo* llc = topo.llc();
      if (llc && llc->ways > 0 && total > llc->ways) {
        return InvalidArgument(where + "llc_ways: the run's tenants ask for " + std::to_string(total) +
                               " L3 ways but the L3 has " + std::to_string(llc->ways));
      }
    }
    // Memory bandwidth: the value the mount takes, refused as the sandbox would refuse it.
    for (size_t i = 0; i < pr.tenants.size() && resctrl; ++i) {
      const PartitionSpec& ps = parts[i];
      MemBandwidth mb{ps.mem_bw_fraction, ps.mem_bw_mbps};
      if (!mb.any()) continue;
      auto v = MbSchemataValue(*resctrl, mb);
      if (!v.ok()) return Status(v.status().code(), where + Who(pr.tenants, i) + " mem_bw: " + v.status().message());
      pr.tenants[i].mem_bw = *v;
    }
    // CLOSIDs: every control group takes one valid for every allocated resource, the default
    // group included.
    if (resctrl && groups > 0) {
      int limit = 0;
      std::string from;
      for (auto [n, file] : {std::pair{resctrl->l3 ? resctrl->l3_closids : 0, "info/L3/num_closids"},
                             std::pair{resctrl->mb ? resctrl->mb_closids : 0, "info/MB/num_closids"}}) {
        if (n > 0 && (limit == 0 || n < limit)) {
          limit = n;
          from = file;
        }
      }
      if (limit > 0 && groups + 1 > limit) {
        return Unsupported(where + std::to_string(groups) + " tenants ask for ways or bandwidth, each a resctrl "
                           "group of its own, but " + from + " allows " + std::to_string(limit) +
                           " groups, the default one included");
      }
    }
    out.runs.push_back(std::move(pr));
  }
  return out;
}

std::string FormatPlacement(const PlacementPlan& plan, const Topology& topo, const ResctrlInfo* resctrl) {
  std::string o;
  std::set<int> packages;
  for (const auto& c : topo.cores) packages.insert(c.package_id);
  o += "placement on " + (topo.cpu_model.empty() ? std::string("this machine") : topo.cpu_model) + ": " +
       std::to_string(packages.size()) + " package(s), " + std::to_string(topo.cores.size()) + " cores, " +
       std::to_string(topo.cpus.size()) + " logical CPUs (" + std::to_string(topo.threads_per_core()) +
       " per core)";
  if (const CacheInfo* l = topo.llc()) {
    o += "; L3 " + Fmt("%.1f", static_cast<double>(l->size_bytes) / (1 << 20)) + " MiB, " + std::to_string(l->ways) +
         " ways per instance";
  }
  if (resctrl && resctrl->l3) {
    o += "; CAT cbm_mask " + Hex(resctrl->cbm_mask, resctrl->cbm_bits) + " on L3 domains";
    for (int d : resctrl->l3_domains) o += " " + std::to_string(d);
  }
  if (resctrl && resctrl->mb) {
    o += resctrl->mb_unit == MbUnit::kPercent
             ? "; MBA in % (step " + std::to_string(resctrl->bandwidth_gran) + ", min " +
                   std::to_string(resctrl->min_bandwidth) + ")"
             : resctrl->mb_unit == MbUnit::kMBps ? std::string("; MBA in MB/s") : std::string("; MBA in 1/8 GB/s");
  }
  if (!plan.resctrl_note.empty()) o += "; resctrl: " + plan.resctrl_note;
  o += "\n";
  const int bits = resctrl && resctrl->l3 ? resctrl->cbm_bits : 0;
  for (const PlacedRun& r : plan.runs) {
    o += "  " + r.scenario + ", partition " + r.partition + (r.set_label.empty() ? ", alone" : ", beside " + r.set_label) +
         ":\n";
    std::vector<std::vector<std::string>> rows = {{"tenant", "sandbox", "workload", "CPUs", "cores", "LLC ways", "mem bw"}};
    for (const PlacedTenant& t : r.tenants) {
      // How they were asked for, unless a list that says the same.
      auto asked = ParseCpuList(t.cpus_asked);
      std::string cpus = FormatCpuList(t.cpus) + (asked.ok() && *asked == t.cpus ? "" : " (" + t.cpus_asked + ")");
      if (!t.vcpus.empty()) {
        cpus.clear();
        for (const VcpuPin& v : t.vcpus) {
          cpus += (cpus.empty() ? "" : " ") + ("vCPU" + std::to_string(v.vcpu)) + "->" + std::to_string(v.host_cpu);
        }
      }
      std::string cores;
      for (const auto& [core, on] : ByCore(topo, t.cpus)) {
        cores += (cores.empty() ? "" : " ") + CoreName(topo, core) + (on.size() > 1 ? "x" + std::to_string(on.size()) : "");
      }
      std::string ways = "all (shared)";
      if (t.llc_ways) {
        std::set<uint64_t> distinct;
        for (const auto& [d, m] : t.llc_masks) distinct.insert(m);
        if (t.llc_masks.empty()) {
          ways = std::to_string(*t.llc_ways) + " (chosen where it runs)";
        } else if (distinct.size() == 1) {
          ways = Hex(*distinct.begin(), bits) + " (" + std::to_string(*t.llc_ways) + ")";
        } else {
          ways.clear();
          for (const auto& [d, m] : t.llc_masks) ways += (ways.empty() ? "" : " ") + std::to_string(d) + "=" + Hex(m, bits);
          ways += " (" + std::to_string(*t.llc_ways) + ")";
        }
      }
      std::string mb = "-";
      if (!t.mem_bw_asked.empty()) {
        mb = t.mem_bw_asked;
        if (t.mem_bw && resctrl) {
          mb += " -> MB " + std::to_string(*t.mem_bw) +
                (resctrl->mb_unit == MbUnit::kPercent ? "%" : resctrl->mb_unit == MbUnit::kMBps ? " MB/s" : "/8 GB/s");
        }
      }
      rows.push_back({t.name, t.sandbox, t.workload, cpus, cores, ways, mb});
    }
    if (!plan.generator_cpus.empty()) {
      std::string cores;
      for (const auto& [core, on] : ByCore(topo, plan.generator_cpus)) {
        cores += (cores.empty() ? "" : " ") + CoreName(topo, core) + (on.size() > 1 ? "x" + std::to_string(on.size()) : "");
      }
      rows.push_back({"generator", "process", "ream load", FormatCpuList(plan.generator_cpus), cores, "all (shared)", "-"});
    }
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    for (const auto& row : rows) {
      std::string line = "    ";
      for (size_t c = 0; c < row.size(); ++c) {
        line += row[c] + (c + 1 < row.size() ? std::string(width[c] - row[c].size() + 2, ' ') : "");
      }
      o += line + "\n";
    }
  }
  if (!plan.generator_note.empty()) o += "  load generator: " + plan.generator_note + "\n";
  return o;
}

}  // namespace ream
