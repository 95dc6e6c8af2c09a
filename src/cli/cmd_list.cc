// `ream list`: the experiments in a results database, one line each, with their runs and
// points counted and their status.
#include <iostream>

#include "cli/commands.h"
#include "cli/table.h"
#include "store/store.h"

namespace ream::cli {
namespace {

struct ListOptions {
  std::string db = "results.db";
  bool json = false;
};

std::string FormatTime(int64_t ns) {
  std::time_t t = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

int RunList(const ListOptions& o) {
  auto store = Store::OpenReadOnly(o.db);
  if (!store.ok()) {
    std::cerr << "ream list: " << store.status().message() << "\n";
    return 1;
  }
  auto exps = store->ListExperiments();
  if (!exps.ok()) {
    std::cerr << "ream list: " << exps.status().message() << "\n";
    return 1;
  }
  nlohmann::json out = nlohmann::json::array();
  Table t({"NAME", "STATUS", "WORKLOAD", "RUNS", "POINTS", "FAILED", "INVALID", "CREATED", "NOTE"});
  for (const auto& e : *exps) {
    auto runs = store->ListRuns(e.id);
    if (!runs.ok()) {
      std::cerr << "ream list: " << runs.status().message() << "\n";
      return 1;
    }
    int points = 0, failed = 0, invalid = 0;
    for (const auto& r : *runs) {
      auto ps = store->ListPoints(r.id);
      if (!ps.ok()) {
        std::cerr << "ream list: " << ps.status().message() << "\n";
        return 1;
      }
      for (const auto& p : *ps) {
        ++points;
        if (p.status != PointStatus::kOk) ++failed;
        else if (p.valid && !*p.valid) ++invalid;
      }
    }
    t.AddRow({e.name, std::string(StatusName(e.status)), e.workload, std::to_string(runs->size()), std::to_string(points),
              std::to_string(failed), std::to_string(invalid), FormatTime(e.created_ns), e.failure});
    out.push_back({{"name", e.name}, {"status", StatusName(e.status)}, {"workload", e.workload},
                   {"runs", runs->size()}, {"points", points}, {"failed_points", failed},
                   {"invalid_points", invalid}, {"created_ns", e.created_ns},
                   {"failure", e.failure}});
  }
  if (o.json) {
    std::cout << out.dump(2) << "\n";
  } else if (exps->empty()) {
    std::cout << o.db << ": no experiments yet\n";
  } else {
    t.Print(std::cout);
  }
  return 0;
}

}  // namespace

void AddListCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* sub = app.add_subcommand("list", "List the experiments in a results database");
  sub->add_option("--db", opts->db, "Results database")->capture_default_str();
  sub->add_flag("--json", opts->json, "Print a JSON array instead of a table");
  commands.push_back({sub, [opts] { return RunList(*opts); }});
}

}  // namespace ream::cli
