// Scenario resolution. Cores are taken in topology order (package, core id), which keeps a
// scenario's CPUs together on one package when it fits.
#include "partition/placement.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace ream {
namespace {

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Plural(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

std::vector<int> DefaultGeneratorCpus(const Topology& topology) {
  if (topology.cpus.size() < 2) return {};
  const LogicalCpu& last = topology.cpus.back();
  std::vector<int> out = last.siblings.empty() ? std::vector<int>{last.id} : last.siblings;
  // Never reserve every CPU (a machine with one SMT core): keep the last one only.
  if (out.size() >= topology.cpus.size()) out = {last.id};
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<int>> ParseReservedCpus(const Topology& topology, std::string_view spec) {
  if (spec.empty() || spec == "default") return DefaultGeneratorCpus(topology);
  if (spec == "none") return std::vector<int>{};
  auto list = ParseCpuList(spec);
  if (!list.ok()) {
    return InvalidArgument("--reserve-cpus: " + list.status().message() +
                           " (use 'default', 'none' or a CPU list such as 3 or 6-7)");
  }
  for (int c : *list) {
    if (!topology.cpu(c)) {
      return InvalidArgument("--reserve-cpus: CPU " + std::to_string(c) +
                             " is not online (online: " + [&] {
                               std::vector<int> ids;
                               for (const auto& x : topology.cpus) ids.push_back(x.id);
                               return FormatCpuList(ids);
                             }() + ")");
    }
  }
  return list;
}

Result<std::vector<int>> ResolvePlacement(const Topology& topology, std::string_view spec,
                                          const std::vector<int>& reserved) {
  std::string s(spec);
  auto dash = s.find('-');
  std::string kind = dash == std::string::npos ? "" : s.substr(dash + 1);
  for (auto& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (kind == "ST" || kind == "SMT") {
    int n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + dash, n);
    if (ec != std::errc() || p != s.data() + dash || n < 1) {
      return InvalidArgument("placement '" + s + "': the thread count must be a positive integer");
    }
    std::vector<const PhysicalCore*> free_cores;
    for (const auto& core : topology.cores) {
      bool has_reserved = false;
      for (int c : core.cpus) has_reserved = has_reserved || Contains(reserved, c);
      if (!has_reserved && !core.cpus.empty()) free_cores.push_back(&core);
    }
    std::string reserved_note =
        reserved.empty() ? ""
                         : " (CPU(s) " + FormatCpuList(reserved) +
                               " are reserved for the load generator; lift that with "
                               "--reserve-cpus none or choose others)";
    std::vector<int> out;
    if (kind == "ST") {
      if (static_cast<int>(free_cores.size()) < n) {
        return Unsupported("placement '" + s + "' needs " + Plural(n, "physical core") +
                           " but this machine has " + Plural(topology.cores.size(), "core") +
                           ", " + std::to_string(free_cores.size()) + " of them usable" +
                           reserved_note);
      }
      for (int i = 0; i < n; ++i) out.push_back(free_cores[i]->cpus.front());
    } else {
      int tpc = topology.threads_per_core();
      if (tpc < 2) {
        return Unsupported("placement '" + s +
                           "' needs SMT siblings (logical CPUs sharing a physical core), but "
                           "this machine has 1 thread per core: SMT is absent or disabled");
      }
      for (const PhysicalCore* core : free_cores) {
        if (core->cpus.size() < 2) continue;  // a core whose sibling is offline
        for (int c : core->cpus) {
          if (static_cast<int>(out.size()) < n) out.push_back(c);
        }
        if (static_cast<int>(out.size()) >= n) break;
      }
      if (static_cast<int>(out.size()) < n) {
        return Unsupported("placement '" + s + "' needs " + std::to_string(n) +
                           " logical CPUs packed on SMT cores, but only " +
                           std::to_string(out.size()) + " are free" + reserved_note);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  auto list = ParseCpuList(s);
  if (!list.ok() || list->empty()) {
    return InvalidArgument("placement '" + s +
                           "' is neither a scenario (1-ST, 2-ST, 2-SMT, N-ST, N-SMT) nor a CPU "
                           "list (e.g. 0,2-3)");
  }
  for (int c : *list) {
    if (!topology.cpu(c)) {
      return InvalidArgument("placement '" + s + "': CPU " + std::to_string(c) +
                             " is not online on this machine");
    }
  }
  return list;
}

}  // namespace ream
