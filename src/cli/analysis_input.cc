#include "cli/analysis_input.h"

#include <algorithm>
#include <iostream>

#include "analysis/store_loader.h"
#include "store/store.h"

namespace ream::cli {

std::unique_ptr<Loaded> LoadAndAnalyze(const char* cmd, const AnalyzeOptions& o,
                                       Platform& platform) {
  if (!platform.Exists(o.db)) {
    std::cerr << "ream " << cmd << ": no results database at " << o.db
              << "; run an experiment first ('ream run SPEC.toml --db " << o.db << "')\n";
    return nullptr;
  }
  auto store = Store::OpenReadOnly(o.db);
  if (!store.ok()) {
    std::cerr << "ream " << cmd << ": " << store.status().message() << "\n";
    return nullptr;
  }
  auto l = std::make_unique<Loaded>();
  auto data = analysis::LoadExperiment(*store, o.experiment);
  if (!data.ok()) {
    std::cerr << "ream " << cmd << ": " << data.status().message() << "\n";
    return nullptr;
  }
  l->data = std::move(data).value();
  analysis::AnalysisOptions ao;
  if (o.target_qps > 0) ao.target_qps = o.target_qps;
  // An experiment named by an option (--baseline, --reporter), loaded into `into`.
  auto load = [&](const char* option, const std::string& name, analysis::ExperimentData* into) {
    auto e = analysis::LoadExperiment(*store, name);
    if (!e.ok()) {
      std::cerr << "ream " << cmd << ": " << option << ": " << e.status().message() << "\n";
      return false;
    }
    *into = std::move(e).value();
    return true;
  };
  if (!o.with.empty()) {
    std::vector<analysis::ExperimentData> more(o.with.size());
    for (size_t i = 0; i < o.with.size(); ++i) {
      // DB:NAME: a run stored in another database, labelled as given (two databases may hold
      // one name); NAME: one in --db.
      const std::string& arg = o.with[i];
      const size_t colon = arg.rfind(':');
      if (colon != std::string::npos && colon > 0 && platform.Exists(arg.substr(0, colon))) {
        auto other = Store::OpenReadOnly(arg.substr(0, colon));
        auto e = other.ok() ? analysis::LoadExperiment(*other, arg.substr(colon + 1))
                            : Result<analysis::ExperimentData>(other.status());
        if (!e.ok()) {
          std::cerr << "ream " << cmd << ": --with " << arg << ": " << e.status().message() << "\n";
          return nullptr;
        }
        more[i] = std::move(e).value();
        more[i].name = arg;
      } else if (!load("--with", arg, &more[i])) {
        return nullptr;
      }
    }
    auto pooled = analysis::PoolRuns(l->data, more);
    if (!pooled.ok()) {
      std::cerr << "ream " << cmd << ": --with: " << pooled.status().message() << "\n";
      return nullptr;
    }
    l->data = std::move(pooled).value();
  }
  if (!o.baseline.empty()) {
    if (!load("--baseline", o.baseline, &l->baseline)) return nullptr;
    ao.baseline = &l->baseline;
  }
  if (!o.reporter.empty()) {
    if (!load("--reporter", o.reporter, &l->reporter)) return nullptr;
    ao.reporter = &l->reporter;
    // The other subjects of the co-location matrix: every experiment with sources of
    // interference among its co-runners (sensitivity curves of its own: [interference] expands
    // into `pressure` co-runners), but this one and the reporter.
    auto has_sources = [](const nlohmann::json& spec) {
      if (!spec.is_object() || !spec.contains("corunners") || !spec["corunners"].is_array()) return false;
      for (const auto& c : spec["corunners"]) {
        if (c.is_object() && c.contains("pressure")) return true;
      }
      return false;
    };
    auto list = store->ListExperiments();
    if (list.ok()) {
      for (const auto& e : *list) {
        const bool pooled = std::find(l->data.pooled.begin(), l->data.pooled.end(), e.name) != l->data.pooled.end();
        if (e.name == l->data.name || pooled || e.name == l->reporter.name || !has_sources(e.spec)) continue;
        auto other = analysis::LoadExperiment(*store, e.name);
        if (other.ok()) l->others.push_back(std::move(other).value());
      }
    }
    for (const auto& od : l->others) ao.subjects.push_back(&od);
  }
  auto a = analysis::Analyze(l->data, ao);
  if (!a.ok()) {
    std::cerr << "ream " << cmd << ": " << a.status().message() << "\n";
    return nullptr;
  }
  l->analysis = std::move(a).value();
  return l;
}

void AddAnalysisInputOptions(CLI::App* sub, AnalyzeOptions* o) {
  sub->add_option("--db", o->db, "Results database")->capture_default_str();
  sub->add_option("--experiment", o->experiment,
                  "Experiment name (default: the most recent in the database)");
  sub->add_option("--target-qps", o->target_qps,
                  "Recommend the cheapest measured allocation meeting QoS at this load")
      ->check(CLI::PositiveNumber);
  sub->add_option("--baseline", o->baseline,
                  "A zero-work baseline experiment (e.g. synthetic --service const:0 over the "
                  "same rates) whose mean round trip is the queueing model's delay center");
  sub->add_option("--reporter", o->reporter,
                  "An experiment whose subject reported its co-runners' pressure ([interference] and "
                  "[[corunner]] sets): predict this subject beside them from its own sensitivity curves");
  sub->add_option("--with", o->with,
                  "Another run of the same spec (repeatable): NAME in this database, or DB:NAME in another; its runs are pooled with the "
                  "experiment's, so every interval is across the runs, and each run's own figures are shown "
                  "beside the pool's with their range");
}


}  // namespace ream::cli
