#include "store/tenant_figures.h"

#include <algorithm>

namespace ream {
namespace {

// The JSON types a field of each C++ type accepts, and how an error names them.
template <typename T>
struct Kind;
template <>
struct Kind<double> {
  static constexpr const char* kName = "a number";
  static bool Is(const nlohmann::json& v) { return v.is_number(); }
};
template <>
struct Kind<int64_t> {
  static constexpr const char* kName = "an integer";
  static bool Is(const nlohmann::json& v) { return v.is_number_integer(); }
};
template <>
struct Kind<bool> {
  static constexpr const char* kName = "true or false";
  static bool Is(const nlohmann::json& v) { return v.is_boolean(); }
};
template <>
struct Kind<std::string> {
  static constexpr const char* kName = "a string";
  static bool Is(const nlohmann::json& v) { return v.is_string(); }
};

// Reads the keys of one JSON object into typed fields: a missing or null key leaves the field
// at its default, a key of another type is remembered as the first error (naming the record,
// the key and what it held), so a decoder reads every field and returns that one error.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string what) : j_(j), what_(std::move(what)) {
    if (!j_.is_object()) Fail("", "an object", j_);
  }

  template <typename T>
  void Value(const char* key, T* out) {
    if (const nlohmann::json* v = Get(key)) {
      if (Kind<T>::Is(*v))
        *out = v->get<T>();
      else
        Fail(key, Kind<T>::kName, *v);
    }
  }
  template <typename T>
  void Value(const char* key, std::optional<T>* out) {
    if (const nlohmann::json* v = Get(key)) {
      if (Kind<T>::Is(*v))
        *out = v->get<T>();
      else
        Fail(key, std::string(Kind<T>::kName) + " or null", *v);
    }
  }
  void Strings(const char* key, std::vector<std::string>* out) {
    const nlohmann::json* v = Get(key);
    if (!v) return;
    if (!v->is_array()) return Fail(key, "a list of strings", *v);
    for (const auto& s : *v) {
      if (!s.is_string()) return Fail(key, "a list of strings", *v);
      out->push_back(s.get<std::string>());
    }
  }
  void StringMap(const char* key, std::map<std::string, std::string>* out) {
    const nlohmann::json* v = Get(key);
    if (!v) return;
    if (!v->is_object()) return Fail(key, "an object of strings", *v);
    for (const auto& [k, s] : v->items()) {
      if (!s.is_string()) return Fail(key, "an object of strings", *v);
      (*out)[k] = s.get<std::string>();
    }
  }
  // The object at `key` (nullptr when missing or null; an error when not an object).
  const nlohmann::json* Object(const char* key) {
    const nlohmann::json* v = Get(key);
    if (v && !v->is_object()) {
      Fail(key, "an object", *v);
      return nullptr;
    }
    return v;
  }
  // The value at `key` as stored (nullptr when missing or null).
  const nlohmann::json* Raw(const char* key) { return Get(key); }

  void Fail(const std::string& key, const std::string& expected, const nlohmann::json& got) {
    if (!status_.ok()) return;
    std::string text = got.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    status_ = Corrupt(what_ + (key.empty() ? "" : ": \"" + key + "\"") + " should be " + expected +
                      ", not " + text +
                      " (the database was written by something other than ream, or damaged)");
  }
  void Fail(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }
  const std::string& what() const { return what_; }

