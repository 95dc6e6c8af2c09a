// Topology from /sys/devices/system/{cpu,node} and /proc/cpuinfo.
#include "topology/topology.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>

namespace ream {
namespace {

constexpr char kCpuRoot[] = "/sys/devices/system/cpu";
constexpr char kNodeRoot[] = "/sys/devices/system/node";

Result<int> ReadInt(Platform& p, const std::string& path) {
  REAM_ASSIGN_OR_RETURN(std::string text, p.ReadFile(path));
  std::string t = Trim(text);
  int v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return Corrupt("expected an integer in " + path + ", found '" + t + "'");
  }
  return v;
}

}  // namespace

Result<int64_t> ParseCacheSize(std::string_view s) {
  std::string t = Trim(s);
  if (t.empty()) return InvalidArgument("empty cache size");
  int64_t mult = 1;
  char last = t.back();
  if (last == 'K' || last == 'k') mult = 1024;
  if (last == 'M' || last == 'm') mult = 1024 * 1024;
  if (last == 'G' || last == 'g') mult = 1024LL * 1024 * 1024;
  if (mult != 1) t.pop_back();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  // A negative size, or one whose bytes overflow int64 (fuzz/spec_fuzzer found "-05"), is
  // not a cache size.
  if (ec != std::errc() || ptr != t.data() + t.size() || v < 0 || v > INT64_MAX / mult) {
    return InvalidArgument("bad cache size '" + std::string(s) + "'");
  }
  return v * mult;
}

int Topology::threads_per_core() const {
  size_t m = 0;
  for (const auto& c : cores) m = std::max(m, c.cpus.size());
  return static_cast<int>(m);
}

const CacheInfo* Topology::llc() const {
  const CacheInfo* best = nullptr;
  for (const auto& c : caches) {
    if (c.type == "Instruction") continue;
    if (best == nullptr || c.level > best->level) best = &c;
  }
  return best;
}

const LogicalCpu* Topology::cpu(int id) const {
  for (const auto& c : cpus)
    if (c.id == id) return &c;
  return nullptr;
}

nlohmann::json Topology::ToJson() const {
  nlohmann::json j;
  j["cpu_model"] = cpu_model;
  j["logical_cpus"] = cpus.size();
  j["physical_cores"] = cores.size();
  j["threads_per_core"] = threads_per_core();
  j["smt"] = has_smt();
  auto& cj = j["cores"] = nlohmann::json::array();
  for (const auto& c : cores) {
    cj.push_back({{"package", c.package_id}, {"core", c.core_id}, {"cpus", c.cpus}});
  }
  auto& kj = j["caches"] = nlohmann::json::array();
  for (const auto& c : caches) {
    kj.push_back({{"level", c.level},
                  {"type", c.type},
                  {"size_bytes", c.size_bytes},
                  {"ways", c.ways},
                  {"cpus", FormatCpuList(c.shared_cpus)}});
  }
  if (const CacheInfo* l = llc()) {
    j["llc"] = {{"level", l->level}, {"size_bytes", l->size_bytes}, {"ways", l->ways}};
  } else {
    j["llc"] = nullptr;
  }
  auto& nj = j["numa_nodes"] = nlohmann::json::array();
  for (const auto& n : nodes) nj.push_back({{"node", n.id}, {"cpus", FormatCpuList(n.cpus)}});
  return j;
}

Result<Topology> ReadTopology(Platform& p) {
  Topology topo;
  auto online_text = p.ReadFile(std::string(kCpuRoot) + "/online");
  if (!online_text.ok()) {
    return online_text.status().Annotate("reading the CPU topology");
  }
  REAM_ASSIGN_OR_RETURN(std::vector<int> online, ParseCpuList(*online_text));
  if (online.empty()) return NotFound("no online CPUs listed in /sys/devices/system/cpu/online");

  // NUMA nodes (absent on kernels without CONFIG_NUMA: everything is node 0).
  std::map<int, int> node_of;
  if (auto entries = p.ListDir(kNodeRoot); entries.ok()) {
    for (const auto& e : *entries) {
      if (e.name.rfind("node", 0) != 0 || e.name.size() <= 4) continue;
      int id = 0;
      auto [ptr, ec] = std::from_chars(e.name.data() + 4, e.name.data() + e.name.size(), id);
      if (ec != std::errc() || ptr != e.name.data() + e.name.size()) continue;
      auto list = p.ReadFile(std::string(kNodeRoot) + "/" + e.name + "/cpulist");
      if (!list.ok()) continue;
      auto cpus = ParseCpuList(*list);
      if (!cpus.ok()) continue;
      topo.nodes.push_back({id, *cpus});
      for (int c : *cpus) node_of[c] = id;
    }
  }
  if (topo.nodes.empty()) topo.nodes.push_back({0, online});

  std::map<std::pair<int, int>, size_t> core_index;
  std::set<std::pair<int, std::string>> seen_caches;  // (level/type key, cpu list)
  for (int id : online) {
    std::string base = std::string(kCpuRoot) + "/cpu" + std::to_string(id);
    LogicalCpu cpu;
    cpu.id = id;
    cpu.core_id = ReadInt(p, base + "/topology/core_id").value_or(id);
    cpu.package_id = ReadInt(p, base + "/topology/physical_package_id").value_or(0);
    cpu.node = node_of.count(id) ? node_of[id] : 0;
    auto key = std::make_pair(cpu.package_id, cpu.core_id);
    auto it = core_index.find(key);
    if (it == core_index.end()) {
      it = core_index.emplace(key, topo.cores.size()).first;
      topo.cores.push_back({cpu.package_id, cpu.core_id, {}});
    }
    cpu.core_index = static_cast<int>(it->second);
    topo.cores[it->second].cpus.push_back(id);

    if (auto entries = p.ListDir(base + "/cache"); entries.ok()) {
      for (const auto& e : *entries) {
        if (e.name.rfind("index", 0) != 0) continue;
        std::string cb = base + "/cache/" + e.name;
        CacheInfo ci;
        ci.level = ReadInt(p, cb + "/level").value_or(0);
        ci.type = Trim(p.ReadFile(cb + "/type").value_or(""));
        ci.size_bytes = ParseCacheSize(p.ReadFile(cb + "/size").value_or("0")).value_or(0);
        ci.ways = ReadInt(p, cb + "/ways_of_associativity").value_or(0);
        auto shared = p.ReadFile(cb + "/shared_cpu_list");
        ci.shared_cpus = shared.ok() ? ParseCpuList(*shared).value_or({id}) : std::vector<int>{id};
        auto ckey = std::make_pair(ci.level * 10 + static_cast<int>(ci.type.size()),
                                   ci.type + "/" + FormatCpuList(ci.shared_cpus));
        if (seen_caches.insert(ckey).second) topo.caches.push_back(ci);
      }
    }
    topo.cpus.push_back(cpu);
  }
  for (auto& core : topo.cores) std::sort(core.cpus.begin(), core.cpus.end());
  for (auto& cpu : topo.cpus) cpu.siblings = topo.cores[cpu.core_index].cpus;
  std::sort(topo.caches.begin(), topo.caches.end(), [](const CacheInfo& a, const CacheInfo& b) {
    if (a.level != b.level) return a.level < b.level;
    if (a.type != b.type) return a.type < b.type;
    return a.shared_cpus < b.shared_cpus;
  });

  if (auto info = p.ReadFile("/proc/cpuinfo"); info.ok()) {
    for (const auto& line : Split(*info, '\n')) {
      if (line.rfind("model name", 0) == 0) {
        auto colon = line.find(':');
        if (colon != std::string::npos) topo.cpu_model = Trim(line.substr(colon + 1));
        break;
      }
    }
  }
  return topo;
}

