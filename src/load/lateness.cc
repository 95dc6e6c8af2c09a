// Attributing late requests to what held the generator's thread up (see lateness.h).
#include "load/lateness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ream {

const char* LateCauseName(LateCause c) {
  switch (c) {
    case LateCause::kStall: return "stall";
    case LateCause::kSlowSyscall: return "slow_syscall";
    case LateCause::kLateWakeup: return "late_wakeup";
    case LateCause::kBusy: return "busy";
    case LateCause::kReconnect: return "reconnecting";
  }
  return "?";
}

const char* ActivityName(Activity a) {
  switch (a) {
    case Activity::kJump: return "clock jump (thread not running)";
    case Activity::kSleep: return "timed sleep woke late";
    case Activity::kWrite: return "write";
    case Activity::kRead: return "read";
    case Activity::kPoll: return "epoll_wait";
    case Activity::kYield: return "sched_yield";
  }
  return "?";
}

std::string LateOffender::What() const {
  std::string what = ActivityName(activity);
  if (conn >= 0) what += " on connection " + std::to_string(conn);
  if (cause == LateCause::kStall && activity == Activity::kSleep) return "woke on time, then waited for its CPU";
  if (cause == LateCause::kStall && activity != Activity::kJump) what += " (waited for its CPU)";
  return what;
}

uint64_t LatenessCauses::late() const {
  uint64_t n = 0;
  for (uint64_t v : requests) n += v;
  return n;
}

void LatenessCauses::Merge(const LatenessCauses& o) {
  threshold_ns = std::max(threshold_ns, o.threshold_ns);
  for (size_t i = 0; i < kLateCauses; ++i) requests[i] += o.requests[i];
  worst.insert(worst.end(), o.worst.begin(), o.worst.end());
  std::sort(worst.begin(), worst.end(),
            [](const LateOffender& a, const LateOffender& b) { return a.duration_ns > b.duration_ns; });
  if (worst.size() > kWorst) worst.resize(kWorst);
}

nlohmann::json LatenessCauses::ToJson(uint64_t issued, int64_t origin_ns) const {
  nlohmann::json j;
  j["threshold_us"] = static_cast<double>(threshold_ns) / 1e3;
  j["late_requests"] = late();
  nlohmann::json causes = nlohmann::json::object();
  for (size_t i = 0; i < kLateCauses; ++i) {
    causes[LateCauseName(static_cast<LateCause>(i))] = {
        {"requests", requests[i]},
        {"share_of_issued", issued ? static_cast<double>(requests[i]) / static_cast<double>(issued) : 0.0}};
  }
  j["causes"] = causes;
  nlohmann::json w = nlohmann::json::array();
  for (const auto& o : worst) {
    w.push_back({{"cause", LateCauseName(o.cause)},
                 {"what", o.What()},
                 {"duration_us", std::round(static_cast<double>(o.duration_ns) / 10.0) / 100.0},
                 {"at_s", std::round(static_cast<double>(o.begin_ns - origin_ns) / 1e6) / 1e3},
                 {"late_requests", o.late_requests}});
  }
  j["worst"] = w;
  return j;
}

std::string LatenessCauses::Shares(uint64_t issued) const {
  std::string s;
  char b[64];
  for (size_t i = 0; i < kLateCauses; ++i) {
    if (requests[i] == 0 || issued == 0) continue;
    std::string name = LateCauseName(static_cast<LateCause>(i));
    std::replace(name.begin(), name.end(), '_', ' ');
    std::snprintf(b, sizeof b, "%s%s %.2f %%", s.empty() ? "" : ", ", name.c_str(),
                  100.0 * static_cast<double>(requests[i]) / static_cast<double>(issued));
    s += b;
  }
  return s;
}

