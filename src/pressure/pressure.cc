// The sources of interference (pressure/pressure.h): each one worker thread making the pressure,
// paced on an absolute schedule of short periods, and counting what it did.
#include "pressure/pressure.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "platform/clock.h"
#include "platform/direct_io.h"
#include "platform/affinity.h"
#include "platform/median.h"
#include "platform/memory_region.h"
#include "platform/net.h"

namespace ream::pressure {
namespace {

constexpr int64_t kPeriodNs = 10'000'000;  // the pacing period of every paced source: 10 ms
constexpr int64_t kPollNs = 20'000'000;    // how often Run looks at should_stop
constexpr int64_t kWindowNs = 100'000'000;  // the net source's full scale: median of these windows
constexpr int64_t kLineBytes = 64;

const std::vector<SourceInfo> kSources = {
    {Source::kCpu, "cpu", Stressed::kCpu, "ream",
     "one CPU busy all the time (a spinning thread; intensity = its duty cycle over 10 ms periods, "
     "counted in its own CPU time)",
     "the thread's own CPU time over the wall time (CLOCK_THREAD_CPUTIME_ID)"},
    {Source::kL2, "l2", Stressed::kCache, "ream",
     "a bubble whose working set is one L2 instance (random and streaming accesses; intensity = the "
     "share of the cache it covers)",
     "unavailable: needs cache occupancy or miss counters; the working set it touches is reported"},
    {Source::kLlc, "llc", Stressed::kCache, "ream",
     "a bubble whose working set is the LLC (random and streaming accesses; intensity = the share of "
     "the cache it covers)",
     "unavailable: needs cache occupancy or miss counters; the working set it touches is reported"},
    {Source::kMemBw, "mem_bw", Stressed::kMemoryBandwidth, "ream",
     "the STREAM-triad bandwidth one CPU reaches here, measured when the source starts",
     "the bytes the streamer itself moved over the wall time, against the measured peak"},
    {Source::kMemory, "memory", Stressed::kMemoryCapacity, "ream",
     "a quarter of MemAvailable at start, mapped and made resident (MADV_POPULATE_WRITE)",
     "the process's resident set (VmRSS) grown since the start, against the target"},
    {Source::kDisk, "disk", Stressed::kDisk, "ream",
     "the direct-I/O (O_DIRECT) write rate to the scratch directory's device, measured at start",
     "the bytes the kernel accounted to the process as written to storage (/proc/self/io)"},
    {Source::kNet, "net", Stressed::kNetwork, "ream",
     "the rate of one TCP stream to a sink on loopback, measured at start",
     "the bytes the sink received over the wall time, against the measured peak"},
};

int64_t Now() { return MonotonicNowNs(); }

// Sleeps until the absolute monotonic time `until_ns` (no-op when past).
void SleepUntil(Platform& p, int64_t until_ns) {
  int64_t d = until_ns - Now();
  if (d > 0) p.SleepFor(std::chrono::nanoseconds(d));
}

// The calling thread waits for `seconds` (0: forever) or until should_stop, then sets `stop`.
// Returns the wall seconds elapsed since `start_ns`.
void Wait(Platform& p, double seconds, const std::function<bool()>& should_stop, int64_t start_ns,
          const std::function<void()>& on_ready) {
  if (on_ready) on_ready();
  const int64_t end_ns = seconds > 0 ? start_ns + static_cast<int64_t>(seconds * 1e9) : INT64_MAX;
  while (Now() < end_ns && !(should_stop && should_stop())) {
    p.SleepFor(std::chrono::nanoseconds(std::min<int64_t>(kPollNs, std::max<int64_t>(end_ns - Now(), 0))));
  }
}

// A rate source's full scale: every reading it took, oldest first; its runs are paced by the
// median of the last kPaceReadings (one reading the host spoiled does not set the dial).
class FullScale {
 public:
  // Keeps `reading` and returns it.
  double Add(double reading) {
    readings_.push_back(reading);
    return reading;
  }
  double value() const {
    if (readings_.empty()) return 0;
    const size_t n = std::min(readings_.size(), kPaceReadings);
    return Median(std::vector<double>(readings_.end() - static_cast<std::ptrdiff_t>(n), readings_.end()));
  }

