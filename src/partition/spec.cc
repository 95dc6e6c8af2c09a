// PartitionSpec validation and the unit parsers.
#include "partition/spec.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "platform/platform.h"

namespace ream {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "12.5MB" into 12.5 and "mb". False when there is no leading number.
bool SplitNumber(std::string_view in, double* value, std::string* unit) {
  std::string s = Trim(in);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return false;
  std::string num = s.substr(0, i);
  char* end = nullptr;
  *value = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(*value)) return false;
  *unit = Lower(Trim(s.substr(i)));
  return true;
}

}  // namespace

Result<int64_t> ParseBytes(std::string_view s) {
  double v = 0;
  std::string unit;
  if (!SplitNumber(s, &v, &unit)) {
    return InvalidArgument("'" + std::string(s) + "' is not a size (e.g. 512M, 1G, 4096)");
  }
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (unit.size() == 2 && unit[1] == 'i') unit.pop_back();  // "MiB"
  double mult = 1;
  if (unit.empty()) mult = 1;
  else if (unit == "k") mult = 1024.0;
  else if (unit == "m") mult = 1024.0 * 1024;
  else if (unit == "g") mult = 1024.0 * 1024 * 1024;
  else if (unit == "t") mult = 1024.0 * 1024 * 1024 * 1024;
  else return InvalidArgument("unknown size unit in '" + std::string(s) + "' (use K, M, G, T)");
  double bytes = v * mult;
  if (bytes < 1 || bytes > 9.0e18) {
    return InvalidArgument("size '" + std::string(s) + "' is out of range");
  }
  return static_cast<int64_t>(std::llround(bytes));
}

Result<int64_t> ParseBytesPerSecond(std::string_view s) {
  std::string t = Lower(Trim(s));
  if (t.size() > 2 && t.substr(t.size() - 2) == "/s") t.resize(t.size() - 2);
  auto r = ParseBytes(t);
  if (!r.ok()) {
    return InvalidArgument("'" + std::string(s) + "' is not a byte rate (e.g. 20M for 20 MiB/s)");
  }
  return r;
}

Result<int64_t> ParseBitRate(std::string_view s) {
  double v = 0;
  std::string unit;
  if (!SplitNumber(s, &v, &unit)) {
    return InvalidArgument("'" + std::string(s) + "' is not a bit rate (e.g. 100mbit)");
  }
  double bits = 0;
  if (unit == "bit" || unit == "bps") bits = v;
  else if (unit == "kbit") bits = v * 1e3;
  else if (unit == "mbit") bits = v * 1e6;
  else if (unit == "gbit") bits = v * 1e9;
  else if (unit == "kb/s") bits = v * 8e3;
  else if (unit == "mb/s") bits = v * 8e6;
  else if (unit == "gb/s") bits = v * 8e9;
  else
    return InvalidArgument("unknown rate unit in '" + std::string(s) +
                           "' (use bit, kbit, mbit, gbit, or kB/s, MB/s, GB/s)");
  if (bits < 8000 || bits > 1e12) {
    return InvalidArgument("rate '" + std::string(s) + "' is out of range (8kbit..1000gbit)");
  }
  return static_cast<int64_t>(std::llround(bits));
}

Result<int64_t> ParseMegabytesPerSecond(std::string_view s) {
  std::string t = Trim(s);
  std::string number;
  for (const char* suffix : {"MBps", "MB/s"}) {
    std::string_view sv(suffix);
    if (t.size() > sv.size() && t.compare(t.size() - sv.size(), sv.size(), sv) == 0) {
      number = Trim(t.substr(0, t.size() - sv.size()));
    }
  }
  if (number.empty()) return NotFound("'" + std::string(s) + "' is not in MB/s");
  char* end = nullptr;
  long long v = std::strtoll(number.c_str(), &end, 10);
  if (end == number.c_str() || *end != '\0' || v <= 0) {
    return InvalidArgument("'" + std::string(s) + "' is not a whole positive number of MB/s (e.g. 4000MBps)");
  }
  return static_cast<int64_t>(v);
}

Result<double> ParsePercent(std::string_view s, std::string_view what) {
  std::string t = Trim(s);
  bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  double v = 0;
  std::string unit;
  if (!SplitNumber(t, &v, &unit) || !unit.empty()) {
    return InvalidArgument(std::string(what) + ": '" + std::string(s) +
                           "' is not a percentage (e.g. 50%)");
  }
  return pct ? v / 100.0 : v;
}