LatenessTimeline::LatenessTimeline(int64_t tolerance_ns, int64_t (*runqueue_wait)())
    : threshold_(std::max<int64_t>(1000, std::min<int64_t>(tolerance_ns, 10'000))),
      runqueue_wait_(runqueue_wait) {
  causes_.threshold_ns = threshold_;
  if (runqueue_wait_ != nullptr) wait_ns_ = runqueue_wait_();
}

void LatenessTimeline::Record(Activity a, int64_t begin, int64_t end, int conn) {
  LateCause cause = LateCause::kStall;
  if (a == Activity::kSleep) {
    cause = LateCause::kLateWakeup;
  } else if (a != Activity::kJump && a != Activity::kYield) {
    cause = LateCause::kSlowSyscall;
  }  // (a long sched_yield is the CPU given to another task: the thread was not running)
  // Waiting on a run queue for most of the event (since the last event or sleep): the thread
  // was runnable and another task had its CPU. (A wait since then that made nothing long is
  // charged to this event, which errs towards "stall" only; a jump is a stall either way.)
  if (runqueue_wait_ != nullptr && a != Activity::kJump) {
    int64_t now = runqueue_wait_();
    if (now >= 0 && wait_ns_ >= 0 && 2 * (now - wait_ns_) >= end - begin) cause = LateCause::kStall;
    wait_ns_ = now;
  }
  Event& e = ring_[seq_ % kRing];
  e = {.begin = begin, .end = end, .seq = seq_, .activity = a, .cause = cause, .conn = conn};
  ++seq_;
}

void LatenessTimeline::CountOffender(const Event& e, LateCause cause) {
  auto& worst = causes_.worst;
  for (auto& o : worst) {
    if (o.begin_ns == e.begin && o.duration_ns == e.end - e.begin && o.activity == e.activity) {
      ++o.late_requests;
      return;
    }
  }
  LateOffender o{.cause = cause, .activity = e.activity, .begin_ns = e.begin, .duration_ns = e.end - e.begin,
                 .conn = e.conn, .late_requests = 1};
  if (worst.size() < LatenessCauses::kWorst) {
    worst.push_back(o);
  } else {
    auto shortest = std::min_element(worst.begin(), worst.end(), [](const LateOffender& a, const LateOffender& b) {
      return a.duration_ns < b.duration_ns;
    });
    if (shortest->duration_ns >= o.duration_ns) return;
    *shortest = o;
  }
  std::sort(worst.begin(), worst.end(),
            [](const LateOffender& a, const LateOffender& b) { return a.duration_ns > b.duration_ns; });
}

LateCause LatenessTimeline::Attribute(int64_t sched, int64_t sent, bool waited_for_reconnect) {
  if (waited_for_reconnect) {
    ++causes_.requests[static_cast<size_t>(LateCause::kReconnect)];
    return LateCause::kReconnect;
  }
  // The recorded events overlapping [sched, sent], newest first (they were recorded in time
  // order and do not overlap one another). What they do not cover is the loop's own work.
  std::array<int64_t, kLateCauses> covered{};
  const Event* main = nullptr;
  int64_t main_overlap = 0;
  int64_t total = 0;
  uint64_t oldest = seq_ > kRing ? seq_ - kRing : 0;
  for (uint64_t i = seq_; i > oldest; --i) {
    const Event& e = ring_[(i - 1) % kRing];
    if (e.end <= sched) break;
    int64_t overlap = std::min(e.end, sent) - std::max(e.begin, sched);
    if (overlap <= 0) continue;
    covered[static_cast<size_t>(e.cause)] += overlap;
    total += overlap;
    if (overlap > main_overlap) {
      main_overlap = overlap;
      main = &e;
    }
  }
  covered[static_cast<size_t>(LateCause::kBusy)] += std::max<int64_t>(0, (sent - sched) - total);
  size_t best = static_cast<size_t>(LateCause::kBusy);
  for (size_t c = 0; c < kLateCauses; ++c) {
    if (covered[c] > covered[best]) best = c;
  }
  auto cause = static_cast<LateCause>(best);
  ++causes_.requests[best];
  if (cause != LateCause::kBusy && main != nullptr && main->cause == cause) CountOffender(*main, cause);
  return cause;
}

}  // namespace ream