 private:
  std::vector<double> readings_;
};

// A worker thread joined when this goes out of scope, after `stop` is set.
class Worker {
 public:
  template <typename F>
  explicit Worker(F f) : thread_([this, f] { f(stop_); }) {}
  ~Worker() { Join(); }
  void Join() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Achieved Unmeasured(double intensity, std::string reason) {
  Achieved a;
  a.intensity = intensity;
  a.measured = false;
  a.reason = std::move(reason);
  return a;
}

// --- cpu ---
class CpuSource : public PressureSource {
 public:
  explicit CpuSource(Platform& p) : p_(p) {}
  Source source() const override { return Source::kCpu; }
  Status Prepare() override { return Status::Ok(); }
  nlohmann::json Calibration() const override { return {{"period_ns", kPeriodNs}}; }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    const DutyCycle d = CpuDutyCycle(intensity, kPeriodNs);
    std::atomic<int64_t> cpu_ns{0};
    const int64_t start = Now();
    {
      Worker w([&](const std::atomic<bool>& stop) {
        (void)UseTightTimerSlack();
        const int64_t cpu0 = ThreadCpuNs();
        const double share = static_cast<double>(d.busy_ns) / kPeriodNs;
        // The busy part is counted in the thread's own CPU time, on an absolute schedule: by the
        // end of each period it has used share * elapsed of CPU. Spinning for busy_ns of wall time
        // fell short on a host whose other tenants took the CPU mid-spin (22.4 % at 25 %, 95.4 %
        // at 100 % with a load average of 4 on 2 vCPUs, 5 Dec 2026); a shortfall is made up in the
        // following periods, never beyond a period's end.
        for (int64_t period = Now(); !stop.load(std::memory_order_relaxed); period += kPeriodNs) {
          const auto due = static_cast<int64_t>(share * static_cast<double>(period + kPeriodNs - start));
          while (ThreadCpuNs() - cpu0 < due && Now() < period + kPeriodNs && !stop.load(std::memory_order_relaxed)) {
          }
          SleepUntil(p_, period + kPeriodNs);
          cpu_ns.store(ThreadCpuNs() - cpu0, std::memory_order_relaxed);
        }
        cpu_ns.store(ThreadCpuNs() - cpu0);
      });
      Wait(p_, seconds, should_stop, start, on_ready);
    }
    Achieved a;
    a.intensity = intensity;
    a.seconds = (Now() - start) / 1e9;
    a.measured = true;
    a.what = "one CPU's time";
    a.percent = 100.0 * cpu_ns.load() / 1e9 / a.seconds;
    a.details = {{"cpu_seconds", cpu_ns.load() / 1e9}, {"busy_ns_per_period", d.busy_ns}, {"period_ns", kPeriodNs}};
    return a;
  }

 private:
  Platform& p_;
};

// --- l2, llc: the bubble ---
class BubbleSource : public PressureSource {
 public:
  BubbleSource(Platform& p, const Topology& t, Source s) : p_(p), topology_(t), source_(s) {}
  Source source() const override { return source_; }
  Status Prepare() override {
    auto full = BubbleWorkingSetBytes(topology_, source_, 100);
    if (!full.ok()) return full.status();
    cache_bytes_ = *full;
    reason_ = "no cache occupancy monitoring (resctrl) nor miss counters are read by the bubble";
    if (!p_.Exists("/sys/fs/resctrl/info/L3_MON")) reason_ += "; this machine has no resctrl monitoring";
    Status perf = p_.ProbePerfLlcMisses();
    if (!perf.ok()) reason_ += "; perf LLC counters: " + perf.message();
    return Status::Ok();
  }
  nlohmann::json Calibration() const override { return {{"cache_bytes", cache_bytes_}}; }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    REAM_ASSIGN_OR_RETURN(int64_t ws, BubbleWorkingSetBytes(topology_, source_, intensity));
    const int64_t lines = ws / kLineBytes;
    std::vector<uint64_t> buf(static_cast<size_t>(ws / 8));
    std::atomic<uint64_t> accesses{0};
    const int64_t start = Now();
    {
      Worker w([&](const std::atomic<bool>& stop) {
        if (lines == 0) return;  // intensity 0: no bubble
        uint64_t x = 88172645463325252ull, n = 0, stream = 0, sum = 0;
        const uint64_t per_line = kLineBytes / 8;
        while (!stop.load(std::memory_order_relaxed)) {
          // Random line updates (the bubble's reuse) interleaved with a streaming sweep, Bubble-Up's
          // mix: both keep every line of the working set hot in the cache.
          for (int i = 0; i < 4096; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t& r = buf[(x % static_cast<uint64_t>(lines)) * per_line];
            r += 1;
            sum += buf[stream];
            stream += per_line;
            if (stream >= buf.size()) stream = 0;
          }
          n += 8192;
          accesses.store(n, std::memory_order_relaxed);
        }
        if (sum == 42) buf[0] = sum;  // keeps the reads
      });
      Wait(p_, seconds, should_stop, start, on_ready);
    }
    Achieved a = Unmeasured(intensity, reason_);
    a.seconds = (Now() - start) / 1e9;
    a.what = std::string(source_ == Source::kL2 ? "one L2 instance" : "the LLC") + " (working set)";
    a.details = {{"working_set_bytes", ws},
                 {"cache_bytes", cache_bytes_},
                 {"working_set_percent", cache_bytes_ ? 100.0 * ws / cache_bytes_ : 0.0},
                 {"accesses_per_s", accesses.load() / a.seconds}};
    return a;
  }

