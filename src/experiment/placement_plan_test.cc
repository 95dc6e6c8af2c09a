// The placement plan on the seed's main node (two Xeon Silver 4116 as a copied sysfs tree,
// src/topology/testdata/seed-4116x2): the shipped example placed, and what that machine
// refuses, with its messages.
#include "experiment/placement_plan.h"

#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <sstream>

#include "experiment/preflight.h"
#include "sandbox/vm_sandbox.h"

namespace ream {
namespace {

const std::string kSeed = std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/seed-4116x2";

std::string ExampleText() {
  std::ifstream in(std::string(REAM_SOURCE_DIR) + "/examples/seed-platform.toml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The spec planned on the seed's machine in the process sandbox kind (or the vm kind).
Result<Prepared> OnSeed(const std::string& text, bool vm = false, bool strict = false) {
  REAM_ASSIGN_OR_RETURN(ExperimentSpec spec, ParseSpec(text, "seed.toml"));
  REAM_ASSIGN_OR_RETURN(Plan plan, MakePlan(spec, ""));
  RootedPlatform machine(kSeed);
  std::unique_ptr<SandboxKind> kind = vm ? MakeVmSandboxKind(machine, {}) : MakeProcessSandboxKind(machine);
  const SandboxKind& k = *kind;
  return PrepareOnPaper(machine, spec, plan, strict, [&k](const CorunnerSpec*) -> const SandboxKind& { return k; });
}

// A subject on 1-ST beside one co-runner whose keys are `corunner` (cpus, knobs).
std::string WithCorunner(const std::string& corunner, const std::string& top = "") {
  return "name = \"t\"\nscenarios = [\"1-ST\"]\n" + top +
         "[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n[[corunner]]\nname = \"job\"\nbatch = \"xz\"\n" + corunner;
}

std::string Refusal(const Result<Prepared>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

TEST(PlacementPlan, TheSeedExampleOnTheSeedMachine) {
  auto prep = OnSeed(ExampleText());
  ASSERT_TRUE(prep.ok()) << prep.status().ToString();
  const Topology& topo = prep->topology;
  ASSERT_EQ(topo.cpus.size(), 48u);
  // 3 scenarios x 2 partitions x (alone, beside the set).
  ASSERT_EQ(prep->placement.runs.size(), 12u);
  EXPECT_EQ(prep->placement.generator_cpus, (std::vector<int>{23, 47}));
  auto core_of = [&](int cpu) { return topo.cpu(cpu)->core_index; };
  for (const PlacedRun& r : prep->placement.runs) {
    SCOPED_TRACE(r.scenario + " " + r.partition + " " + r.set_label);
    ASSERT_EQ(r.tenants.size(), r.tenant_set < 0 ? 1u : 5u);
    const PlacedTenant& subject = r.tenants.front();
    if (r.scenario == "2-SMT") {
      // The subject's two threads on one core's siblings: Linux numbers them N and N+24 here.
      EXPECT_EQ(subject.cpus, (std::vector<int>{0, 24}));
    } else if (r.scenario == "2-ST") {
      EXPECT_EQ(subject.cpus, (std::vector<int>{0, 1}));
      EXPECT_NE(core_of(0), core_of(1));
    }
    for (size_t i = 0; i < r.tenants.size(); ++i) {
      const PlacedTenant& a = r.tenants[i];
      ASSERT_TRUE(a.llc_ways.has_value()) << a.name;
      ASSERT_EQ(a.llc_masks.size(), 2u) << a.name;  // one mask per socket's L3
      for (const auto& [domain, mask] : a.llc_masks) {
        EXPECT_EQ(std::popcount(mask), *a.llc_ways) << a.name;
        EXPECT_EQ(mask & ~uint64_t{0x7ff}, 0u) << a.name;
      }
      // The generator never on a tenant's core.
      for (int c : a.cpus) {
        for (int g : prep->placement.generator_cpus) EXPECT_NE(core_of(c), core_of(g)) << a.name << " CPU " << c;
      }
      for (size_t j = i + 1; j < r.tenants.size(); ++j) {
        const PlacedTenant& b = r.tenants[j];
        // No two tenants on one physical core: the example asks for no SMT sharing.
        for (int x : a.cpus) {
          for (int y : b.cpus) EXPECT_NE(core_of(x), core_of(y)) << a.name << " and " << b.name;
        }
        for (const auto& [domain, mask] : a.llc_masks) {
          EXPECT_EQ(mask & b.llc_masks.at(domain), 0u) << a.name << " and " << b.name << " share ways";
        }
      }
    }
  }
  // The subject's ways are the same alone and together: the lowest block off shareable_bits.
  const PlacedRun* alone = prep->placement.Find("2-SMT", "llc_ways=4", -1);
  const PlacedRun* shared = prep->placement.Find("2-SMT", "llc_ways=4", 0);
  ASSERT_TRUE(alone && shared);
  EXPECT_EQ(alone->tenants[0].llc_masks.at(0), 0x00fu);
  EXPECT_EQ(shared->tenants[0].llc_masks.at(1), 0x00fu);
  // Eleven ways asked of eleven: the last co-runner gets the two the hardware shares with I/O.
  EXPECT_EQ(shared->FindCorunner("xz")->llc_masks.at(0), 0x600u);
  // mcf's 30 % is what the mount takes (a multiple of bandwidth_gran 10).
  EXPECT_EQ(shared->FindCorunner("mcf")->mem_bw.value_or(-1), 30);
  EXPECT_EQ(shared->FindCorunner("kv")->cpus, (std::vector<int>{4, 5}));
  // The real run takes the same masks from the plan.
  PlannedRun run;
  ExperimentSpec spec = *ParseSpec(ExampleText(), "seed.toml");
  Plan plan = *MakePlan(spec, "");
  for (const PlannedRun& r : plan.runs) {
    if (r.scenario == "2-SMT" && r.tenant_set == 0 && r.partition.Label() == "llc_ways=4") run = r;
  }
  EXPECT_EQ(prep->placement.MasksOf(run, spec.FindCorunner("xz")), shared->FindCorunner("xz")->llc_masks);
  EXPECT_EQ(prep->placement.MasksOf(run, nullptr).at(0), 0x00fu);

  std::string table = FormatPlacement(prep->placement, topo, prep->resctrl ? &*prep->resctrl : nullptr);
  EXPECT_NE(table.find("Xeon(R) Silver 4116"), std::string::npos) << table;
  EXPECT_NE(table.find("2-SMT, partition llc_ways=4, beside kv+povray+mcf+xz:"), std::string::npos) << table;
  EXPECT_NE(table.find("0,24 (2-SMT)"), std::string::npos) << table;
  EXPECT_NE(table.find("0:0x2"), std::string::npos) << table;  // both threads of core 0 of package 0
  EXPECT_NE(table.find("0x600 (2)"), std::string::npos) << table;
  EXPECT_NE(table.find("30% -> MB 30%"), std::string::npos) << table;
  EXPECT_NE(table.find("23,47"), std::string::npos) << table;
}

TEST(PlacementPlan, TwoTenantsOnOneCoresSiblingsAreRefusedUnlessAsked) {
  std::string split = Refusal(OnSeed(WithCorunner("cpus = \"24\"\n")));
  EXPECT_NE(split.find("co-runner 'job' (CPU 24) and the subject (CPU 0) would run on different SMT threads of "
                       "physical core 0:0"),
            std::string::npos)
      << split;
  EXPECT_NE(split.find("cpus = \"siblings\""), std::string::npos) << split;
  // Asked: the subject's siblings.
  auto asked = OnSeed(WithCorunner("cpus = \"siblings\"\n"));
  ASSERT_TRUE(asked.ok()) << asked.status().ToString();
  EXPECT_EQ(asked->placement.runs.back().FindCorunner("job")->cpus, (std::vector<int>{24}));
  // Time-sharing the subject's own CPU is asked by naming it.
  EXPECT_TRUE(OnSeed(WithCorunner("cpus = \"subject\"\n")).ok());
  // "others" takes whole cores: neither the subject's sibling (24) nor the generator's core.
  auto others = OnSeed(WithCorunner("cpus = \"others\"\n"));
  ASSERT_TRUE(others.ok()) << others.status().ToString();
  const auto& cpus = others->placement.runs.back().FindCorunner("job")->cpus;
  EXPECT_EQ(FormatCpuList(cpus), "1-22,25-46");
  // The subject's own two threads on one core (2-SMT) are its placement, not a conflict.
  EXPECT_TRUE(OnSeed("name = \"t\"\nscenarios = [\"2-SMT\"]\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n").ok());
}

TEST(PlacementPlan, TheGeneratorKeepsItsCore) {
  std::string r = Refusal(OnSeed(WithCorunner("cpus = \"23\"\n", "generator_cpus = \"47\"\n")));
  EXPECT_NE(r.find("co-runner 'job' (CPU 23) would run on an SMT sibling of the load generator's CPU 47 (physical "
                   "core 1:11)"),
            std::string::npos)
      << r;
}

TEST(PlacementPlan, MoreCpusThanTheMachineHas) {
  std::string cores = Refusal(OnSeed(
      "name = \"t\"\nscenarios = [\"30-ST\"]\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n", false, true));
  EXPECT_NE(cores.find("needs 30 physical cores but this machine has 24 cores, 23 of them usable"), std::string::npos)
      << cores;
  std::string offline = Refusal(OnSeed(WithCorunner("cpus = \"48\"\n")));
  EXPECT_NE(offline.find("CPU 48 is not an online CPU of this machine (0-47)"), std::string::npos) << offline;
}

TEST(PlacementPlan, WaysAreDisjointAndCounted) {
  std::string many = Refusal(OnSeed(WithCorunner("cpus = \"2\"\nllc_ways = 8\n", "") +
                                    "[partitions]\nllc_ways = 4\n"));
  EXPECT_NE(many.find("the run's tenants ask for 12 L3 ways (the subject 4, co-runner 'job' 8) but the L3 has 11"),
            std::string::npos)
      << many;
  std::string mb = Refusal(OnSeed(WithCorunner("cpus = \"2\"\nmem_bw = \"5%\"\n")));
  EXPECT_NE(mb.find("co-runner 'job' mem_bw: --mem-bw 5% is below the minimum this CPU allows (min_bandwidth 10"),
            std::string::npos)
      << mb;
  // Eight tenants with bandwidth shares: eight groups and the default one, but MBA has 8 CLOSIDs.
  std::string spec = "name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n[partitions]\nmem_bw = \"50%\"\n";
  for (int i = 0; i < 7; ++i) {
    spec += "[[corunner]]\nname = \"j" + std::to_string(i) + "\"\nbatch = \"xz\"\ncpus = \"" + std::to_string(2 + i) +
            "\"\nmem_bw = \"20%\"\n";
  }
  std::string closids = Refusal(OnSeed(spec));
  EXPECT_NE(closids.find("8 tenants ask for ways or bandwidth, each a resctrl group of its own, but "
                         "info/MB/num_closids allows 8 groups, the default one included"),
            std::string::npos)
      << closids;
}

TEST(PlacementPlan, AGuestsVcpusComeFromItsSandboxKind) {
  auto prep = OnSeed("name = \"t\"\nscenarios = [\"2-SMT\"]\n[sandbox]\nkind = \"vm\"\n[workload]\nbuiltin = \"kv\"\n"
                     "[sweep]\nqps = [100]\n",
                     true);
  ASSERT_TRUE(prep.ok()) << prep.status().ToString();
  const PlacedTenant& s = prep->placement.runs.at(0).tenants.at(0);
  EXPECT_EQ(s.sandbox, "vm");
  ASSERT_EQ(s.vcpus.size(), 2u);
  EXPECT_EQ(s.vcpus[0].vcpu, 0);
  EXPECT_EQ(s.vcpus[0].host_cpu, 0);
  EXPECT_EQ(s.vcpus[1].vcpu, 1);
  EXPECT_EQ(s.vcpus[1].host_cpu, 24);
  std::string table = FormatPlacement(prep->placement, prep->topology, nullptr);
  EXPECT_NE(table.find("vCPU0->0 vCPU1->24"), std::string::npos) << table;
  // A process's threads float over its cpuset: no vCPU rows.
  auto process = OnSeed("name = \"t\"\nscenarios = [\"2-SMT\"]\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n");
  ASSERT_TRUE(process.ok());
  EXPECT_TRUE(process->placement.runs.at(0).tenants.at(0).vcpus.empty());
}

}  // namespace
}  // namespace ream