Capability SmtCapability(const Result<Topology>& topo) {
  if (!topo.ok()) return {"cpu.smt", Support::kUnknown, topo.status().message()};
  if (topo->has_smt()) {
    return {"cpu.smt", Support::kSupported,
            std::to_string(topo->threads_per_core()) + " threads per core on " +
                std::to_string(topo->cores.size()) + " physical cores"};
  }
  return {"cpu.smt", Support::kUnsupported,
          "no SMT siblings: " + std::to_string(topo->cpus.size()) + " logical CPUs on " +
              std::to_string(topo->cores.size()) +
              " physical cores (2-SMT scenarios are not available)"};
}

namespace {
Result<Topology> TopologyFromJson(const nlohmann::json& j) {
  auto bad = [&](const std::string& what) { return InvalidArgument("a topology document " + what + ": " + j.dump()); };
  if (!j.is_object() || !j.contains("cores") || !j["cores"].is_array()) return bad("needs a \"cores\" array");
  Topology t;
  t.cpu_model = j.value("cpu_model", std::string());
  for (const auto& c : j["cores"]) {
    if (!c.is_object() || !c.contains("cpus") || !c["cpus"].is_array()) return bad("has a core without its cpus");
    PhysicalCore core;
    core.package_id = c.value("package", 0);
    core.core_id = c.value("core", 0);
    for (const auto& id : c["cpus"]) {
      if (!id.is_number_integer()) return bad("has a CPU id that is not an integer");
      core.cpus.push_back(id.get<int>());
    }
    std::sort(core.cpus.begin(), core.cpus.end());
    t.cores.push_back(std::move(core));
  }
  std::map<int, int> node_of;
  if (j.contains("numa_nodes") && j["numa_nodes"].is_array()) {
    for (const auto& n : j["numa_nodes"]) {
      NumaNode node;
      node.id = n.value("node", 0);
      auto cpus = ParseCpuList(n.value("cpus", std::string()));
      if (!cpus.ok()) return bad("has a NUMA node with a bad CPU list");
      node.cpus = *cpus;
      for (int c : node.cpus) node_of[c] = node.id;
      t.nodes.push_back(std::move(node));
    }
  }
  for (size_t i = 0; i < t.cores.size(); ++i) {
    for (int id : t.cores[i].cpus) {
      LogicalCpu cpu;
      cpu.id = id;
      cpu.core_id = t.cores[i].core_id;
      cpu.package_id = t.cores[i].package_id;
      cpu.node = node_of.count(id) ? node_of[id] : 0;
      cpu.core_index = static_cast<int>(i);
      cpu.siblings = t.cores[i].cpus;
      t.cpus.push_back(std::move(cpu));
    }
  }
  std::sort(t.cpus.begin(), t.cpus.end(), [](const LogicalCpu& a, const LogicalCpu& b) { return a.id < b.id; });
  if (t.cpus.empty()) return bad("lists no CPU");
  if (j.contains("caches") && j["caches"].is_array()) {
    for (const auto& c : j["caches"]) {
      CacheInfo ci;
      ci.level = c.value("level", 0);
      ci.type = c.value("type", std::string());
      ci.size_bytes = c.value("size_bytes", int64_t{0});
      ci.ways = c.value("ways", 0);
      auto cpus = ParseCpuList(c.value("cpus", std::string()));
      if (!cpus.ok()) return bad("has a cache with a bad CPU list");
      ci.shared_cpus = *cpus;
      t.caches.push_back(std::move(ci));
    }
  }
  return t;
}
}  // namespace

Result<Topology> Topology::FromJson(const nlohmann::json& j) {
  try {
    return TopologyFromJson(j);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("a topology document with a field of the wrong type: ") + e.what());
  }
}

}  // namespace ream