 private:
  Platform& p_;
  const Topology& topology_;
  Source source_;
  int64_t cache_bytes_ = 0;
  std::string reason_;
};

// --- mem_bw ---
class MemBwSource : public PressureSource {
 public:
  MemBwSource(Platform& p, const Topology& t, const SourceOptions& o) : p_(p), options_(o) {
    // Four times the LLC per array, at least 32 MiB: the triad's traffic goes to memory.
    int64_t llc = t.llc() ? t.llc()->size_bytes : 0;
    elements_ = static_cast<size_t>(std::max<int64_t>(4 * llc, int64_t{32} << 20) / 8);
  }
  Source source() const override { return Source::kMemBw; }
  Status Prepare() override { return MeasureFullScaleAtStart(); }
  bool FullScaleIsARate() const override { return true; }
  Result<double> MeasureFullScale() override {
    Arrays();
    const int64_t start = Now();
    const int64_t end = start + static_cast<int64_t>(options_.calibration_seconds * 1e9);
    uint64_t bytes = 0;
    size_t pos = 0;
    while (Now() < end) bytes += Triad(&pos, 1 << 16);
    return scale_.Add(bytes / ((Now() - start) / 1e9));
  }
  nlohmann::json Calibration() const override {
    return {{"peak_bytes_per_s", scale_.value()}, {"array_bytes", elements_ * 8}, {"kernel", "STREAM triad, 24 B/element"}};
  }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    Arrays();
    const double rate = ShareOf(scale_.value(), intensity);
    std::atomic<uint64_t> moved{0};
    const int64_t start = Now();
    {
      Worker w([&](const std::atomic<bool>& stop) {
        if (rate <= 0) return;
        (void)UseTightTimerSlack();
        size_t pos = 0;
        uint64_t total = 0;
        // Absolute schedule: by time t the streamer has moved rate * t bytes, never "now + gap".
        for (int64_t period = Now(); !stop.load(std::memory_order_relaxed); period += kPeriodNs) {
          const double due = rate * ((period + kPeriodNs - start) / 1e9);
          while (total < due && !stop.load(std::memory_order_relaxed)) total += Triad(&pos, 4096);
          moved.store(total, std::memory_order_relaxed);
          SleepUntil(p_, period + kPeriodNs);
        }
      });
      Wait(p_, seconds, should_stop, start, on_ready);
    }
    Achieved a;
    a.intensity = intensity;
    a.seconds = (Now() - start) / 1e9;
    a.measured = scale_.value() > 0;
    a.what = "the STREAM-triad peak of one CPU measured at start";
    a.percent = scale_.value() > 0 ? 100.0 * moved.load() / a.seconds / scale_.value() : 0;
    a.details = {{"bytes", moved.load()}, {"bytes_per_s", moved.load() / a.seconds}, {"peak_bytes_per_s", scale_.value()}};
    return a;
  }

