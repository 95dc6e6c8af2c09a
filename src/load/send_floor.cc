// The host's limit of sending at a rate: a bare sender, measured or read from the host's cache
// (send_floor.h).
#include "load/send_floor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include "load/arrival.h"
#include "load/generator.h"
#include "platform/affinity.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/platform.h"
#include "platform/poller.h"
#include "protocol/keyspace.h"

namespace ream {
namespace {

std::string UtcMinute(int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", &tm);
  return b;
}

// The sender's loop; runs on the calling thread. `req` is one encoded request.
Result<SendFloor> Send(const LoadOptions& o, const std::string& req, int64_t duration_ns) {
  std::vector<net::Fd> fds;
  REAM_ASSIGN_OR_RETURN(net::Poller poller, net::Poller::Create());
  for (int i = 0; i < o.connections; ++i) {
    REAM_ASSIGN_OR_RETURN(net::Fd fd, net::Connect(o.host, o.port, o.connect_timeout_ns));
    REAM_RETURN_IF_ERROR(poller.Add(fd.get(), EPOLLIN | EPOLLRDHUP, static_cast<uint64_t>(i)));
    fds.push_back(std::move(fd));
  }
  // Up to kBatch requests due at once go out together, one write a connection, as the
  // generator sends them; each is late by when its connection's write starts.
  constexpr size_t kBatch = 256;
  std::string batch;
  for (size_t i = 0; i < kBatch; ++i) batch += req;
  const size_t k = fds.size();
  std::vector<size_t> due_on(k, 0);
  std::vector<int64_t> due_at(kBatch);
  std::vector<size_t> conn_of(kBatch);
  std::vector<char> sink(64 * 1024);
  epoll_event events[64];
  ArrivalProcess arrival(o.arrival, o.qps, o.seed * 0x9E3779B97F4A7C15ULL + 17);
  const int64_t begin = MonotonicNowNs() + duration_ns / 10, end = begin + duration_ns;
  double due = static_cast<double>(MonotonicNowNs());
  size_t next = 0;
  uint64_t sent = 0, late = 0;
  auto drain = [&](int fd) -> Status {
    for (;;) {
      net::IoResult r = net::ReadSome(fd, sink.data(), sink.size());
      if (r.closed || r.error != 0) {
        return Unavailable("the server closed a connection (" + net::DescribeIo(r) +
                           "): the bare sender does not reconnect");
      }
      if (r.would_block || r.bytes == 0) return Status::Ok();
    }
  };
  for (;;) {
    const int64_t now = MonotonicNowNs();
    if (static_cast<double>(now) >= due) {
      if (due >= static_cast<double>(end)) break;
      size_t n = 0;
      while (static_cast<double>(now) >= due && n < kBatch && due < static_cast<double>(end)) {
        due_at[n] = static_cast<int64_t>(due);
        conn_of[n++] = next;
        ++due_on[next];
        next = (next + 1) % k;
        due += arrival.NextGapNs();
      }
      for (size_t c = 0; c < k; ++c) {
        if (due_on[c] == 0) continue;
        const int64_t start = MonotonicNowNs();
        for (size_t i = 0; i < n; ++i) {
          if (conn_of[i] != c || due_at[i] < begin) continue;
          ++sent;
          late += start - due_at[i] > o.timely_tolerance_ns;
        }
        const size_t want = due_on[c] * req.size();
        net::IoResult w = net::WriteSome(fds[c].get(), batch.data(), want);
        if (w.closed || w.error != 0) return Unavailable("sending: " + net::DescribeIo(w));
        if (w.bytes != want) {
          return Unavailable("the server stopped reading (connection " + std::to_string(c) +
                             "'s send buffer is full): the rate is past what it serves");
        }
        due_on[c] = 0;
      }
      continue;
    }
    if (k <= 4) {
      for (auto& fd : fds) REAM_RETURN_IF_ERROR(drain(fd.get()));
    } else {
      REAM_ASSIGN_OR_RETURN(int ready, poller.Wait(events, 64, 0));
      for (int i = 0; i < ready; ++i) REAM_RETURN_IF_ERROR(drain(fds[events[i].data.u64].get()));
    }
  }
  if (sent == 0) return Unavailable("no request was due in the measurement");
  SendFloor f;
  f.available = true;
  f.requests = sent;
  f.timely_ratio = static_cast<double>(sent - late) / static_cast<double>(sent);
  f.measured_s = static_cast<double>(duration_ns) / 1e9;
  return f;
}

}  // namespace

std::string SendFloor::Describe() const {
  if (!available) return "unavailable: " + unavailable;
  char b[256];
  std::snprintf(b, sizeof b, "%.2f %% timely at %.0f QPS on %d connection%s (%llu requests, measured %s%s)",
                100 * timely_ratio, qps, connections, connections == 1 ? "" : "s",
                static_cast<unsigned long long>(requests), UtcMinute(measured_at_unix_s).c_str(),
                cached ? ", cached" : "");
  return b;
}

nlohmann::json SendFloor::ToJson() const {
  if (!available) return {{"available", false}, {"unavailable", unavailable}};
  return {{"available", true},
          {"timely_ratio", timely_ratio},
          {"qps", qps},
          {"connections", connections},
          {"tolerance_us", static_cast<double>(tolerance_ns) / 1e3},
          {"requests", requests},
          {"measured_s", measured_s},
          {"measured_at_unix_s", measured_at_unix_s},
          {"measured_at", UtcMinute(measured_at_unix_s)},
          {"cached", cached},
          {"method", "a bare sender: one spinning thread, one request encoded once, answers drained unparsed"}};
}

SendFloor SendFloor::FromJson(const nlohmann::json& j) {
  SendFloor f;
  if (!j.is_object()) {
    f.unavailable = "not measured";
    return f;
  }
  f.available = j.value("available", false);
  f.unavailable = j.value("unavailable", std::string());
  f.timely_ratio = j.value("timely_ratio", 0.0);
  f.qps = j.value("qps", 0.0);
  f.connections = j.value("connections", 0);
  f.tolerance_ns = static_cast<int64_t>(std::llround(j.value("tolerance_us", 0.0) * 1e3));
  f.requests = j.value("requests", uint64_t{0});
  f.measured_s = j.value("measured_s", 0.0);
  f.measured_at_unix_s = j.value("measured_at_unix_s", int64_t{0});
  f.cached = j.value("cached", false);
  return f;
}

int64_t SendFloorDurationNs(double qps) {
  const double s = std::clamp(1000.0 / std::max(qps, 1e-9), 0.5, 1.0);
  return static_cast<int64_t>(s * 1e9);
}

std::string SendFloorKey(const LoadOptions& o, const std::string& cpus) {
  // Rates within a factor of sqrt(2) share a measurement. The limit is the host's send path to
  // that address, so the port is not part of the key: a server of the same protocol restarted
  // on another port (every sweep of a run, every run of a campaign) reads the same measurement.
  const long bucket = std::lround(2 * std::log2(std::max(o.qps, 1.0)));
  char b[320];
  std::snprintf(b, sizeof b, "%s|%s|%d conn|%lld ns|%s|%s|rate bucket %ld", o.protocol.c_str(),
                o.host.c_str(), o.connections,
                static_cast<long long>(o.timely_tolerance_ns), o.arrival.name.c_str(), cpus.c_str(), bucket);
  return b;
}

Result<SendFloor> MeasureSendFloor(const LoadOptions& o, int64_t duration_ns) {
  REAM_ASSIGN_OR_RETURN(auto codec, MakeClientCodec(o.protocol, o.codec));
  char key[kKeyBytes];
  FormatKey(0, key);
  std::string req;
  REAM_RETURN_IF_ERROR(codec->EncodeRequest({.id = 1, .op = Op::kGet, .key = std::string_view(key, kKeyBytes)}, &req));
  Result<SendFloor> out = Unavailable("the bare sender did not run");
  // On the CPU the generator's first thread runs on: a thread of its own, pinned as it is.
  std::thread t([&] {
    if (!o.cpus.empty()) {
      if (Status pinned = PinCallingThread(o.cpus.front()); !pinned.ok()) {
        out = pinned;
        return;
      }
    }
    (void)UseTightTimerSlack();
    out = Send(o, req, duration_ns);
  });
  t.join();
  if (!out.ok()) return out;
  out->qps = o.qps;
  out->connections = o.connections;
  out->tolerance_ns = o.timely_tolerance_ns;
  out->measured_at_unix_s = RealtimeNowNs() / 1'000'000'000;
  return out;
}

SendFloor SendFloorFor(const LoadOptions& o, const std::string& cache_path) {
  std::vector<int> cpus = o.cpus.empty() ? CallingThreadCpus().value_or(std::vector<int>{}) : std::vector<int>{o.cpus.front()};
  const std::string key = SendFloorKey(o, FormatCpuList(cpus));
  auto platform = MakePosixPlatform();
  nlohmann::json cache = nlohmann::json::object();
  if (auto text = platform->ReadFile(cache_path); text.ok()) {
    cache = nlohmann::json::parse(*text, nullptr, false);
    if (!cache.is_object()) cache = nlohmann::json::object();
  }
  const int64_t now_s = RealtimeNowNs() / 1'000'000'000;
  if (o.send_floor == LoadOptions::SendFloorMode::kCached && cache.contains(key)) {
    SendFloor f = SendFloor::FromJson(cache[key]);
    if (f.available && now_s - f.measured_at_unix_s >= 0 && now_s - f.measured_at_unix_s < kSendFloorMaxAgeS) {
      f.cached = true;
      f.key = key;
      return f;
    }
  }
  SendFloor f;
  Result<SendFloor> m = MeasureSendFloor(o, SendFloorDurationNs(o.qps));
  if (m.ok()) {
    f = *m;
    // Kept for the next run at this rate; stale entries go.
    for (auto it = cache.begin(); it != cache.end();) {
      const int64_t at = it.value().is_object() ? it.value().value("measured_at_unix_s", int64_t{0}) : 0;
      it = now_s - at >= kSendFloorMaxAgeS ? cache.erase(it) : std::next(it);
    }
    cache[key] = f.ToJson();
    const std::string dir = cache_path.substr(0, cache_path.find_last_of('/'));
    if (!dir.empty() && !platform->IsDirectory(dir)) (void)platform->MakeDir(dir);
    const std::string tmp = cache_path + ".tmp" + std::to_string(RealtimeNowNs());
    if (platform->WriteFile(tmp, cache.dump(1)).ok()) (void)platform->RenameFile(tmp, cache_path);
  } else {
    f.unavailable = "the bare sender could not run at " + std::to_string(std::lround(o.qps)) + " QPS: " + m.status().message();
  }
  f.key = key;
  return f;
}

}  // namespace ream
