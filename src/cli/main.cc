// `ream`: characterize server workloads under controlled load and resources.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/version.h"

int main(int argc, char** argv) {
  // ream's messages share the terminal (or a pipe) with the workloads it runs. An unbuffered
  // std::cerr writes each `<<` piece on its own, so a workload's line could land in the middle
  // of one of ream's. Line-buffered stderr writes each line whole (one write, atomic on a pipe
  // up to PIPE_BUF); stdio flushes what is left at exit, and exec drops no complete line.
  static char stderr_buffer[BUFSIZ];
  std::setvbuf(stderr, stderr_buffer, _IOLBF, sizeof stderr_buffer);
  std::cerr.unsetf(std::ios_base::unitbuf);
  CLI::App app{"ream — characterize server workloads under controlled load and resources",
               "ream"};
  app.set_version_flag("--version", std::string("ream ") + ream::kVersion + " (" +
                                        ream::kGitCommit + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  ream::cli::CommandList commands;
  ream::cli::AddDoctorCommand(app, commands);
  ream::cli::AddAnalyzeCommand(app, commands);
  ream::cli::AddModelCommand(app, commands);
  ream::cli::AddReportCommand(app, commands);
  ream::cli::AddExecCommand(app, commands);
  ream::cli::AddCleanupCommand(app, commands);
  ream::cli::AddRunCommand(app, commands);
  ream::cli::AddListCommand(app, commands);
  ream::cli::AddExportCommand(app, commands);
  ream::cli::AddMergeCommand(app, commands);
  ream::cli::AddCampaignCommand(app, commands);
  ream::cli::AddLoadCommand(app, commands);
  ream::cli::AddServeCommand(app, commands);
  ream::cli::AddBatchCommand(app, commands);
  ream::cli::AddPressureCommand(app, commands);
  ream::cli::AddRelayCommand(app, commands);
  ream::cli::AddAgentCommand(app, commands);
  ream::cli::AddKeepAwakeCommand(app, commands);
  ream::cli::AddCorunCommand(app, commands);
  // CLI11 reports an unknown subcommand only as "a subcommand is required"; name it.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto& c : commands) {
      known = known || c.app->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + c.app->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "ream: unknown subcommand '%s' (known: %s); see 'ream --help'\n",
                   argv[1], names.c_str());
      return ream::cli::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // REAM_CHECK_ARGS=1: the command line parsed and nothing runs (scripts/check-docs runs every
  // command line the docs show this way, so a renamed flag cannot leave a page behind).
  if (const char* check = std::getenv("REAM_CHECK_ARGS"); check != nullptr && std::string(check) == "1") {
    return ream::cli::kExitDone;
  }
  try {
    for (const auto& c : commands) {
      if (c.app->parsed()) return c.run();
    }
  } catch (const std::exception& e) {
    // Layers return Status; this is the last guard so a library exception never becomes a
    // crash with a stack trace.
    std::fprintf(stderr, "ream: internal error: %s\n", e.what());
    return ream::cli::kExitInternal;
  }
  std::fprintf(stderr, "ream: no subcommand given; see 'ream --help'\n");
  return ream::cli::kExitBadInput;
}