 private:
  void Arrays() {
    if (a_.empty()) {
      a_.assign(elements_, 1.0);
      b_.assign(elements_, 2.0);
      c_.assign(elements_, 0.5);
    }
  }
  // a = b + s * c over `n` elements from *pos (wrapping); returns the bytes STREAM counts.
  uint64_t Triad(size_t* pos, size_t n) {
    if (*pos + n > elements_) *pos = 0;
    double* a = a_.data() + *pos;
    const double* b = b_.data() + *pos;
    const double* c = c_.data() + *pos;
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    *pos += n;
    return 24 * n;
  }
  Platform& p_;
  SourceOptions options_;
  size_t elements_;
  std::vector<double> a_, b_, c_;
  FullScale scale_;
};

// --- memory ---
class MemorySource : public PressureSource {
 public:
  explicit MemorySource(Platform& p) : p_(p) {}
  Source source() const override { return Source::kMemory; }
  Status Prepare() override {
    REAM_ASSIGN_OR_RETURN(std::string meminfo, p_.ReadFile("/proc/meminfo"));
    REAM_ASSIGN_OR_RETURN(available_, ParseMemAvailable(meminfo));
    return Status::Ok();
  }
  nlohmann::json Calibration() const override {
    return {{"mem_available_bytes", available_}, {"full_scale_bytes", MemoryTargetBytes(available_, 100)}};
  }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    const int64_t target = MemoryTargetBytes(available_, intensity);
    REAM_ASSIGN_OR_RETURN(int64_t rss0, Rss());
    int64_t rss_peak = rss0;
    const int64_t populate_start = Now();
    int64_t start = populate_start;
    {
      REAM_ASSIGN_OR_RETURN(auto region, MemoryRegion::Map(static_cast<size_t>(std::max<int64_t>(target, 1))));
      // The resident set is built first (about 1 GB/s here), in 64 MiB chunks so a stop is seen
      // between them; the pressure is ready, and its --seconds start, once all of it is resident.
      constexpr size_t kChunk = size_t{64} << 20;
      for (size_t off = 0; off < static_cast<size_t>(target) && !(should_stop && should_stop()); off += kChunk) {
        REAM_RETURN_IF_ERROR(region->Populate(off, kChunk));
      }
      start = Now();
      Wait(p_, seconds, should_stop, start, on_ready);
      // The resident set while the memory is still held.
      REAM_ASSIGN_OR_RETURN(rss_peak, Rss());
    }
    Achieved a;
    a.intensity = intensity;
    a.seconds = (Now() - start) / 1e9;
    const int64_t full = MemoryTargetBytes(available_, 100);
    a.measured = full > 0;
    a.what = "a quarter of MemAvailable at start (resident set grown)";
    a.percent = full > 0 ? 100.0 * static_cast<double>(rss_peak - rss0) / static_cast<double>(full) : 0;
    a.details = {{"target_bytes", target},
                 {"rss_grown_bytes", rss_peak - rss0},
                 {"full_scale_bytes", full},
                 {"populate_seconds", (start - populate_start) / 1e9}};
    return a;
  }

 private:
  Result<int64_t> Rss() {
    REAM_ASSIGN_OR_RETURN(std::string status, p_.ReadFile("/proc/self/status"));
    return ParseVmRss(status);
  }
  Platform& p_;
  int64_t available_ = 0;
};

