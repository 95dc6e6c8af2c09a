// The report's sections as a table keyed by the analysis steps' names (analysis/steps.h): each
// row writes one step's part of `ream analyze`'s console tables, of `ream report`'s page, or of
// both. The text reporter and the page iterate the table between their own header and footer.
// A new analysis is one row here (sections.cc), with its Text* function in text_reporter.cc
// and its page section in html_*.cc; a step shown only inside another's section says so in
// StepsWithoutSection. sections_test.cc fails when a step has neither.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "report/html_sections.h"
#include "report/panels.h"

namespace ream::report {

// What every console section reads.
struct TextPage {
  const analysis::ExperimentAnalysis& a;
  std::string pct;    // the QoS percentile's name, "p95"
  std::string u;      // the load axis's unit, "QPS" or "sessions"
  std::string upper;  // the same in capitals, for table headers
};
TextPage MakeTextPage(const analysis::ExperimentAnalysis& a);

struct ReportSection {
  std::string_view step;  // the analysis step it shows
  // nullptr: the format has no such section here. The console and the page order some
  // sections differently, so a step may have a text row and a later page row (or several
  // page rows: the groups' charts, points and timeliness are all views of the merged points).
  void (*text)(const TextPage& page, std::ostream& os);
  void (*html)(const Page& page, std::ostream& body, ChartSpecs* specs);
};

// Every section, in the order of both outputs.
std::span<const ReportSection> ReportSections();

// Whether `a` shows the section: a batch subject's report is its batch section alone, a
// server's every other one (the step's scope says which).
bool SectionShown(const ReportSection& section, const analysis::ExperimentAnalysis& a);

// A step with no section of its own, and why (where it is shown instead).
struct StepWithoutSection {
  std::string_view step;
  std::string_view why;
};
std::span<const StepWithoutSection> StepsWithoutSection();

// The console sections (text_reporter.cc).
void TextQos(const TextPage& page, std::ostream& os);
void TextLoadRange(const TextPage& page, std::ostream& os);  // Table 1
void TextCapacity(const TextPage& page, std::ostream& os);   // Table 2
void TextScaling(const TextPage& page, std::ostream& os);
void TextCategory(const TextPage& page, std::ostream& os);
void TextSensitivity(const TextPage& page, std::ostream& os);
void TextModel(const TextPage& page, std::ostream& os);  // also `ream model`
void TextColocation(const TextPage& page, std::ostream& os);
void TextInterference(const TextPage& page, std::ostream& os);
void TextRecommendation(const TextPage& page, std::ostream& os);
void TextBatch(const TextPage& page, std::ostream& os);
void TextAcrossRuns(const TextPage& page, std::ostream& os);
void TextManager(const TextPage& page, std::ostream& os);

}  // namespace ream::report
