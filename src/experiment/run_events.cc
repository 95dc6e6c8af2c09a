#include "experiment/run_events.h"

#include <cmath>
#include <cstdio>

#include "platform/text.h"
#include "load/load_axis.h"

namespace ream {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

nlohmann::json RunJson(const EventRun& r) {
  return {{"experiment", r.experiment}, {"run", r.ordinal + 1},      {"scenario", r.scenario},
          {"partition", r.partition},   {"repetition", r.repetition}};
}

template <typename T>
nlohmann::json Opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string AxisUnit(const std::string& axis) { return axis == "qps" ? "QPS" : axis; }

}  // namespace

std::string HumanSeconds(double s) {
  if (s < 0) s = 0;
  int t = static_cast<int>(std::lround(s));
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(b, sizeof b, "%dm%02ds", t / 60, t % 60);
  else std::snprintf(b, sizeof b, "%ds", t);
  return b;
}

std::string EventName(const RunEvent& e) {
  return std::visit(Overloaded{
                        [](const ExperimentStarted&) { return "experiment_started"; },
                        [](const ScenarioSkipped&) { return "scenario_skipped"; },
                        [](const RunStarted&) { return "run_started"; },
                        [](const WorkloadRestarted&) { return "workload_restarted"; },
                        [](const LevelMeasured&) { return "level_measured"; },
                        [](const MeasuringAgain&) { return "measuring_again"; },
                        [](const NotMeasuredAgain&) { return "not_measured_again"; },
                        [](const QosTargetSet&) { return "qos_target"; },
                        [](const LoadRangeChosen&) { return "load_range_chosen"; },
                        [](const ClientsChosen&) { return "clients_chosen"; },
                        [](const GridStopped&) { return "grid_stopped"; },
                        [](const KneeEnded&) { return "knee_ended"; },
                        [](const RunWarning&) { return "run_warning"; },
                        [](const WorkloadStarted&) { return "workload_started"; },
                        [](const RunFinished&) { return "run_finished"; },
                    },
                    e);
}