// --- disk ---
class DiskSource : public PressureSource {
 public:
  DiskSource(Platform& p, const SourceOptions& o) : p_(p), options_(o) {}
  Source source() const override { return Source::kDisk; }
  Status Prepare() override {
    REAM_ASSIGN_OR_RETURN(file_, DirectIoFile::Create(options_.disk_dir, kFileBytes));
    if (auto io = ReadProcessIoBytes(); !io.ok()) io_reason_ = io.status().message();
    return MeasureFullScaleAtStart();
  }
  bool FullScaleIsARate() const override { return true; }
  Result<double> MeasureFullScale() override {
    if (!file_) return Internal("disk source measured before Prepare");
    const int64_t start = Now();
    const int64_t end = start + static_cast<int64_t>(options_.calibration_seconds * 1e9);
    const uint64_t before = file_->bytes_written();
    while (Now() < end) REAM_RETURN_IF_ERROR(file_->WriteBlock());
    return scale_.Add((file_->bytes_written() - before) / ((Now() - start) / 1e9));
  }
  nlohmann::json Calibration() const override {
    return {{"peak_bytes_per_s", scale_.value()}, {"dir", options_.disk_dir}, {"block_bytes", DirectIoFile::kBlockBytes}};
  }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    if (!file_) return Internal("disk source run before Prepare");
    const double rate = ShareOf(scale_.value(), intensity);
    auto io0 = ReadProcessIoBytes();
    const uint64_t own0 = file_->bytes_written();
    Status error = Status::Ok();
    const int64_t start = Now();
    {
      Worker w([&](const std::atomic<bool>& stop) {
        if (rate <= 0) return;
        for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
          SleepUntil(p_, start + static_cast<int64_t>(i * DirectIoFile::kBlockBytes / rate * 1e9));
          if (stop.load(std::memory_order_relaxed)) break;
          if (Status s = file_->WriteBlock(); !s.ok()) {
            error = s;
            return;
          }
        }
      });
      Wait(p_, seconds, should_stop, start, on_ready);
    }
    REAM_RETURN_IF_ERROR(error);
    Achieved a;
    a.intensity = intensity;
    a.seconds = (Now() - start) / 1e9;
    a.what = "the direct-I/O write rate measured at start";
    const uint64_t own = file_->bytes_written() - own0;
    // The writer is paced to `rate`; when the device cannot take even that much (a disk whose
    // sustained rate is below the burst measured at start), it falls behind its schedule and the
    // dial no longer sets the pressure: the device does, and the figures say so.
    const double asked = rate * a.seconds;
    a.details = {{"bytes_issued", own},
                 {"peak_bytes_per_s", scale_.value()},
                 {"asked_bytes_per_s", rate},
                 {"device_bound", asked > 0 && static_cast<double>(own) < kKeptUp * asked}};
    auto io1 = ReadProcessIoBytes();
    if (!io0.ok() || !io1.ok()) {
      a.measured = false;
      a.reason = io_reason_.empty() ? (io0.ok() ? io1.status().message() : io0.status().message()) : io_reason_;
      return a;
    }
    const uint64_t written = io1->write_bytes - io0->write_bytes;
    a.measured = scale_.value() > 0;
    a.percent = scale_.value() > 0 ? 100.0 * written / a.seconds / scale_.value() : 0;
    a.details["bytes_written"] = written;
    a.details["bytes_per_s"] = written / a.seconds;
    return a;
  }

 private:
  static constexpr uint64_t kFileBytes = 256ull << 20;
  static constexpr double kKeptUp = 0.9;  // issued below this share of the asked bytes: device-bound
  Platform& p_;
  SourceOptions options_;
  std::unique_ptr<DirectIoFile> file_;
  std::string io_reason_;
  FullScale scale_;
};

// --- net ---
class NetSource : public PressureSource {
 public:
  explicit NetSource(Platform& p, const SourceOptions& o) : p_(p), options_(o) {}
  Source source() const override { return Source::kNet; }
  Status Prepare() override {
    // Both ends of the stream run on one CPU, the first the source may use: free to move over
    // two vCPUs, one stream's rate swung between 2.9 and 5.3 GB/s from one 0.5 s reading to
    // the next (6 Dec 2026), and a dial on that scale cannot be monotone; on one CPU it held
    // within 3.4 +- 0.1 GB/s. 100 % is then one CPU's worth of loopback streaming, as mem_bw's
    // is one CPU's STREAM peak.
    REAM_ASSIGN_OR_RETURN(std::vector<int> cpus, CallingThreadCpus());
    if (cpus.empty()) return Internal("the net source may run on no CPU");
    cpu_ = cpus.front();
    return MeasureFullScaleAtStart();
  }
  bool FullScaleIsARate() const override { return true; }
  Result<double> MeasureFullScale() override {
    auto none = [] { return false; };
    REAM_ASSIGN_OR_RETURN(Achieved full, Stream(-1, options_.calibration_seconds, none));
    return scale_.Add(full.details.value("median_window_bytes_per_s", full.details["bytes_per_s"].get<double>()));
  }
  nlohmann::json Calibration() const override {
    return {{"peak_bytes_per_s", scale_.value()}, {"link", "loopback"}, {"cpu", cpu_}};
  }
  Result<Achieved> Run(double intensity, double seconds, const std::function<bool()>& should_stop) override {
    REAM_ASSIGN_OR_RETURN(Achieved a, Stream(ShareOf(scale_.value(), intensity), seconds, should_stop));
    a.intensity = intensity;
    return a;
  }

