// `ream export`: a results database as CSV, JSON, or HdrHistogram interchange logs.
#include <iostream>

#include "cli/commands.h"
#include "platform/platform.h"
#include "store/export.h"

namespace ream::cli {
namespace {

struct ExportOptions {
  std::string db = "results.db";
  std::string format = "csv";
  std::string out = "export";
  std::string experiment;
};

// mkdir -p through the Platform.
Status MakeDirs(Platform& p, const std::string& dir) {
  std::string path;
  for (const auto& part : Split(dir, '/')) {
    path += (path.empty() && dir[0] != '/' ? "" : "/") + part;
    if (p.IsDirectory(path)) continue;
    Status s = p.MakeDir(path);
    if (!s.ok() && s.code() != StatusCode::kAlreadyExists) return s;
  }
  return Status::Ok();
}

int RunExport(const ExportOptions& o) {
  auto format = ParseExportFormat(o.format);
  if (!format.ok()) {
    std::cerr << "ream export: " << format.status().message() << "\n";
    return 2;
  }
  auto store = Store::OpenReadOnly(o.db);
  if (!store.ok()) {
    std::cerr << "ream export: " << store.status().message() << "\n";
    return 1;
  }
  auto files = ExportStore(*store, *format, o.experiment);
  if (!files.ok()) {
    std::cerr << "ream export: " << files.status().message() << "\n";
    return 1;
  }
  auto platform = MakePosixPlatform();
  for (const auto& [name, content] : *files) {
    std::string path = o.out + "/" + name;
    std::string dir = path.substr(0, path.rfind('/'));
    Status s = MakeDirs(*platform, dir);
    if (s.ok()) s = platform->WriteFile(path, content);
    if (!s.ok()) {
      std::cerr << "ream export: writing " << path << ": " << s.message() << "\n";
      return 1;
    }
    std::cout << path << "\n";
  }
  if (files->empty()) std::cout << "ream export: nothing to export from " << o.db << "\n";
  return 0;
}

}  // namespace

void AddExportCommand(CLI::App& app, CommandList& commands) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand(
      "export", "Export results as CSV, JSON, or HdrHistogram logs (.hlog) of every latency histogram");
  sub->add_option("--db", opts->db, "Results database")->capture_default_str();
  sub->add_option("--format", opts->format, "csv | json | hdrlog")->capture_default_str();
  sub->add_option("--out", opts->out, "Directory to write into (created)")->capture_default_str();
  sub->add_option("--experiment", opts->experiment, "Only this experiment (default: all)");
  commands.push_back({sub, [opts] { return RunExport(*opts); }});
}

}  // namespace ream::cli
