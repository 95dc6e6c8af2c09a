// The sections of `ream report`'s page, one function each, in the order the page shows them.
// Loads are named by the experiment's axis ("QPS", "sessions"): a qps experiment's page is
// what it was before sweeps had an axis.
#pragma once

#include <ostream>
#include <string>

#include "analysis/analysis.h"
#include "analysis/data.h"
#include "report/panels.h"

namespace ream::report {

// What every section reads.
struct Page {
  const analysis::ExperimentAnalysis& a;
  const analysis::ExperimentData& d;
  std::string pct;        // the QoS percentile's name, "p95"
  LatencyUnit unit;       // of the latency charts
  std::string load_unit;  // the load axis's unit, "QPS" or "sessions"
};

void HeaderSection(const Page& page, std::ostream& body);
void QosSection(const Page& page, std::ostream& body);
void LoadRangeSection(const Page& page, std::ostream& body);  // Table 1
void CapacitySection(const Page& page, std::ostream& body);   // Table 2
void ScalingSection(const Page& page, std::ostream& body);
void CategorySection(const Page& page, std::ostream& body);
void RecommendationSection(const Page& page, std::ostream& body);
void ProfileSection(const Page& page, std::ostream& body, ChartSpecs* specs);
void SensitivitySection(const Page& page, std::ostream& body, ChartSpecs* specs);
void ModelSection(const Page& page, std::ostream& body, ChartSpecs* specs);
void PointsSection(const Page& page, std::ostream& body);
// The generator's lateness, its causes and the host's floor (html_timeliness.cc).
// A sessions sweep's view (html_sessions.cc): deadline misses and bytes per level; nothing
// on a qps page.
void SessionsSection(const Page& page, std::ostream& body, ChartSpecs* specs);
void TimelinessSection(const Page& page, std::ostream& body, ChartSpecs* specs);
// Shared servers (html_colocation.cc): the subject alone and beside each co-runner set; nothing
// on the page of an experiment without co-runners.
void ColocationSection(const Page& page, std::ostream& body, ChartSpecs* specs);
// The sensitivity profile (html_colocation.cc): per source, the curve, the tolerated intensity
// and the verdict; nothing without pressure-source sets.
void InterferenceSection(const Page& page, std::ostream& body, ChartSpecs* specs);
// A batch subject (html_batch.cc): run time and throughput against copies and each knob, the
// verdicts and the category; nothing on a server's page.
void BatchSection(const Page& page, std::ostream& body, ChartSpecs* specs);
void EnvironmentSection(const Page& page, std::ostream& body);
// Runs of one spec pooled (`ream analyze --with`): each run's figures beside the pool's; nothing
// for one run.
void AcrossRunsSection(const Page& page, std::ostream& body);
void ManagerSection(const Page& page, std::ostream& body, ChartSpecs* specs);

}  // namespace ream::report