 private:
  // One stream to a sink on 127.0.0.1 at `rate` bytes/s (< 0: as fast as it goes).
  Result<Achieved> Stream(double rate, double seconds, const std::function<bool()>& should_stop) {
    // The sockets are opened on the stream's CPU too: opened on the other one, the readings of
    // the pinned ends still swung by +-30 % (their timers and buffers are kept where they were
    // made). The calling thread's own CPUs are given back when the stream ends.
    struct Restore {
      std::optional<std::vector<int>> cpus;
      ~Restore() {
        if (cpus && !cpus->empty()) (void)SetThisThreadAffinity(*cpus);
      }
    } restore;
    if (auto mine = CallingThreadCpus(); mine.ok() && PinCallingThread(cpu_).ok()) restore.cpus = *mine;
    REAM_ASSIGN_OR_RETURN(net::Fd listener, net::Listen("127.0.0.1", 0, 1));
    REAM_ASSIGN_OR_RETURN(int port, net::LocalPort(listener.get()));
    REAM_ASSIGN_OR_RETURN(net::Fd out, net::Connect("127.0.0.1", port, 2'000'000'000));
    net::Fd in;
    for (int i = 0; i < 200 && !in.valid(); ++i) {
      REAM_ASSIGN_OR_RETURN(in, net::Accept(listener.get()));
      if (!in.valid()) p_.SleepFor(std::chrono::milliseconds(5));
    }
    if (!in.valid()) return Unavailable("the loopback sink accepted no connection");
    std::atomic<uint64_t> received{0};
    std::vector<std::pair<int64_t, uint64_t>> samples;
    std::string error, sink_pin, sender_pin;
    const int64_t start = Now();
    {
      Worker sink([&](const std::atomic<bool>& stop) {
        if (Status s = PinCallingThread(cpu_); !s.ok()) sink_pin = s.message();
        std::vector<char> buf(1 << 18);
        uint64_t total = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          net::IoResult r = net::ReadSome(in.get(), buf.data(), buf.size());
          total += r.bytes;
          received.store(total, std::memory_order_relaxed);
          if (r.closed || r.error) break;
          if (r.would_block) p_.SleepFor(std::chrono::microseconds(50));
        }
      });
      Worker sender([&](const std::atomic<bool>& stop) {
        if (rate == 0) return;
        if (Status s = PinCallingThread(cpu_); !s.ok()) sender_pin = s.message();
        std::vector<char> chunk(1 << 16, 'r');
        uint64_t sent = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          if (rate > 0) {
            // Absolute schedule: byte n leaves no earlier than start + n / rate.
            int64_t due = start + static_cast<int64_t>(sent / rate * 1e9);
            if (due > Now()) SleepUntil(p_, std::min(due, Now() + kPollNs));
            if (due > Now()) continue;
          }
          net::IoResult r = net::WriteSome(out.get(), chunk.data(), chunk.size());
          sent += r.bytes;
          if (r.closed || r.error) {
            error = net::DescribeIo(r);
            return;
          }
          if (r.would_block) p_.SleepFor(std::chrono::microseconds(50));
        }
      });
      // The bytes received, read every poll: the full scale is the median of its 100 ms windows,
      // so a dip of a few hundred ms (the host taking the CPU) does not set the dial's scale.
      samples.emplace_back(start, 0);
      Wait(p_, seconds, [&] {
        samples.emplace_back(Now(), received.load(std::memory_order_relaxed));
        return should_stop && should_stop();
      }, start, on_ready);
      sender.Join();
      sink.Join();
    }
    if (!error.empty()) return IoError("loopback stream: " + error);
    Achieved a;
    a.seconds = (Now() - start) / 1e9;
    std::vector<double> windows;
    for (size_t i = 0, j = 1; j < samples.size(); ++j) {
      const int64_t dt = samples[j].first - samples[i].first;
      if (dt < kWindowNs) continue;
      windows.push_back((samples[j].second - samples[i].second) / (dt / 1e9));
      i = j;
    }
    a.what = "the rate of one loopback TCP stream on one CPU measured at start";
    const double bps = received.load() / a.seconds;
    a.measured = scale_.value() > 0;
    a.percent = scale_.value() > 0 ? 100.0 * bps / scale_.value() : 0;
    a.details = {{"bytes_received", received.load()}, {"bytes_per_s", bps}, {"peak_bytes_per_s", scale_.value()}, {"cpu", cpu_}};
    if (!windows.empty()) a.details["median_window_bytes_per_s"] = Median(windows);
    // Unpinned ends still stream; the rate is then less steady, and that is said.
    if (!sink_pin.empty() || !sender_pin.empty()) a.details["unpinned"] = sink_pin.empty() ? sender_pin : sink_pin;
    return a;
  }
  Platform& p_;
  SourceOptions options_;
  FullScale scale_;
  int cpu_ = 0;
};

}  // namespace