 private:
  const nlohmann::json* Get(const char* key) {
    if (!j_.is_object()) return nullptr;
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  const nlohmann::json& j_;
  std::string what_;
  Status status_;
};

nlohmann::json Opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

std::string ToString(ThroughputUnit u) {
  switch (u) {
    case ThroughputUnit::kCompletionsPerSecond:
      return "completions/s";
    case ThroughputUnit::kQps:
      return "QPS";
    case ThroughputUnit::kCpuSecondsPerSecond:
      break;
  }
  return "CPU-s/s";
}

nlohmann::json TenantLoadFigures::ToJson() const {
  nlohmann::json j = {
      {"target_qps", target_qps}, {"connections", connections}, {"protocol", protocol}};
  if (!measured()) {
    j["unavailable"] = unavailable;
    return j;
  }
  j["achieved_qps"] = Opt(achieved_qps);
  j["throughput_qps"] = Opt(throughput_qps);
  j["timely_ratio"] = Opt(timely_ratio);
  j["valid"] = valid ? nlohmann::json(*valid) : nlohmann::json();
  j["invalid_reasons"] = invalid_reasons;
  j["errors"] = errors ? nlohmann::json(*errors) : nlohmann::json();
  j["latency_us"] = {{"mean", Opt(latency_mean_us)},
                     {"p50", Opt(latency_p50_us)},
                     {"p95", Opt(latency_p95_us)},
                     {"p99", Opt(latency_p99_us)}};
  return j;
}

Result<TenantLoadFigures> TenantLoadFigures::FromJson(const nlohmann::json& j,
                                                      const std::string& what) {
  TenantLoadFigures l;
  Fields f(j, what);
  f.Value("target_qps", &l.target_qps);
  f.Value("connections", &l.connections);
  f.Value("protocol", &l.protocol);
  f.Value("unavailable", &l.unavailable);
  f.Value("achieved_qps", &l.achieved_qps);
  f.Value("throughput_qps", &l.throughput_qps);
  f.Value("timely_ratio", &l.timely_ratio);
  f.Value("valid", &l.valid);
  f.Strings("invalid_reasons", &l.invalid_reasons);
  f.Value("errors", &l.errors);
  if (const nlohmann::json* lat = f.Object("latency_us")) {
    Fields g(*lat, what + ": \"latency_us\"");
    g.Value("mean", &l.latency_mean_us);
    g.Value("p50", &l.latency_p50_us);
    g.Value("p95", &l.latency_p95_us);
    g.Value("p99", &l.latency_p99_us);
    f.Fail(g.status());
  }
  if (!f.status().ok()) return f.status();
  return l;
}

std::optional<double> TenantFigures::Throughput(ThroughputUnit unit) const {
  switch (unit) {
    case ThroughputUnit::kQps:
      return load ? load->throughput_qps : std::nullopt;
    case ThroughputUnit::kCompletionsPerSecond:
      return completions_per_s;
    case ThroughputUnit::kCpuSecondsPerSecond:
      break;
  }
  return cpu_share;
}

std::optional<double> TenantFigures::ValidLoadP95Us() const {
  if (!load || !load->valid.value_or(false)) return std::nullopt;
  return load->latency_p95_us;
}

nlohmann::json TenantFigures::ToJson() const {
  nlohmann::json j = {{"window_s", window_s},
                      {"cpu_util", Opt(cpu_util)},
                      {"cpu_s", Opt(cpu_s)},
                      {"mem_bytes", Opt(mem_bytes)},
                      {"net_rx_bps", Opt(net_rx_bps)},
                      {"net_tx_bps", Opt(net_tx_bps)},
                      {"disk_read_bps", Opt(disk_read_bps)},
                      {"disk_write_bps", Opt(disk_write_bps)},
                      {"mem_bw_bps", Opt(mem_bw_bps)},
                      {"llc_occupancy_bytes", Opt(llc_occupancy_bytes)},
                      {"unavailable", unavailable},
                      {"completions", completions},
                      {"run_time_mean_s", Opt(run_time_mean_s)},
                      {"cpu_share", Opt(cpu_share)},
                      {"completions_per_s", Opt(completions_per_s)},
                      {"ended", ended}};
  if (load) j["load"] = load->ToJson();
  return j;
}

Result<TenantFigures> TenantFigures::FromJson(const nlohmann::json& j, const std::string& what) {
  TenantFigures t;
  Fields f(j, what);
  f.Value("window_s", &t.window_s);
  f.Value("cpu_util", &t.cpu_util);
  f.Value("cpu_s", &t.cpu_s);
  f.Value("mem_bytes", &t.mem_bytes);
  f.Value("net_rx_bps", &t.net_rx_bps);
  f.Value("net_tx_bps", &t.net_tx_bps);
  f.Value("disk_read_bps", &t.disk_read_bps);
  f.Value("disk_write_bps", &t.disk_write_bps);
  f.Value("mem_bw_bps", &t.mem_bw_bps);
  f.Value("llc_occupancy_bytes", &t.llc_occupancy_bytes);
  f.StringMap("unavailable", &t.unavailable);
  f.Value("completions", &t.completions);
  f.Value("run_time_mean_s", &t.run_time_mean_s);
  f.Value("cpu_share", &t.cpu_share);
  f.Value("completions_per_s", &t.completions_per_s);
  f.Value("ended", &t.ended);
  if (const nlohmann::json* l = f.Object("load")) {
    auto load = TenantLoadFigures::FromJson(*l, what + ": \"load\"");
    if (load.ok())
      t.load = std::move(load).value();
    else
      f.Fail(load.status());
  }
  if (!f.status().ok()) return f.status();
  return t;
}

nlohmann::json TenantFiguresToJson(const TenantFiguresByName& all) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, figures] : all) j[name] = figures.ToJson();
  return j;
}

Result<TenantFiguresByName> TenantFiguresFromJson(const nlohmann::json& j,
                                                  const std::string& what) {
  TenantFiguresByName all;
  if (j.is_null()) return all;
  Fields f(j, what + ": the co-runners' figures");
  if (!f.status().ok()) return f.status();
  for (const auto& [name, figures] : j.items()) {
    REAM_ASSIGN_OR_RETURN(all[name],
                          TenantFigures::FromJson(figures, what + ": co-runner '" + name + "'"));
  }
  return all;
}

