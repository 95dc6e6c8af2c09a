// Each `ream` subcommand lives in its own cmd_<name>.cc and adds itself to the app here.
// Registration is explicit (main.cc calls every Add*Command), never static constructors.
#pragma once

#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace ream::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // the process exit code
};
using CommandList = std::vector<Command>;

void AddDoctorCommand(CLI::App& app, CommandList& commands);
void AddAnalyzeCommand(CLI::App& app, CommandList& commands);
void AddModelCommand(CLI::App& app, CommandList& commands);
void AddReportCommand(CLI::App& app, CommandList& commands);
void AddExecCommand(CLI::App& app, CommandList& commands);
void AddCleanupCommand(CLI::App& app, CommandList& commands);
void AddExportCommand(CLI::App& app, CommandList& commands);
void AddListCommand(CLI::App& app, CommandList& commands);
void AddRunCommand(CLI::App& app, CommandList& commands);
void AddLoadCommand(CLI::App& app, CommandList& commands);
void AddServeCommand(CLI::App& app, CommandList& commands);
void AddBatchCommand(CLI::App& app, CommandList& commands);
void AddPressureCommand(CLI::App& app, CommandList& commands);
void AddRelayCommand(CLI::App& app, CommandList& commands);
void AddCorunCommand(CLI::App& app, CommandList& commands);
void AddAgentCommand(CLI::App& app, CommandList& commands);
void AddKeepAwakeCommand(CLI::App& app, CommandList& commands);
void AddMergeCommand(CLI::App& app, CommandList& commands);
void AddCampaignCommand(CLI::App& app, CommandList& commands);

}  // namespace ream::cli
