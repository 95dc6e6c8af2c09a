// `ream pressure SOURCE --intensity P`: a source of interference with a calibrated dial
// (pressure/pressure.h), which reports the pressure it achieved; `--calibrate` runs every source
// at 0/25/50/75/100 % and judges each dial (monotone, within 10 % of nominal where measurable).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/table.h"
#include "platform/signals.h"
#include "pressure/pressure.h"
#include "topology/topology.h"

namespace ream::cli {
namespace {

using pressure::kReadyLine;

struct PressureFlags {
  std::string source;
  double intensity = NAN;
  double seconds = 0;
  double step_seconds = 1;
  std::string dir = pressure::SourceOptions{}.disk_dir;
  std::vector<std::string> only;
  bool json = false;
  bool calibrate = false;
};

bool Stopping() { return TerminationSignals::Received() != 0; }

std::string Pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

int Calibrate(Platform& p, const Topology& topo, const PressureFlags& f) {
  std::vector<pressure::Source> sources;
  for (const std::string& name : f.only) {
    auto s = pressure::ParseSource(name);
    if (!s.ok()) {
      std::cerr << "ream pressure --calibrate: " << s.status().message() << "\n";
      return kExitBadInput;
    }
    sources.push_back(*s);
  }
  if (sources.empty()) {
    for (const auto& s : pressure::Sources()) sources.push_back(s.source);
  }
  pressure::SourceOptions options{.disk_dir = f.dir};
  nlohmann::json out = nlohmann::json::array();
  Table t({"SOURCE", "ENGINE", "0 %", "25 %", "50 %", "75 %", "100 %", "MONOTONE", "WITHIN 10 %", "OF / NOTE"});
  bool all_good = true;
  for (pressure::Source s : sources) {
    const auto& info = pressure::Info(s);
    nlohmann::json j = {{"source", info.name}, {"engine", info.engine}, {"dial", info.dial}};
    auto made = pressure::MakeSource(s, p, topo, options);
    Status prepared = made.ok() ? (*made)->Prepare() : made.status();
    if (!prepared.ok()) {
      j["error"] = prepared.message();
      t.AddRow({std::string(info.name), std::string(info.engine), "-", "-", "-", "-", "-", "-", "-",
                "could not run: " + prepared.message()});
      out.push_back(j);
      all_good = false;
      continue;
    }
    j["calibration"] = (*made)->Calibration();
    std::vector<pressure::Achieved> steps;
    std::vector<double> setting;
    std::vector<std::string> row = {std::string(info.name), std::string(info.engine)};
    // A rate source's full scale is measured again beside every step: the reading after one step
    // is the one before the next. Each step is judged once all are taken (FullScaleBeside).
    const bool rate = (*made)->FullScaleIsARate();
    std::vector<double> readings;
    if (rate) readings.push_back(j["calibration"].value("peak_bytes_per_s", 0.0));
    for (double intensity : pressure::kCalibrationIntensities) {
      if (Stopping()) return kExitInterrupted;
      auto a = (*made)->Run(intensity, f.step_seconds, Stopping);
      Result<double> after = rate && a.ok() ? (*made)->MeasureFullScale() : Result<double>(0.0);
      if (!a.ok() || !after.ok()) {
        const Status& s = a.ok() ? after.status() : a.status();
        std::cerr << "ream pressure --calibrate " << info.name << " at " << intensity << " %: " << s.message() << "\n";
        return ExitCodeFor(s);
      }
      if (rate) readings.push_back(*after);
      steps.push_back(*a);
    }
    for (size_t i = 0; i < steps.size(); ++i) {
      pressure::Achieved& a = steps[i];
      if (rate) pressure::RescaleToFullScale(a, pressure::FullScaleBeside(readings, i));
      double ws = a.details.value("working_set_percent", NAN);
      setting.push_back(ws);
      row.push_back(a.measured ? Pct(a.percent) : "(ws " + Pct(ws) + ")");
    }
    if (rate) j["full_scale_readings_bytes_per_s"] = readings;
    pressure::Verdict v = pressure::Judge(steps, setting);
    row.push_back(v.monotone ? "yes" : "no");
    row.push_back(!v.within_tolerance ? "n/a" : *v.within_tolerance ? "yes (worst " + Pct(v.worst_error_percent) + " %)"
                                                                    : "no (worst " + Pct(v.worst_error_percent) + " %)");
    std::string note = steps.front().measured ? steps.front().what : "unavailable: " + steps.front().reason;
    if (!v.note.empty() && v.within_tolerance) note += "; " + v.note;
    row.push_back(note);
    t.AddRow(row);
    all_good = all_good && v.monotone && v.within_tolerance.value_or(true);
    nlohmann::json js = nlohmann::json::array();
    for (const auto& a : steps) js.push_back(a.ToJson());
    j["steps"] = js;
    j["monotone"] = v.monotone;
    j["within_10_percent"] = v.within_tolerance ? nlohmann::json(*v.within_tolerance) : nlohmann::json(nullptr);
    j["worst_error_percent"] = v.worst_error_percent;
    j["note"] = v.note;
    out.push_back(j);
  }
  if (f.json) std::cout << out.dump(2) << "\n";
  else t.Print(std::cout);
  return all_good ? kExitDone : kExitMeasuredWithFailures;
}

int RunPressure(const PressureFlags& f) {
  auto platform = MakePosixPlatform();
  auto topo = ReadTopology(*platform);
  if (!topo.ok()) {
    std::cerr << "ream pressure: cannot read the CPU topology: " << topo.status().message() << "\n";
    return kExitCouldNotRun;
  }
  if (!(f.seconds >= 0) || !(f.step_seconds > 0)) {
    std::cerr << "ream pressure: --seconds must be >= 0 (0: until SIGTERM/SIGINT) and --step-seconds > 0\n";
    return kExitBadInput;
  }
  // SIGTERM/SIGINT become a flag the sources poll: their threads are joined and their memory,
  // sockets and scratch file released before ream exits.
  TerminationSignals::Install();
  if (f.calibrate) return Calibrate(*platform, *topo, f);
  if (f.source.empty()) {
    std::cerr << "ream pressure: name a source (" << pressure::SourceNames() << ") or give --calibrate\n";
    return kExitBadInput;
  }
  auto source = pressure::ParseSource(f.source);
  if (!source.ok()) {
    std::cerr << "ream pressure: " << source.status().message() << "\n";
    return kExitBadInput;
  }
  if (std::isnan(f.intensity)) {
    std::cerr << "ream pressure " << f.source << ": give --intensity 0-100 (%)\n";
    return kExitBadInput;
  }
  if (Status s = pressure::ValidateIntensity(f.intensity); !s.ok()) {
    std::cerr << "ream pressure " << f.source << ": " << s.message() << "\n";
    return kExitBadInput;
  }
  auto made = pressure::MakeSource(*source, *platform, *topo, {.disk_dir = f.dir});
  Status prepared = made.ok() ? (*made)->Prepare() : made.status();
  if (!prepared.ok()) {
    std::cerr << "ream pressure " << f.source << ": " << prepared.message() << "\n";
    return ExitCodeFor(prepared);
  }
  (*made)->on_ready = [&] { std::cout << kReadyLine << ": " << f.source << " at " << f.intensity << " %" << std::endl; };
  auto a = (*made)->Run(f.intensity, f.seconds, Stopping);
  if (!a.ok()) {
    std::cerr << "ream pressure " << f.source << ": " << a.status().message() << "\n";
    return ExitCodeFor(a.status());
  }
  if (f.json) {
    nlohmann::json j = a->ToJson();
    j["source"] = f.source;
    j["engine"] = pressure::Info(*source).engine;
    j["calibration"] = (*made)->Calibration();
    std::cout << j.dump() << std::endl;
  } else if (a->measured) {
    std::printf("%s at %.1f %%: achieved %.1f %% of %s over %.2f s\n", f.source.c_str(), f.intensity, a->percent,
                a->what.c_str(), a->seconds);
  } else {
    std::printf("%s at %.1f %%: %s %s; achieved pressure unavailable: %s\n", f.source.c_str(), f.intensity,
                a->what.c_str(), a->details.dump().c_str(), a->reason.c_str());
  }
  std::fflush(stdout);
  // Stopped by a signal before its --seconds: the pressure was cut short.
  return f.seconds > 0 && Stopping() ? kExitInterrupted : kExitDone;
}

}  // namespace

void AddPressureCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<PressureFlags>();
  CLI::App* sub = app.add_subcommand("pressure", "Apply a source of interference at a calibrated intensity");
  sub->add_option("source", f->source, "One of " + pressure::SourceNames());
  sub->add_option("--intensity", f->intensity, "The dial, 0-100 (%)");
  sub->add_option("--seconds", f->seconds, "How long; 0 runs until SIGTERM/SIGINT")->capture_default_str();
  sub->add_option("--dir", f->dir, "Directory of the disk source's (unlinked) direct-I/O scratch file")
      ->capture_default_str();
  sub->add_flag("--calibrate", f->calibrate, "Run every source at 0/25/50/75/100 % and judge each dial");
  sub->add_option("--step-seconds", f->step_seconds, "With --calibrate: the length of each step")->capture_default_str();
  sub->add_option("--sources", f->only, "With --calibrate: only these sources")->delimiter(',');
  sub->add_flag("--json", f->json, "Print the achieved pressure (or the calibration) as JSON");
  commands.push_back({sub, [f] { return RunPressure(*f); }});
}

}  // namespace ream::cli