void CorunnerSetRecord::SetAlone(const TenantFiguresByName& alone,
                                 std::vector<std::string> invalid) {
  for (auto& c : corunners) {
    auto it = alone.find(c.name);
    if (it == alone.end())
      c.alone.reset();
    else
      c.alone = it->second;
  }
  alone_measured = true;
  alone_invalid = std::move(invalid);
}

const CorunnerRecord* CorunnerSetRecord::Find(const std::string& name) const {
  for (const auto& c : corunners) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

nlohmann::json CorunnerSetRecord::ToJson() const {
  nlohmann::json cs = nlohmann::json::array();
  nlohmann::json alone = nlohmann::json::object();
  for (const CorunnerRecord& c : corunners) {
    nlohmann::json j = {{"name", c.name},           {"argv", c.argv},
                        {"cpus", c.cpus},           {"cpu_list", c.cpu_list},
                        {"sched", c.sched},         {"restart", c.restart},
                        {"partition", c.partition}, {"partition_label", c.partition_label},
                        {"sandbox", c.sandbox}};
    if (!c.place.empty()) j["place"] = c.place;
    if (!c.kind.empty()) j["kind"] = c.kind;
    if (!c.throughput_unit.empty()) j["throughput_unit"] = c.throughput_unit;
    if (!c.batch.empty()) j["batch"] = c.batch;
    if (!c.pressure.empty()) j["pressure"] = c.pressure, j["intensity"] = c.intensity;
    if (!c.builtin.empty()) j["builtin"] = c.builtin;
    if (c.load)
      j["load"] = {{"qps", c.load->qps},
                   {"connections", c.load->connections},
                   {"protocol", c.load->protocol}};
    if (c.interference_load) j["interference_load"] = *c.interference_load;
    cs.push_back(std::move(j));
    if (c.alone) alone[c.name] = c.alone->ToJson();
  }
  nlohmann::json j = {{"corunners", cs}};
  if (alone_measured) {
    j["alone"] = alone;
    j["alone_invalid"] = alone_invalid;
  }
  return j;
}

Result<CorunnerSetRecord> CorunnerSetRecord::FromJson(const nlohmann::json& j,
                                                      const std::string& what) {
  CorunnerSetRecord set;
  Fields f(j, what + ": the co-runners");
  if (!f.status().ok()) return f.status();
  if (const nlohmann::json* list = f.Raw("corunners")) {
    if (!list->is_array())
      return Corrupt(what + ": \"corunners\" should be a list, not " + list->dump());
    for (size_t i = 0; i < list->size(); ++i) {
      CorunnerRecord c;
      Fields g((*list)[i], what + ": co-runner " + std::to_string(i + 1));
      g.Value("name", &c.name);
      g.Strings("argv", &c.argv);
      g.Value("cpus", &c.cpus);
      g.Value("cpu_list", &c.cpu_list);
      g.Value("sched", &c.sched);
      g.Value("restart", &c.restart);
      if (const nlohmann::json* p = g.Object("partition")) c.partition = *p;
      g.Value("partition_label", &c.partition_label);
      g.Value("sandbox", &c.sandbox);
      g.Value("place", &c.place);
      g.Value("kind", &c.kind);
      g.Value("throughput_unit", &c.throughput_unit);
      g.Value("batch", &c.batch);
      g.Value("pressure", &c.pressure);
      g.Value("intensity", &c.intensity);
      g.Value("builtin", &c.builtin);
      if (const nlohmann::json* l = g.Object("load")) {
        CorunnerLoadRecord lr;
        Fields h(*l, g.what() + ": \"load\"");
        h.Value("qps", &lr.qps);
        h.Value("connections", &lr.connections);
        h.Value("protocol", &lr.protocol);
        g.Fail(h.status());
        c.load = lr;
      }
      g.Value("interference_load", &c.interference_load);
      if (!g.status().ok()) return g.status();
      set.corunners.push_back(std::move(c));
    }
  }
  if (const nlohmann::json* alone = f.Object("alone")) {
    set.alone_measured = true;
    for (const auto& [name, figures] : alone->items()) {
      auto it = std::find_if(set.corunners.begin(), set.corunners.end(),
                             [&](const CorunnerRecord& c) { return c.name == name; });
      if (it == set.corunners.end()) {
        return Corrupt(what + ": \"alone\" holds figures of co-runner '" + name +
                       "', which is not one of the run's co-runners");
      }
      REAM_ASSIGN_OR_RETURN(
          it->alone, TenantFigures::FromJson(figures, what + ": co-runner '" + name + "' alone"));
    }
  }
  f.Strings("alone_invalid", &set.alone_invalid);
  if (!f.status().ok()) return f.status();
  return set;
}

}  // namespace ream
