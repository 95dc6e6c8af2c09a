// `ream report`: one self-contained HTML page that opens offline. Vega, Vega-Lite and
// Vega-Embed are inlined from report-assets/node_modules (assets.cc), the data is inlined as
// JSON, and every chart is a Vega-Lite spec (panels.cc): per workload the first seed's six
// panels against the load (one line per scenario), the partition sensitivity plots, the
// queueing model against measurement, and the seed's Tables 1 and 2, each section written by
// its own function (html_sections.cc), in the order of the table of report sections
// (sections.cc). Figures carry data-metric and data-value attributes
// (the exact JSON number of `ream analyze --json`) so tests can find them.
#include <sstream>

#include "report/assets.h"
#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/panels.h"
#include "report/reporter.h"
#include "report/sections.h"

namespace ream::report {
namespace {

using nlohmann::json;

const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin-top:20px}h4{margin:4px 0}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right}.muted{color:#666}.bad{color:#a00}
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:12px}
.panel{border:1px solid #eee;padding:6px;min-height:120px;overflow-x:auto}.unavailable{background:#fafafa;color:#555}
.headline{font-size:16px}.headline span[data-metric]{font-weight:600}
tr.invalid td{color:#a00}
)";

class HtmlReporter : public Reporter {
 public:
  explicit HtmlReporter(HtmlAssets assets) : assets_(std::move(assets)) {}
  std::string_view name() const override { return "html"; }

  Status Report(const ReportInput& in, std::ostream& os) override {
    const analysis::ExperimentAnalysis& a = *in.analysis;
    Page page{a, *in.data, "p" + FormatNumber(a.percentile), ChooseUnit(a),
              std::string(LoadAxisUnit(a.load_axis))};
    ChartSpecs specs;
    std::ostringstream body;
    HeaderSection(page, body);
    for (const ReportSection& section : ReportSections()) {
      if (section.html && SectionShown(section, a)) section.html(page, body, &specs);
    }
    EnvironmentSection(page, body);
    for (const auto& w : a.warnings) body << "<p class=\"bad\">warning: " << Esc(w) << "</p>\n";
    body << "<p class=\"muted\">Charts: " << Esc(assets_.versions)
         << ", inlined; this file loads nothing from the network.</p>\n";

    json all_specs = json::object();
    for (const auto& [id, spec] : specs) all_specs[id] = spec;

    os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>ream report — " << Esc(a.experiment) << "</title>\n<style>" << kStyle
       << "</style>\n";
    os << "<script>" << InlineScript(assets_.vega) << "\n</script>\n";
    os << "<script>" << InlineScript(assets_.vega_lite) << "\n</script>\n";
    os << "<script>" << InlineScript(assets_.vega_embed) << "\n</script>\n";
    os << "</head>\n<body>\n" << body.str();
    os << "<script type=\"application/json\" id=\"ream-analysis\">"
       << ScriptJson(analysis::ToJson(a)) << "</script>\n";
    os << "<script type=\"application/json\" id=\"ream-specs\">" << ScriptJson(all_specs)
       << "</script>\n";
    os << R"(<script>
(function () {
  var specs = JSON.parse(document.getElementById('ream-specs').textContent);
  var ids = Object.keys(specs);
  var state = window.reamCharts = {total: ids.length, rendered: 0, failed: 0, done: false};
  var pending = ids.map(function (id) {
    var el = document.getElementById(id);
    return vegaEmbed(el, specs[id], {actions: false, renderer: 'svg'}).then(function (r) {
      state.rendered++;
      el.setAttribute('data-rendered', 'true');
    }).catch(function (e) {
      state.failed++;
      el.setAttribute('data-rendered', 'error');
      el.textContent = 'chart failed: ' + e;
      console.error('ream report: chart ' + id + ' failed: ' + e);
    });
  });
  Promise.all(pending).then(function () { state.done = true; });
})();
</script>
</body>
</html>
)";
    if (!os) return IoError("writing the HTML report failed");
    return Status::Ok();
  }

 private:
  HtmlAssets assets_;
};

}  // namespace

std::unique_ptr<Reporter> MakeHtmlReporter(HtmlAssets assets) {
  return std::make_unique<HtmlReporter>(std::move(assets));
}

}  // namespace ream::report