Result<std::chrono::nanoseconds> ParseDuration(std::string_view s) {
  double v = 0;
  std::string unit;
  if (!SplitNumber(s, &v, &unit)) {
    return InvalidArgument("'" + std::string(s) + "' is not a duration (e.g. 250ms, 1s)");
  }
  double ns = 0;
  if (unit == "ns") ns = v;
  else if (unit == "us") ns = v * 1e3;
  else if (unit == "ms") ns = v * 1e6;
  else if (unit == "s" || unit.empty()) ns = v * 1e9;
  else if (unit == "m" || unit == "min") ns = v * 60e9;
  else return InvalidArgument("unknown duration unit in '" + std::string(s) + "' (ns, us, ms, s, m)");
  // Past int64 nanoseconds llround has no answer (a negative duration otherwise).
  if (ns > 9.0e18) return InvalidArgument("duration '" + std::string(s) + "' is too long");
  return std::chrono::nanoseconds(static_cast<int64_t>(std::llround(ns)));
}

Status PartitionSpec::Validate() const {
  if (cpu_quota && (*cpu_quota < 0.01 || *cpu_quota > 1024)) {
    return InvalidArgument("--cpu-quota must be between 1% and 102400% (of one CPU)");
  }
  if (cpu_weight && (*cpu_weight < 1 || *cpu_weight > 10000)) {
    return InvalidArgument("cpu weight must be between 1 and 10000");
  }
  if (memory_bytes && *memory_bytes < 4 * 1024 * 1024) {
    return InvalidArgument("--memory must be at least 4M (the workload could not even start)");
  }
  for (auto [v, name] : {std::pair{disk_read_bps, "--disk-read-bps"},
                         std::pair{disk_write_bps, "--disk-write-bps"},
                         std::pair{disk_read_iops, "--disk-read-iops"},
                         std::pair{disk_write_iops, "--disk-write-iops"}}) {
    if (v && *v <= 0) return InvalidArgument(std::string(name) + " must be > 0");
  }
  if (net_rate_bps && !node) {
    return InvalidArgument("--net-rate shapes the node's link: it needs --node");
  }
  if (llc_ways && *llc_ways < 1) return InvalidArgument("--llc-ways must be >= 1");
  if (!llc_masks.empty() && !llc_ways) return InvalidArgument("LLC masks were chosen for a partition without --llc-ways");
  if (mem_bw_fraction && (*mem_bw_fraction <= 0 || *mem_bw_fraction > 1.0)) {
    return InvalidArgument("--mem-bw must be in (0%, 100%]");
  }
  if (mem_bw_mbps && *mem_bw_mbps <= 0) return InvalidArgument("--mem-bw must be > 0 MB/s");
  if (mem_bw_mbps && mem_bw_fraction) {
    return InvalidArgument("--mem-bw is either a percentage or an amount in MB/s, not both");
  }
  for (auto [v, name] : {std::pair{net_latency, "--net-latency"}, std::pair{net_overhead, "--net-overhead"},
                         std::pair{net_gap, "--net-gap"}, std::pair{net_per_byte, "--net-per-byte"}}) {
    if (v && v->count() < 0) {
      return InvalidArgument(std::string(name) + " must not be negative (" + std::to_string(v->count()) + " ns)");
    }
  }
  return Status::Ok();
}

bool PartitionSpec::NeedsRelay() const {
  auto positive = [](const std::optional<std::chrono::nanoseconds>& v) { return v && v->count() > 0; };
  return positive(net_latency) || positive(net_gap) || positive(net_per_byte);
}

bool PartitionSpec::empty() const {
  return cpus.empty() && !cpu_quota && !cpu_weight && !cpu_idle && !memory_bytes && !disk_read_bps &&
         !disk_write_bps && !disk_read_iops && !disk_write_iops && !node && !net_rate_bps &&
         !llc_ways && !mem_bw_fraction && !mem_bw_mbps && !net_latency && !net_overhead && !net_gap &&
         !net_per_byte;
}

