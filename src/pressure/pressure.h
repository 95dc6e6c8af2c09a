// Sources of interference with a calibrated dial (iBench's SoIs, Bubble-Up's bubble): cpu, l2,
// llc, mem_bw, memory, disk, net, each run at an intensity of 0-100 % and each measuring the
// pressure it *achieved* while it ran, not assuming it (docs/interference.md).
//
//   auto src = MakeSource(Source::kMemBw, platform, topology, {});
//   REAM_RETURN_IF_ERROR((*src)->Prepare());          // STREAM-like calibration of the peak
//   auto achieved = (*src)->Run(50, 2.0, should_stop);  // 2 s at half the peak bandwidth
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "topology/topology.h"

namespace ream::pressure {

enum class Source { kCpu, kL2, kLlc, kMemBw, kMemory, kDisk, kNet };

// The resource a source puts pressure on: what an analysis groups sources by (a batch subject
// slowed beside memory bandwidth is memory-bound, beside a cache cache-sensitive), so that it
// asks the row, never the source's name.
enum class Stressed { kCpu, kCache, kMemoryBandwidth, kMemoryCapacity, kDisk, kNetwork };

struct SourceInfo {
  Source source;
  std::string_view name;      // "cpu", "l2", ... as the CLI and the spec spell it
  Stressed stresses;          // the resource it puts pressure on
  std::string_view engine;    // what generates the pressure ("ream": ream's own code)
  std::string_view dial;      // what 100 % means
  std::string_view achieved;  // how the achieved pressure is measured
};
// Every source, in the order iBench lists them.
const std::vector<SourceInfo>& Sources();
const SourceInfo& Info(Source s);
std::optional<Source> SourceFromName(std::string_view name);
std::string SourceNames();  // "cpu, l2, llc, mem_bw, memory, disk, net"

// Checks a source name and an intensity as a user gave them. InvalidArgument naming the known
// sources, or saying the intensity must lie in 0-100.
Result<Source> ParseSource(std::string_view name);
Status ValidateIntensity(double intensity);

// --- The dial's arithmetic (pure, tested) ---

// The busy part of each period of the cpu source at `intensity` %: busy_ns + idle_ns = period_ns.
struct DutyCycle {
  int64_t busy_ns = 0;
  int64_t idle_ns = 0;
};
DutyCycle CpuDutyCycle(double intensity, int64_t period_ns);
// The bubble's working set for l2 or llc at `intensity` %: that share of one instance of the
// cache (the level-2 cache for l2, the last level for llc), rounded down to 64-byte lines.
// NotFound when the topology exposes no such cache; InvalidArgument for another source.
Result<int64_t> BubbleWorkingSetBytes(const Topology& topology, Source source, double intensity);
// 100 % of the memory source: this share of the memory available when it starts (a quarter: the
// subject, its generator and the other users of a shared 24 GB host with no swap keep the rest).
inline constexpr double kMemoryFullScale = 0.25;
int64_t MemoryTargetBytes(int64_t available_bytes, double intensity);
// A rate at `intensity` % of `peak` (bytes/s).
double ShareOf(double peak, double intensity);
// MemAvailable from /proc/meminfo's text, in bytes. InvalidArgument when absent or malformed.
Result<int64_t> ParseMemAvailable(std::string_view meminfo);
// VmRSS from /proc/<pid>/status's text, in bytes. InvalidArgument when absent or malformed.
Result<int64_t> ParseVmRss(std::string_view status);

// --- Running a source ---

// The line `ream pressure` prints once its pressure is established (a co-runner's ready_line).
inline constexpr const char* kReadyLine = "pressure ready";

struct SourceOptions {
  // Where the disk source writes its unlinked direct-I/O scratch file (on the disk to pressure).
  std::string disk_dir = "/var/tmp";
  // How long each reading of the peak of mem_bw, disk and net lasts (seconds): Prepare takes
  // kPaceReadings of them, `--calibrate` one more after every step.
  double calibration_seconds = 0.5;
};

// What a source achieved over a run.
struct Achieved {
  double intensity = 0;   // the dial, %
  bool measured = false;  // false: `reason` says why the pressure cannot be measured here
  double percent = 0;     // the achieved pressure as a share of the source's full scale, %
  std::string what;       // what `percent` is a share of ("one CPU's time", "the measured peak ...")
  std::string reason;
  double seconds = 0;     // how long it ran
  nlohmann::json details = nlohmann::json::object();  // raw figures: bytes, rates, working set
  nlohmann::json ToJson() const;
};

// A rate source paces its runs by the median of its last kPaceReadings full-scale readings.
inline constexpr size_t kPaceReadings = 3;

class PressureSource {
 public:
  virtual ~PressureSource() = default;
  virtual Source source() const = 0;
  // Measures what the dial's full scale needs (a peak rate, the available memory). Once.
  virtual Status Prepare() = 0;
  // Applies the pressure at `intensity` % for `seconds` (0: until `should_stop` says so),
  // polling `should_stop` every few tens of ms; every thread it starts is joined and everything
  // it allocated or created is released before it returns. The error of the first operation
  // that failed otherwise.
  virtual Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) = 0;
  // The figures Prepare measured (peak rates, sizes), for --json and the calibration table.
  virtual nlohmann::json Calibration() const = 0;
  // True where the full scale is a rate the host gives (mem_bw, disk, net). On a shared host that
  // rate moves within seconds (one loopback stream: 45-100 % of its reading 2 s before), so
  // `--calibrate` measures it again beside every step (MeasureFullScale) instead of once.
  virtual bool FullScaleIsARate() const { return false; }
  // Measures the full-scale rate again, now, for calibration_seconds, and returns that reading
  // (bytes/s); the runs that follow are paced by the median of the last kPaceReadings readings.
  // Only where FullScaleIsARate().
  virtual Result<double> MeasureFullScale() { return Internal("this source's full scale is not a rate"); }

