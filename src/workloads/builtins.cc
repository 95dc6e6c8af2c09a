#include "workloads/builtins.h"

#include <charconv>
#include <memory>

#include "workloads/kv.h"
#include "workloads/service_time.h"
#include "workloads/synthetic.h"

namespace ream {
namespace {

Result<uint64_t> Unsigned(const std::map<std::string, std::string>& v, const std::string& flag, uint64_t max) {
  const std::string& text = v.at(flag);
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    return InvalidArgument(flag + " '" + text + "' is not a non-negative integer");
  }
  if (n > max) return InvalidArgument(flag + " must be <= " + std::to_string(max));
  return n;
}

}  // namespace

Status WorkloadTable::Add(BuiltinWorkload w) {
  if (Find(w.name)) return InvalidArgument("workload '" + w.name + "' is already in the table");
  workloads_.push_back(std::move(w));
  return Status::Ok();
}

const BuiltinWorkload* WorkloadTable::Find(const std::string& name) const {
  for (const auto& w : workloads_) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> WorkloadTable::Names() const {
  std::vector<std::string> out;
  for (const auto& w : workloads_) out.push_back(w.name);
  return out;
}

void RegisterBuiltinWorkloads(WorkloadTable& t) {
  (void)t.Add({
      .name = "synthetic",
      .help = "Each request busy-spins a service time drawn from --service (calibration workload)",
      .options = {{"--service", "const:20us | exp:100us | lognormal:mean=100us,sigma=1 | bimodal:10us,1ms,p=0.01",
                   "", true},
                  {"--seed", "Seed of the service-time draws", "1"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        REAM_ASSIGN_OR_RETURN(ServiceTime service, ServiceTime::Parse(v.at("--service")));
        REAM_ASSIGN_OR_RETURN(uint64_t seed, Unsigned(v, "--seed", UINT64_MAX));
        return WorkloadServer{MakeSyntheticHandlers(service, seed), "service=" + v.at("--service")};
      },
  });
  (void)t.Add({
      .name = "kv",
      .help = "In-memory ordered key-value store: get, set, delete, scan",
      .options = {{"--records", "Records preloaded (keys key0000000000000..)", "100000"},
                  {"--value-bytes", "Bytes per preloaded value", "64"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        REAM_ASSIGN_OR_RETURN(uint64_t records, Unsigned(v, "--records", 100'000'000));
        REAM_ASSIGN_OR_RETURN(uint64_t value_bytes, Unsigned(v, "--value-bytes", 1024 * 1024));
        auto store = std::make_shared<KvStore>(records, static_cast<size_t>(value_bytes));
        return WorkloadServer{MakeKvHandlers(store), "records=" + std::to_string(records) +
                                                         " value_bytes=" + std::to_string(value_bytes)};
      },
  });
}

const WorkloadTable& BuiltinWorkloads() {
  static const WorkloadTable* table = [] {
    auto* t = new WorkloadTable;
    RegisterBuiltinWorkloads(*t);
    return t;
  }();
  return *table;
}

}  // namespace ream