const std::vector<SourceInfo>& Sources() { return kSources; }

const SourceInfo& Info(Source s) { return kSources[static_cast<size_t>(s)]; }

std::optional<Source> SourceFromName(std::string_view name) {
  for (const auto& s : kSources) {
    if (s.name == name) return s.source;
  }
  return std::nullopt;
}

std::string SourceNames() {
  std::string out;
  for (const auto& s : kSources) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

Result<Source> ParseSource(std::string_view name) {
  if (auto s = SourceFromName(name)) return *s;
  return InvalidArgument("unknown source of interference '" + std::string(name) + "' (known: " + SourceNames() +
                         ")");
}

Status ValidateIntensity(double intensity) {
  if (!(intensity >= 0 && intensity <= 100)) {
    return InvalidArgument("intensity " + std::to_string(intensity) + " is out of range: give 0-100 (%)");
  }
  return Status::Ok();
}

DutyCycle CpuDutyCycle(double intensity, int64_t period_ns) {
  const double share = std::clamp(intensity, 0.0, 100.0) / 100.0;
  DutyCycle d;
  d.busy_ns = static_cast<int64_t>(std::llround(share * static_cast<double>(period_ns)));
  d.idle_ns = period_ns - d.busy_ns;
  return d;
}

Result<int64_t> BubbleWorkingSetBytes(const Topology& topology, Source source, double intensity) {
  const CacheInfo* cache = nullptr;
  if (source == Source::kLlc) {
    cache = topology.llc();
  } else if (source == Source::kL2) {
    for (const CacheInfo& c : topology.caches) {
      if (c.level == 2 && c.type != "Instruction") {
        cache = &c;
        break;
      }
    }
  } else {
    return InvalidArgument("only l2 and llc have a bubble working set");
  }
  if (!cache || cache->size_bytes <= 0) {
    return NotFound(std::string("the topology exposes no ") + (source == Source::kLlc ? "last-level" : "level-2") +
                    " cache size (/sys/devices/system/cpu/cpu*/cache): cannot size the " +
                    std::string(Info(source).name) + " bubble");
  }
  const double share = std::clamp(intensity, 0.0, 100.0) / 100.0;
  const auto bytes = static_cast<int64_t>(share * static_cast<double>(cache->size_bytes));
  return bytes / kLineBytes * kLineBytes;
}

int64_t MemoryTargetBytes(int64_t available_bytes, double intensity) {
  const double share = std::clamp(intensity, 0.0, 100.0) / 100.0 * kMemoryFullScale;
  return static_cast<int64_t>(share * static_cast<double>(std::max<int64_t>(available_bytes, 0)));
}

double ShareOf(double peak, double intensity) { return std::max(peak, 0.0) * std::clamp(intensity, 0.0, 100.0) / 100.0; }

namespace {
// "Key:   1234 kB" -> 1234 * 1024.
Result<int64_t> ParseKbLine(std::string_view text, std::string_view key, std::string_view file) {
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    if (line.substr(0, key.size()) != key || line.size() <= key.size() || line[key.size()] != ':') continue;
    std::string_view rest = line.substr(key.size() + 1);
    size_t b = rest.find_first_not_of(" \t");
    if (b == std::string_view::npos) break;
    rest = rest.substr(b);
    int64_t kb = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), kb);
    if (ec != std::errc() || std::string_view(p, rest.data() + rest.size()) != " kB") break;
    return kb * 1024;
  }
  return InvalidArgument(std::string(file) + " has no readable " + std::string(key) + " line");
}
}  // namespace