 protected:
  // Prepare's reading of a rate source: kPaceReadings readings, so that the first runs are paced
  // by their median too.
  Status MeasureFullScaleAtStart() {
    for (size_t i = 0; i < kPaceReadings; ++i) {
      if (auto r = MeasureFullScale(); !r.ok()) return r.status();
    }
    return Status::Ok();
  }

 public:
  // Called by Run once the pressure is established (the memory source's resident set built),
  // before its `seconds` start: `ream pressure` prints its ready line there.
  std::function<void()> on_ready;
};

// A source of `source` on the real machine: the worker threads make the pressure, `platform`
// reads /proc and sleeps, `topology` sizes the bubble. NotFound for l2/llc when the topology
// has no such cache.
Result<std::unique_ptr<PressureSource>> MakeSource(Source source, Platform& platform, const Topology& topology,
                                                   const SourceOptions& options);

// --- Calibration ---

inline constexpr double kCalibrationIntensities[] = {0, 25, 50, 75, 100};
// Slack of the monotone check, in percentage points: a step may measure this much below the
// one before it (noise of a shared host) and still count as not going down.
inline constexpr double kMonotoneSlackPoints = 2;
// "Within 10 % of nominal": |achieved - nominal| <= 10 % of nominal; at nominal 0, <= 1 point.
inline constexpr double kNominalTolerance = 0.10;

// The full scale `--calibrate` judges a rate source's step against. readings[i] is taken just
// before step i and readings[i + 1] just after it; the scale is the median of the readings from
// one before the step to one after the step after it (up to four), so that one reading the host
// spoiled (a single 0.5 s reading of a loopback stream may read 30 % off its neighbours) moves
// neither this step's scale nor its neighbours'.
double FullScaleBeside(const std::vector<double>& readings, size_t step);
// A step of a rate source judged against `full_scale` (bytes/s): its achieved percent becomes its
// rate (details "bytes_per_s") over it, and the scale is kept in its details. A step whose rate
// was not measured keeps its figures.
void RescaleToFullScale(Achieved& step, double full_scale);

struct Verdict {
  bool monotone = false;
  std::optional<bool> within_tolerance;  // empty where the pressure is not measurable
  double worst_error_percent = 0;        // the largest |achieved - nominal| / nominal, %
  std::string note;                      // why, in a few words
};
// Judges a source's steps (by rising intensity): whether the achieved pressure (or, for a
// source whose pressure is not measurable, `fallback` per step: the dial's realized setting)
// never falls by more than kMonotoneSlackPoints, and whether each measured step is within
// kNominalTolerance of its intensity.
Verdict Judge(const std::vector<Achieved>& steps, const std::vector<double>& fallback = {});

}  // namespace ream::pressure
