// `ream report`: an experiment as one self-contained HTML page (Vega-Lite charts and the
// seed's tables), written atomically; its path is printed.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cli/analysis_input.h"
#include "cli/commands.h"
#include "report/reporter.h"

namespace ream::cli {
namespace {

// Where the chart libraries may be: --assets, $REAM_REPORT_ASSETS, next to the binary
// (build/ream → ../report-assets/node_modules; PREFIX/bin/ream → PREFIX/share/ream/...), the
// source tree it was built from.
std::vector<std::string> AssetDirs(const AnalyzeOptions& o, Platform& platform) {
  if (!o.assets.empty()) return {o.assets};
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("REAM_REPORT_ASSETS"); env && *env) dirs.push_back(env);
  auto exe = platform.RealPath("/proc/self/exe");
  if (exe.ok()) {
    std::string dir = exe->substr(0, exe->rfind('/'));
    dirs.push_back(dir + "/report-assets/node_modules");
    dirs.push_back(dir + "/../report-assets/node_modules");
    // An install (cmake/install.cmake): PREFIX/bin/ream and PREFIX/share/ream/report-assets.
    dirs.push_back(dir + "/../share/ream/report-assets/node_modules");
  }
  dirs.push_back(report::kSourceAssetDir);
  return dirs;
}

int RunReport(const AnalyzeOptions& o) {
  auto platform = MakePosixPlatform();
  auto l = LoadAndAnalyze("report", o, *platform);
  if (!l) return 1;
  Result<report::HtmlAssets> assets = NotFound("no asset directory");
  std::string tried;
  for (const auto& dir : AssetDirs(o, *platform)) {
    assets = report::LoadHtmlAssets(*platform, dir);
    if (assets.ok()) break;
    tried += (tried.empty() ? "" : ", ") + dir;
  }
  if (!assets.ok()) {
    std::cerr << "ream report: the chart libraries (vega, vega-lite, vega-embed) were not found "
                 "in "
              << tried << "; run scripts/install-deps (it runs npm install in report-assets/) "
              << "or pass --assets DIR/node_modules\n";
    return 1;
  }
  std::string tmp = o.out + ".tmp";
  {
    std::ostringstream page;
    auto reporter = report::MakeHtmlReporter(std::move(assets).value());
    Status s = reporter->Report({&l->data, &l->analysis}, page);
    if (!s.ok()) {
      std::cerr << "ream report: writing " << o.out << " failed\n";
      return 1;
    }
    Status w = platform->WriteFile(tmp, page.str());
    if (!w.ok()) {
      std::cerr << "ream report: cannot write " << tmp << "\n";
      (void)platform->RemoveFile(tmp);
      return 1;
    }
  }
  if (!platform->RenameFile(tmp, o.out).ok()) {
    std::cerr << "ream report: cannot move " << tmp << " to " << o.out << "\n";
    return 1;
  }
  auto abs = platform->RealPath(o.out);
  std::cout << "report written to " << (abs.ok() ? *abs : o.out) << "\n";
  return 0;
}

}  // namespace

void AddReportCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write a self-contained HTML report (Vega-Lite charts, tables) of an experiment");
  AddAnalysisInputOptions(sub, opts.get());
  sub->add_option("--out", opts->out, "The HTML file to write")->capture_default_str();
  sub->add_option("--assets", opts->assets,
                  "node_modules directory holding vega, vega-lite and vega-embed (default: "
                  "report-assets/node_modules of the source tree)");
  commands.push_back({sub, [opts] { return RunReport(*opts); }});
}

}  // namespace ream::cli
