// Reporters turn an analyzed experiment into one output format, written to an injected
// std::ostream: aligned console tables (`ream analyze`), JSON (`ream analyze --json`) and a
// self-contained HTML page with Vega-Lite charts (`ream report`). All three read the same
// ExperimentAnalysis, so their numbers agree.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "analysis/data.h"
#include "platform/platform.h"
#include "platform/status.h"

namespace ream::report {

struct ReportInput {
  const analysis::ExperimentData* data = nullptr;
  const analysis::ExperimentAnalysis* analysis = nullptr;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual std::string_view name() const = 0;
  // Writes the whole report. Fails only when the output stream fails (IoError).
  virtual Status Report(const ReportInput& in, std::ostream& os) = 0;
};

// The chart libraries inlined into every HTML report (the UMD builds of the npm packages).
struct HtmlAssets {
  std::string vega;
  std::string vega_lite;
  std::string vega_embed;
  std::string versions;  // "vega 6.4.0, vega-lite 6.5.0, vega-embed 7.3.0"
};

// report-assets/node_modules of the source tree this binary was built from.
inline constexpr const char* kSourceAssetDir = REAM_REPORT_ASSETS_DIR;

// Reads the assets from a node_modules directory (report-assets/node_modules). NotFound,
// naming the missing file and how to install it, when a package is absent.
Result<HtmlAssets> LoadHtmlAssets(Platform& platform, const std::string& node_modules);

std::unique_ptr<Reporter> MakeTextReporter();
std::unique_ptr<Reporter> MakeJsonReporter();
// `ream model`: the queueing model's part alone, as console tables or as JSON ({"experiment",
// "groups": [{"key", "model", "model_unavailable"}], "predicted_sensitivity"}).
std::unique_ptr<Reporter> MakeModelReporter();
std::unique_ptr<Reporter> MakeModelJsonReporter();
std::unique_ptr<Reporter> MakeHtmlReporter(HtmlAssets assets);

// Number formatting shared by the console and the page: 3 significant digits below 1000,
// whole numbers above ("512", "3343", "0.873").
std::string FormatNumber(double v);
// A figure that may be a bound (analysis/bounded.h), for people: `format` of its value after
// "≤ " or "≥ " ("≤ 0.18×"); "withheld" (with ": why" when `why`) when it was withheld; "—" when
// it was never computed.
std::string BoundedText(const analysis::Bounded& b, std::string (*format)(double), bool why = false);
// Formats for it: "0.18×", "18 %" (of a share), "1.23" (FormatNumber).
std::string Times(double v);
std::string SharePercent(double v);
// A sensitivity setting's change against its reference, after its capacity: " (−52.5 %)",
// " (≤ −52.5 %)" where a capacity is a bound, " (withheld: why)"; "" when never computed.
std::string RelativeChangeText(const analysis::Bounded& change);
// The predictions against the measured pairs (analysis/interference.h PredictionCheck), in one
// sentence: how many pairs were judged, the mean error beside the naive guess's, and the
// safe/unsafe agreement.
std::string PredictionCheckText(const analysis::PredictionCheck& c);

// One client node's part of a point, for people: "c0: 2490 of 2500 QPS, timely 99.1 %,
// lateness p99 31 µs, latency p99 210 µs, clock +12.3 µs (round trip 85 µs, best of 8): valid".
std::string AgentText(const analysis::AgentFigures& a);

}  // namespace ream::report