nlohmann::json PartitionSpec::ToJson() const {
  nlohmann::json j;
  auto put = [&j](const char* k, const auto& opt) {
    j[k] = opt ? nlohmann::json(*opt) : nlohmann::json(nullptr);
  };
  j["cpus"] = cpus.empty() ? nlohmann::json(nullptr) : nlohmann::json(cpus);
  put("cpu_quota_cpus", cpu_quota);
  put("cpu_weight", cpu_weight);
  if (cpu_idle) j["cpu_idle"] = true;  // only when set: every other partition's JSON is as before
  put("memory_bytes", memory_bytes);
  put("disk_read_bps", disk_read_bps);
  put("disk_write_bps", disk_write_bps);
  put("disk_read_iops", disk_read_iops);
  put("disk_write_iops", disk_write_iops);
  j["disk_device"] = disk_device.empty() ? nlohmann::json(nullptr) : nlohmann::json(disk_device);
  j["node"] = node;
  put("net_rate_bps", net_rate_bps);
  put("llc_ways", llc_ways);
  if (!llc_masks.empty()) {  // only when chosen: every other partition's JSON is as before
    auto& m = j["llc_masks"] = nlohmann::json::object();
    for (const auto& [domain, mask] : llc_masks) m[std::to_string(domain)] = mask;
  }
  put("mem_bw_fraction", mem_bw_fraction);
  put("mem_bw_mbps", mem_bw_mbps);
  auto put_ns = [&j](const char* k, const std::optional<std::chrono::nanoseconds>& v) {
    j[k] = v ? nlohmann::json(v->count()) : nlohmann::json(nullptr);
  };
  put_ns("net_latency_ns", net_latency);
  put_ns("net_overhead_ns", net_overhead);
  put_ns("net_gap_ns", net_gap);
  put_ns("net_per_byte_ns", net_per_byte);
  return j;
}

Result<PartitionSpec> PartitionSpec::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgument("a partition is a JSON object, got " + j.dump());
  PartitionSpec s;
  Status bad;
  // Each field: absent or null leaves it unset; a value of the wrong type names the field.
  auto get = [&](const char* key, auto* out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null() || !bad.ok()) return;
    using T = typename std::remove_reference_t<decltype(*out)>::value_type;
    bool fits = std::is_same_v<T, double> ? it->is_number() : std::is_same_v<T, std::string> ? it->is_string()
                                                                                              : it->is_number_integer();
    if (!fits) {
      bad = InvalidArgument("partition field '" + std::string(key) + "' has the wrong type: " + it->dump());
      return;
    }
    *out = it->get<T>();
  };
  std::optional<std::string> cpus, disk_device;
  get("cpus", &cpus);
  s.cpus = cpus.value_or("");
  get("cpu_quota_cpus", &s.cpu_quota);
  get("cpu_weight", &s.cpu_weight);
  if (auto it = j.find("cpu_idle"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return InvalidArgument("partition field 'cpu_idle' has the wrong type: " + it->dump());
    s.cpu_idle = it->get<bool>();
  }
  get("memory_bytes", &s.memory_bytes);
  get("disk_read_bps", &s.disk_read_bps);
  get("disk_write_bps", &s.disk_write_bps);
  get("disk_read_iops", &s.disk_read_iops);
  get("disk_write_iops", &s.disk_write_iops);
  get("disk_device", &disk_device);
  s.disk_device = disk_device.value_or("");
  if (auto it = j.find("node"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return InvalidArgument("partition field 'node' has the wrong type: " + it->dump());
    s.node = it->get<bool>();
  }
  get("net_rate_bps", &s.net_rate_bps);
  get("llc_ways", &s.llc_ways);
  if (auto it = j.find("llc_masks"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return InvalidArgument("partition field 'llc_masks' has the wrong type: " + it->dump());
    for (const auto& [domain, mask] : it->items()) {
      int id = 0;
      auto [end, ec] = std::from_chars(domain.data(), domain.data() + domain.size(), id);
      if (ec != std::errc() || end != domain.data() + domain.size() || !mask.is_number_unsigned()) {
        return InvalidArgument("partition field 'llc_masks' is not {\"DOMAIN\": MASK, ...}: " + it->dump());
      }
      s.llc_masks[id] = mask.get<uint64_t>();
    }
  }
  get("mem_bw_fraction", &s.mem_bw_fraction);
  get("mem_bw_mbps", &s.mem_bw_mbps);
  std::optional<int64_t> latency, overhead, gap, per_byte;
  get("net_latency_ns", &latency);
  get("net_overhead_ns", &overhead);
  get("net_gap_ns", &gap);
  get("net_per_byte_ns", &per_byte);
  REAM_RETURN_IF_ERROR(bad);
  auto ns = [](const std::optional<int64_t>& v) {
    return v ? std::optional<std::chrono::nanoseconds>(*v) : std::nullopt;
  };
  s.net_latency = ns(latency);
  s.net_overhead = ns(overhead);
  s.net_gap = ns(gap);
  s.net_per_byte = ns(per_byte);
  return s;
}

}  // namespace ream
