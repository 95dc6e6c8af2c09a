// The charts of `ream report`: each panel is a Vega-Lite spec of one metric against the load
// (one line per scenario / partition, invalid points drawn as crosses), or the reason it
// could not be drawn. The page embeds the specs and draws them with the inlined libraries.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "load/load_axis.h"

namespace ream::report {

struct Panel {
  std::string id;
  std::string title;
  nlohmann::json spec;  // null when unavailable
  std::string unavailable;
  size_t rows = 0;
};

// The page's charts as (element id, Vega-Lite spec), in page order.
using ChartSpecs = std::vector<std::pair<std::string, nlohmann::json>>;

// The unit latencies are drawn in, chosen so the largest figure stays readable.
struct LatencyUnit {
  double per_us;  // multiply µs by this
  const char* name;
};
LatencyUnit ChooseUnit(const analysis::ExperimentAnalysis& a);

// Line + point layers of y against the load on `axis`, one line per series; invalid points
// are crosses. Rows have the fields series, qps (the load, whatever the axis), y, validity,
// why.
nlohmann::json LineSpec(const std::string& title, const nlohmann::json& rows,
                        const std::string& y_title, bool log_y, LoadAxis axis,
                        const std::string& dash_field = "",
                        std::optional<double> rule_y = std::nullopt,
                        const std::string& rule_label = "");

// A metric of the groups' points against load, scaled by `scale`.
Panel MetricPanel(const std::string& id, const std::string& title, const std::string& y_title,
                  const std::vector<const analysis::GroupAnalysis*>& groups,
                  const analysis::Metric analysis::PointAnalysis::*m, double scale, LoadAxis axis);
// The QoS percentile's latency against load, LQoS as a dashed rule.
Panel TailPanel(const analysis::ExperimentAnalysis& a,
                const std::vector<const analysis::GroupAnalysis*>& groups, const std::string& id,
                const std::string& title, LatencyUnit unit);
// The mean response time against load, one line per group (a sensitivity's settings).
Panel MeanPanel(const analysis::ExperimentAnalysis& a,
                const std::vector<const analysis::GroupAnalysis*>& groups, const std::string& id,
                const std::string& title, LatencyUnit unit);
// Network receive and transmit bandwidth against load.
Panel NetworkPanel(const std::vector<const analysis::GroupAnalysis*>& groups, const std::string& id,
                   LoadAxis axis);
// The queueing model's predicted mean and tail latency against the measured ones, over
// throughput; points outside the operating range are drawn as crosses.
Panel ModelPanel(const analysis::GroupAnalysis& g, const std::string& id, const std::string& pct,
                 LatencyUnit unit);

// The panel's element (the chart's spec appended to `specs`), or its reason to be empty.
std::string PanelHtml(const Panel& p, ChartSpecs* specs);

}  // namespace ream::report