nlohmann::json EventToJson(const RunEvent& e) {
  nlohmann::json j = std::visit(
      Overloaded{
          [](const ExperimentStarted& x) {
            return nlohmann::json{{"experiment", x.experiment},
                                  {"db", x.db_path},
                                  {"resumed", x.resumed},
                                  {"runs", x.runs},
                                  {"max_points", x.max_points},
                                  {"points_are_at_most", x.points_are_at_most},
                                  {"estimated_seconds", x.estimated_seconds}};
          },
          [](const ScenarioSkipped& x) {
            return nlohmann::json{{"experiment", x.experiment}, {"scenario", x.scenario}, {"reason", x.reason}};
          },
          [](const RunStarted& x) {
            nlohmann::json j = RunJson(x.run);
            j["workload_cpus"] = x.workload_cpus;
            j["generator_cpus"] = x.generator_cpus;
            j["points_already_stored"] = x.points_already_stored;
            j["keep_awake"] = KeepAwakeJson(x.keep_awake);
            return j;
          },
          [](const WorkloadRestarted& x) {
            nlohmann::json j = RunJson(x.run);
            j["exit"] = x.exit_description;
            return j;
          },
          [](const LevelMeasured& x) {
            nlohmann::json j = RunJson(x.run);
            j["axis"] = x.axis;
            j["load"] = x.load;
            j["attempt"] = x.attempt;
            j["status"] = x.status;
            if (!x.failure.empty()) j["failure"] = x.failure;
            j["valid"] = Opt(x.valid);
            j["invalid_reasons"] = x.invalid_reasons;
            j["qos_percentile"] = x.qos_percentile;
            j["percentile_latency_us"] = x.percentile_latency_us;
            j["timely_ratio"] = Opt(x.timely_ratio);
            j["host_timely_ratio"] = Opt(x.host_timely_ratio);
            j["cpu_util"] = Opt(x.cpu_util);
            j["reconnections"] = x.reconnections;
            if (x.until_decided) {
              j["until_measured_s"] = Opt(x.until_measured_s);
              j["until_decided"] = *x.until_decided;
            }
            j["done_points"] = x.done_points;
            j["planned_points"] = x.planned_points;
            j["planned_is_max"] = x.planned_is_max;
            j["eta_seconds"] = x.eta_seconds;
            return j;
          },
          [](const MeasuringAgain& x) {
            nlohmann::json j = RunJson(x.run);
            j["load"] = x.load;
            j["attempt"] = x.attempt;
            j["why"] = x.why == MeasuringAgain::Why::kInvalid ? "invalid"
                       : x.why == MeasuringAgain::Why::kHost  ? "host"
                                                              : "confirm";
            if (x.why != MeasuringAgain::Why::kConfirm) {
              j["max_attempts"] = x.max_attempts;
              j["last_invalid_reason"] = x.last_invalid_reason;
            }
            if (x.why == MeasuringAgain::Why::kHost) j["spoiled_by"] = x.spoiled_by;
            return j;
          },
          [](const NotMeasuredAgain& x) {
            nlohmann::json j = RunJson(x.run);
            j["load"] = x.load;
            j["attempts"] = x.attempts;
            j["why"] = x.why;
            return j;
          },
          [](const QosTargetSet& x) {
            nlohmann::json j = RunJson(x.run);
            j["target_us"] = x.target_us;
            j["fixed_by_spec"] = x.fixed_by_spec;
            j["service_multiplier"] = x.service_multiplier;
            return j;
          },
          [](const LoadRangeChosen& x) {
            nlohmann::json j = RunJson(x.run);
            j["levels"] = x.levels;
            j["qps_at_20"] = Opt(x.qps_at_20);
            j["qps_at_50"] = Opt(x.qps_at_50);
            j["saturation_qps"] = Opt(x.saturation_qps);
            j["probes"] = x.probes;
            j["why"] = x.why;
            j["resumed"] = x.resumed;
            return j;
          },
          [](const ClientsChosen& x) {
            nlohmann::json j = RunJson(x.run);
            j["threads"] = x.threads;
            j["connections"] = x.connections;
            j["timely"] = x.timely;
            j["why"] = x.why;
            j["resumed"] = x.resumed;
            return j;
          },
          [](const GridStopped& x) {
            nlohmann::json j = RunJson(x.run);
            j["invalid_streak"] = x.invalid_streak;
            j["levels_skipped"] = x.levels_skipped;
            j["saturation"] = x.signs;
            j["unsaturated_invalid"] = x.unsaturated_invalid;
            return j;
          },
          [](const KneeEnded& x) {
            nlohmann::json j = RunJson(x.run);
            j["low"] = x.low;
            j["high"] = x.high;
            nlohmann::json inv = nlohmann::json::array();
            for (const auto& l : x.invalid_levels) {
              inv.push_back({{"load", l.load},
                             {"attempts", l.attempts},
                             {"last_reason", l.last_reason},
                             {"saturation", l.saturation}});
            }
            j["invalid_levels"] = inv;
            j["low_never_valid"] = x.low_never_valid;
            j["below_range"] = x.below_range;
            j["above_range"] = x.above_range;
            j["converged"] = x.converged;
            j["last_pass"] = Opt(x.last_pass);
            j["first_fail"] = Opt(x.first_fail);
            j["points"] = x.points;
            j["remeasurements"] = x.remeasurements;
            j["confirmations"] = x.confirmations;
            j["confirmed"] = x.confirmed;
            j["reopened"] = x.reopened;
            return j;
          },
          [](const RunWarning& x) {
            nlohmann::json j = RunJson(x.run);
            j["message"] = x.message;
            return j;
          },
          [](const WorkloadStarted& x) {
            nlohmann::json j = RunJson(x.run);
            j["sandbox"] = x.sandbox;
            j["message"] = x.message;
            return j;
          },
          [](const RunFinished& x) {
            nlohmann::json j = RunJson(x.run);
            j["status"] = x.status;
            if (!x.failure.empty()) j["failure"] = x.failure;
            return j;
          },
      },
      e);
  j["event"] = EventName(e);
  return j;
}