Result<int64_t> ParseMemAvailable(std::string_view meminfo) { return ParseKbLine(meminfo, "MemAvailable", "/proc/meminfo"); }

Result<int64_t> ParseVmRss(std::string_view status) { return ParseKbLine(status, "VmRSS", "/proc/self/status"); }

nlohmann::json Achieved::ToJson() const {
  nlohmann::json j = {{"intensity", intensity}, {"seconds", seconds}, {"of", what}, {"details", details}};
  if (measured) j["achieved_percent"] = percent;
  else j["achieved_percent"] = nullptr, j["unavailable"] = reason;
  return j;
}

double FullScaleBeside(const std::vector<double>& readings, size_t step) {
  if (readings.empty()) return 0;
  const size_t lo = step == 0 ? 0 : step - 1;
  const size_t hi = std::min(readings.size(), step + 3);
  if (lo >= hi) return Median(readings);
  return Median(std::vector<double>(readings.begin() + static_cast<std::ptrdiff_t>(lo),
                                      readings.begin() + static_cast<std::ptrdiff_t>(hi)));
}

void RescaleToFullScale(Achieved& step, double full_scale) {
  step.details["full_scale_beside_bytes_per_s"] = full_scale;
  if (!step.measured || !step.details.contains("bytes_per_s") || !(full_scale > 0)) return;
  step.percent = 100.0 * step.details["bytes_per_s"].get<double>() / full_scale;
  const std::string at_start = " measured at start";
  if (auto pos = step.what.rfind(at_start); pos != std::string::npos) step.what.erase(pos);
  step.what += " measured beside each step (the median of the readings around it)";
}

Verdict Judge(const std::vector<Achieved>& steps, const std::vector<double>& fallback) {
  Verdict v;
  v.monotone = true;
  bool all_measured = !steps.empty();
  for (const auto& s : steps) all_measured = all_measured && s.measured;
  std::vector<double> values;
  for (size_t i = 0; i < steps.size(); ++i) {
    values.push_back(all_measured ? steps[i].percent : (i < fallback.size() ? fallback[i] : NAN));
  }
  for (size_t i = 1; i < values.size(); ++i) {
    if (std::isnan(values[i]) || std::isnan(values[i - 1]) || values[i] < values[i - 1] - kMonotoneSlackPoints) {
      v.monotone = false;
      char note[160];
      std::snprintf(note, sizeof note, "falls from %.1f %% at %g %% to %.1f %% at %g %%", values[i - 1],
                    steps[i - 1].intensity, values[i], steps[i].intensity);
      v.note = note;
    }
  }
  if (!all_measured) {
    v.note += std::string(v.note.empty() ? "" : "; ") + "pressure not measurable here" +
              (fallback.empty() ? "" : " (monotone judged on the dial's realized setting)");
    return v;
  }
  bool within = true;
  for (const auto& s : steps) {
    const double err = std::abs(s.percent - s.intensity);
    if (s.intensity == 0) {
      within = within && err <= 1.0;
      continue;
    }
    const double rel = err / s.intensity;
    v.worst_error_percent = std::max(v.worst_error_percent, 100 * rel);
    within = within && rel <= kNominalTolerance;
  }
  v.within_tolerance = within;
  return v;
}

Result<std::unique_ptr<PressureSource>> MakeSource(Source source, Platform& platform, const Topology& topology,
                                                   const SourceOptions& options) {
  switch (source) {
    case Source::kCpu: return std::unique_ptr<PressureSource>(new CpuSource(platform));
    case Source::kL2:
    case Source::kLlc: {
      REAM_RETURN_IF_ERROR(BubbleWorkingSetBytes(topology, source, 100).status());
      return std::unique_ptr<PressureSource>(new BubbleSource(platform, topology, source));
    }
    case Source::kMemBw: return std::unique_ptr<PressureSource>(new MemBwSource(platform, topology, options));
    case Source::kMemory: return std::unique_ptr<PressureSource>(new MemorySource(platform));
    case Source::kDisk: return std::unique_ptr<PressureSource>(new DiskSource(platform, options));
    case Source::kNet: return std::unique_ptr<PressureSource>(new NetSource(platform, options));
  }
  return Internal("unknown source");
}

}  // namespace ream::pressure
