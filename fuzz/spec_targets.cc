// Shared body of the spec fuzz target: the spec's TOML and each value parser, with the
// contract each must keep on any input.
#include "fuzz/spec_targets.h"

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <string_view>

#include "experiment/plan.h"
#include "spec/spec.h"
#include "spec/toml_section.h"
#include "load/arrival.h"
#include "load/key_chooser.h"
#include "partition/placement.h"
#include "partition/spec.h"
#include "platform/platform.h"
#include "topology/topology.h"
#include "workloads/service_time.h"

namespace ream::fuzz {
namespace {

thread_local bool last_accepted = false;

// A refusal must say why.
std::string CheckRefusal(const Status& s, const char* what) {
  if (s.ok()) return "";
  if (s.message().empty()) return std::string(what) + " refused without a message";
  return "";
}

// 2 packages x 2 cores x 2 SMT threads: CPUs 0-7, siblings (0,4) (1,5) (2,6) (3,7).
const Topology& FakeTopology() {
  static const Topology* t = [] {
    auto* topo = new Topology;
    for (int c = 0; c < 4; ++c) topo->cores.push_back({c / 2, c % 2, {c, c + 4}});
    for (int id = 0; id < 8; ++id) {
      LogicalCpu cpu;
      cpu.id = id;
      cpu.core_index = id % 4;
      cpu.core_id = (id % 4) % 2;
      cpu.package_id = (id % 4) / 2;
      cpu.siblings = {id % 4, id % 4 + 4};
      topo->cpus.push_back(cpu);
    }
    topo->nodes.push_back({0, {0, 1, 2, 3, 4, 5, 6, 7}});
    return topo;
  }();
  return *t;
}

template <typename T>
std::string CheckNonNegative(const Result<T>& r, const char* what) {
  if (!r.ok()) return CheckRefusal(r.status(), what);
  last_accepted = true;
  if constexpr (std::is_same_v<T, std::chrono::nanoseconds>) {
    if (r->count() < 0) return std::string(what) + " parsed to a negative duration";
  } else {
    if (*r < 0) return std::string(what) + " parsed to a negative value";
  }
  return "";
}

std::string CheckCpuList(const Result<std::vector<int>>& r, const char* what) {
  if (!r.ok()) return CheckRefusal(r.status(), what);
  last_accepted = true;
  for (size_t i = 0; i < r->size(); ++i) {
    if ((*r)[i] < 0) return std::string(what) + ": a negative CPU id";
    if (i > 0 && (*r)[i] <= (*r)[i - 1]) return std::string(what) + ": CPU ids not sorted and distinct";
  }
  auto again = ParseCpuList(FormatCpuList(*r));
  if (!again.ok() || *again != *r) return std::string(what) + ": does not format and parse back to itself";
  return "";
}

std::string CheckServiceTime(std::string_view text) {
  auto r = ServiceTime::Parse(text);
  if (!r.ok()) return CheckRefusal(r.status(), "service time");
  last_accepted = true;
  if (!std::isfinite(r->mean_ns()) || r->mean_ns() < 0) return "service time: mean not finite and >= 0";
  std::mt19937_64 rng(1);
  for (int i = 0; i < 16; ++i) {
    if (r->Sample(rng) < 0) return "service time: a negative sample";
  }
  return "";
}

}  // namespace

std::string SpecToml(const uint8_t* data, size_t size) {
  last_accepted = false;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = ParseSpec(text, "fuzz.toml");
  if (!spec.ok()) {
    if (spec.status().message().empty()) return "spec refused without a message";
    if (spec.status().message().rfind("fuzz.toml", 0) != 0) {
      return "spec error does not name the spec: " + spec.status().message();
    }
    return "";
  }
  last_accepted = true;
  std::string json = spec->ToJson().dump();  // what the store keeps
  if (json.empty()) return "spec rendered to empty JSON";
  auto plan = MakePlan(*spec, "");
  if (!plan.ok()) return CheckRefusal(plan.status(), "plan");
  return "";
}

int SpecValueParsers() { return 16; }

std::string SpecValue(const uint8_t* data, size_t size) {
  last_accepted = false;
  if (size == 0) return "";
  const int which = data[0] % SpecValueParsers();
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (which) {
    case 0: return CheckNonNegative(ParseDuration(text), "duration");
    case 1: return CheckNonNegative(ParseSpecDuration(text), "spec duration");
    case 2: return CheckNonNegative(ParseDurationNs(text, "--fuzz"), "duration (ns)");
    case 3: return CheckNonNegative(ParseBytes(text), "size");
    case 4: return CheckNonNegative(ParseBytesPerSecond(text), "byte rate");
    case 5: return CheckNonNegative(ParseBitRate(text), "bit rate");
    case 6: {
      auto r = ParseMegabytesPerSecond(text);
      if (!r.ok() && r.status().code() == StatusCode::kNotFound) return CheckRefusal(r.status(), "MB/s");
      return CheckNonNegative(r, "MB/s");
    }
    case 7: {
      auto r = ParsePercent(text, "--fuzz");
      if (!r.ok()) return CheckRefusal(r.status(), "percent");
      last_accepted = true;
      // The range (a fraction up to 1, a CPU quota above it) is the caller's to check.
      if (!std::isfinite(*r) || *r < 0) return "percent: parsed to a value not finite and >= 0";
      return "";
    }
    case 8: return CheckCpuList(ParseCpuList(text), "CPU list");
    case 9: return CheckCpuList(ParseReservedCpus(FakeTopology(), text), "reserved CPUs");
    case 10: return CheckCpuList(ResolvePlacement(FakeTopology(), text, {7}), "placement");
    case 11: return CheckServiceTime(text);
    case 12: {
      auto r = ParseKeyDist(text);
      if (!r.ok()) return CheckRefusal(r.status(), "key distribution");
      last_accepted = true;
      if (r->zipf && !(r->theta > 0 && r->theta < 1)) return "key distribution: zipf theta outside (0, 1)";
      return "";
    }
    case 13: {
      // "trace:x" followed by the trace's text after the first newline.
      const size_t nl = text.find('\n');
      auto r = ParseArrival(text.substr(0, nl), nl == std::string::npos ? "" : std::string_view(text).substr(nl + 1));
      if (!r.ok()) return CheckRefusal(r.status(), "arrival");
      last_accepted = true;
      for (double g : r->trace_gaps) {
        if (!std::isfinite(g) || g < 0) return "arrival: a trace gap not finite and >= 0";
      }
      // A distribution of gaps (load/distribution.h): one it accepts can be scaled to a rate.
      if (r->kind == ArrivalSpec::Kind::kDistribution) {
        const double mean = r->DrawnMean();
        if (!std::isfinite(mean) || !(mean > 0)) return "arrival: a distribution accepted without a finite mean above 0";
        const double c = r->UnitCdf(1);
        if (!(c >= 0 && c <= 1)) return "arrival: a distribution's CDF outside [0, 1]";
      }
      return "";
    }
    case 14: {
      auto r = ParseTraceGaps(text);
      if (!r.ok()) return CheckRefusal(r.status(), "trace");
      last_accepted = true;
      for (double g : *r) {
        if (!std::isfinite(g) || g < 0) return "trace: a gap not finite and >= 0";
      }
      return "";
    }
    default: return CheckNonNegative(ParseCacheSize(text), "cache size");
  }
}

std::string SpecInput(const uint8_t* data, size_t size) {
  last_accepted = false;
  if (size == 0) return "";
  return data[0] % 2 == 0 ? SpecToml(data + 1, size - 1) : SpecValue(data + 1, size - 1);
}

bool LastAccepted() { return last_accepted; }

}  // namespace ream::fuzz