void ConsoleObserver::OnEvent(const RunEvent& event) {
  std::visit(
      Overloaded{
          [&](const ExperimentStarted& x) {
            if (x.resumed) {
              out_ << "resuming experiment '" << x.experiment << "' in " << x.db_path << "\n";
            } else {
              out_ << "experiment '" << x.experiment << "' in " << x.db_path << ": " << x.runs << " run(s), "
                   << (x.points_are_at_most ? "at most " : "") << x.max_points << " points, about "
                   << HumanSeconds(x.estimated_seconds) << "\n";
            }
          },
          [&](const ScenarioSkipped& x) {
            out_ << "scenario " << x.scenario << " skipped: " << x.reason << "\n";
          },
          [&](const RunStarted& x) {
            out_ << x.run.label << "run " << x.run.ordinal + 1 << ": scenario " << x.run.scenario
                 << " (workload on CPU " << x.workload_cpus << ", generator on CPU "
                 << (x.generator_cpus.empty() ? "any" : x.generator_cpus)
                 << (x.keep_awake == KeepAwakeMode::kGenerator
                         ? "; keep_awake = \"generator\": its CPUs kept out of idle, the workload's left alone"
                     : x.keep_awake == KeepAwakeMode::kAll ? "; keep_awake: the generator's and the workload's CPUs kept out of idle"
                                                       : "")
                 << "), partition " << x.run.partition
                 << ", repetition " << x.run.repetition
                 << (x.points_already_stored == 0
                         ? ""
                         : " — resuming, " + std::to_string(x.points_already_stored) + " point(s) already stored")
                 << "\n";
          },
          [&](const WorkloadRestarted& x) {
            out_ << "  workload " << x.exit_description << " between load levels; restarting it\n";
          },
          [&](const LevelMeasured& x) {
            int left = std::max(x.planned_points - x.done_points, 0);
            std::string line = x.run.label + "[" + std::to_string(x.done_points) + "/" +
                               std::to_string(x.planned_points) + (x.planned_is_max ? " max" : "") + "] " +
                               x.run.scenario + " " + x.run.partition + " rep" + std::to_string(x.run.repetition) +
                               "  " + FormatLoadAmount(x.load) + " " + AxisUnit(x.axis) + "  " +
                               (x.attempt > 0 ? "(attempt " + std::to_string(x.attempt + 1) + ")  " : "");
            if (x.status != "ok") {
              line += "FAILED: " + x.failure;
            } else {
              line += "p" + Fmt("%g", x.qos_percentile) + " " +
                      (x.percentile_latency_us > 0 ? Fmt("%.0f", x.percentile_latency_us) + " us"
                                                   : std::string("n/a (no response)")) +
                      "  timely " + (x.timely_ratio ? Fmt("%.1f%%", *x.timely_ratio * 100) : std::string("n/a")) +
                      (x.host_timely_ratio ? Fmt(" (host %.1f%%)", *x.host_timely_ratio * 100) : std::string()) +
                      "  cpu " + (x.cpu_util ? Fmt("%.0f%%", *x.cpu_util * 100) : std::string("n/a")) + "  " +
                      (x.reconnections > 0 ? "reconnected " + std::to_string(x.reconnections) + "x  " : "") +
                      (x.valid.value_or(false)
                           ? "valid"
                           : "INVALID (" +
                                 (x.invalid_reasons.empty() ? std::string("the generator gave no reason")
                                                            : Join(x.invalid_reasons, "; ")) +
                                 ")");
              if (x.until_decided) {
                line += "  measured " + (x.until_measured_s ? Fmt("%.2f s", *x.until_measured_s) : std::string("n/a")) +
                        " (" + *x.until_decided + ")";
              }
            }
            line += "  | " + std::to_string(left) + " left, ETA " + HumanSeconds(x.eta_seconds);
            out_ << line << std::endl;
          },
          [&](const MeasuringAgain& x) {
            if (x.why == MeasuringAgain::Why::kConfirm) {
              out_ << "  measuring " << Fmt("%.6g", x.load) << " QPS again (attempt " << x.attempt + 1
                   << "): an end of the knee's bracket is confirmed by a second valid measurement, a third "
                      "when two disagree (sweep.confirm)\n";
            } else if (x.why == MeasuringAgain::Why::kHost) {
              out_ << "  measuring " << Fmt("%.6g", x.load) << " QPS again (attempt " << x.attempt + 1
                   << " of at most " << x.max_attempts << "): the host spoiled the last point (" << x.spoiled_by
                   << ": " << x.last_invalid_reason << ") ([load] attempts)\n";
            } else {
              out_ << "  measuring " << Fmt("%.6g", x.load) << " QPS again (attempt " << x.attempt + 1
                   << " of at most " << x.max_attempts << "): the last point there was invalid ("
                   << x.last_invalid_reason
                   << "), a failed measurement that says nothing about QoS (sweep.remeasure_invalid)\n";
            }
          },
          [&](const NotMeasuredAgain& x) {
            out_ << "  " << Fmt("%.6g", x.load) << " QPS stays invalid after " << x.attempts << " attempt(s): " << x.why
                 << "\n";
          },
          [&](const QosTargetSet& x) {
            out_ << "  QoS target " << Fmt("%.1f", x.target_us) << " us"
                 << (x.fixed_by_spec ? " (fixed by the spec)"
                                     : " (" + Fmt("%g", x.service_multiplier) +
                                           " x the service time at the lowest load)")
                 << "\n";
          },
          [&](const LoadRangeChosen& x) {
            std::vector<std::string> q;
            for (double v : x.levels) q.push_back(Fmt("%.6g", v));
            out_ << "  load range (qps = \"auto\")" << (x.resumed ? ", as chosen before" : "") << ": " << x.why
                 << "; " << x.levels.size() << " levels: " << Join(q, " ") << " QPS\n";
          },
          [&](const ClientsChosen& x) {
            out_ << "  clients (load.connections / threads = \"auto\")" << (x.resumed ? ", as chosen before" : "")
                 << ": " << x.connections << " connection(s) on " << x.threads << " thread(s): " << x.why << "\n";
          },
          [&](const GridStopped& x) {
            out_ << "  " << x.invalid_streak << " point(s) in a row after valid ones failed or were invalid showing "
                 << "saturation (last: " << x.signs << "): the workload is past saturation; " << x.levels_skipped
                 << " higher level(s) skipped (sweep.stop_after_invalid)";
            if (x.unsaturated_invalid > 0) {
              out_ << "; " << x.unsaturated_invalid
                   << " invalid level(s) before showed no saturation and were not counted";
            }
            out_ << "\n";
          },
          [&](const KneeEnded& k) {
            for (const auto& l : k.invalid_levels) {
              out_ << "  knee: " << Fmt("%.6g", l.load) << " QPS could not be measured validly after " << l.attempts
                   << " attempt(s) (last: " << l.last_reason << "); "
                   << (l.saturation.empty() ? std::string("it showed no saturation (the CPU below its allotment, the "
                                                          "throughput following the load)")
                                            : "it showed saturation (" + l.saturation + ")")
                   << "; counted as not meeting QoS, so no capacity is claimed from it\n";
            }
            std::string points =
                std::to_string(k.points) + " points" +
                (k.remeasurements ? ", " + std::to_string(k.remeasurements) + " of them re-measurements of invalid ones"
                                  : "") +
                (k.confirmations ? ", " + std::to_string(k.confirmations) + " confirmations of the ends" : "");
            if (k.below_range && k.low_never_valid) {
              out_ << "  knee: not found: sweep.low (" << Fmt("%.6g", k.low)
                   << " QPS) was never measured validly, so no load in range is claimed to meet QoS\n";
            } else if (k.below_range) {
              out_ << "  knee: even " << Fmt("%.6g", k.low) << " QPS misses QoS (below sweep.low)\n";
            } else if (k.above_range) {
              out_ << "  knee: " << Fmt("%.6g", k.high) << " QPS still meets QoS (above sweep.high)\n";
            } else if (!k.first_fail) {
              out_ << "  knee: " << Fmt("%.6g", k.last_pass.value_or(0))
                   << " QPS meets QoS; max_points reached before sweep.high was measured (" << points << ")\n";
            } else {
              out_ << "  knee: highest load meeting QoS " << Fmt("%.6g", k.last_pass.value_or(0))
                   << " QPS, first failing " << Fmt("%.6g", *k.first_fail) << " QPS (" << points
                   << (k.converged ? ", within " + Fmt("%g", k.precision * 100) + " %" : ", max_points reached")
                   << (!k.confirm_enabled ? ""
                       : k.confirmed      ? ", both ends confirmed"
                                          : ", ends not confirmed: max_points reached or an end never measured "
                                            "validly again")
                   << (k.reopened ? ", re-opened " + std::to_string(k.reopened) + " time(s) by a confirmation" : "")
                   << ")\n";
            }
          },
          [&](const RunWarning& x) { out_ << "  " << x.message << "\n"; },
          [&](const WorkloadStarted& x) { out_ << "  " << x.message << "\n"; },
          [&](const RunFinished&) {},
      },
      event);
}

void JsonLinesObserver::OnEvent(const RunEvent& event) { out_ << EventToJson(event).dump() << std::endl; }

}  // namespace ream
