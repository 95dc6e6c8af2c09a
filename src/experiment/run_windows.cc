#include "experiment/run_windows.h"

#include <algorithm>
#include <utility>

#include "monitor/monitor.h"
#include "platform/text.h"

namespace ream {

bool ManagedRun(const ManagerSpec& manager, const std::vector<std::string>& set) {
  if (!manager.given) return false;
  for (const auto& r : manager.resources) {
    if (r.tenant != "subject" && std::find(set.begin(), set.end(), r.tenant) == set.end()) return false;
  }
  return true;
}

std::optional<double> CpuThroughput(const CorunnerSet::Progress& before, const CorunnerSet::Progress& after,
                                    double seconds) {
  if (!before.cpu_ns || !after.cpu_ns || seconds <= 0 || *after.cpu_ns < *before.cpu_ns) return std::nullopt;
  return static_cast<double>(*after.cpu_ns - *before.cpu_ns) / 1e9 / seconds;
}

RunWindows::RunWindows(Platform& p, Store& store, int64_t run_id, const ExperimentSpec& spec, CorunnerSet* corunners,
                       Sandbox& subject, bool managed, std::string mode)
    : p_(p),
      store_(store),
      run_id_(run_id),
      spec_(spec),
      corunners_(corunners),
      subject_(subject),
      managed_(managed),
      mode_(std::move(mode)) {}

Status RunWindows::Write(const std::string& tenant, const Knob& knob, double level) {
  if (tenant == "subject") return subject_.Move(knob, level);
  if (!corunners_) return NotFound("the run has no co-runner '" + tenant + "'");
  return corunners_->Move(tenant, knob, level);
}

std::map<std::string, std::map<std::string, ManagerLevel>> RunWindows::AllocationNow() const {
  std::map<std::string, std::map<std::string, ManagerLevel>> out;
  if (!policy_) return out;
  for (const Movable& m : movables_) {
    if (auto level = policy_->allocation().Get(m.tenant, m.knob->key)) {
      out[m.tenant][m.knob->key] = {*level, m.Text(*level)};
    }
  }
  return out;
}

Status RunWindows::Start() {
  // Windows already stored for the run (an earlier attempt of its level) keep their numbers.
  REAM_ASSIGN_OR_RETURN(auto stored, store_.ListManagerWindows(run_id_));
  if (!stored.empty()) first_index_ = stored.back().window + 1;
  if (managed_) {
    Allocation start;
    for (const auto& r : spec_.manager.resources) {
      if (r.start) start.Set(r.tenant, r.knob->key, *r.start);
    }
    REAM_ASSIGN_OR_RETURN(policy_, MakePolicy(spec_.manager, start));
    movables_ = MovablesOf(spec_.manager);
    // Every tenant starts from the policy's allocation, written before the warm-up, so the first
    // window measures what the manager believes it holds.
    for (const Movable& m : movables_) {
      auto level = policy_->allocation().Get(m.tenant, m.knob->key);
      if (!level) continue;
      REAM_RETURN_IF_ERROR(Write(m.tenant, *m.knob, *level)
                               .Annotate("the manager's starting allocation: " + m.tenant + "'s " + m.knob->key +
                                         " at " + m.Text(*level)));
    }
  }
  if (corunners_) last_ = corunners_->ReadProgress();
  last_read_ns_ = p_.MonotonicNanos();
  return Status::Ok();
}

void RunWindows::OnWindow(const LoadWindow& w) {
  if (!status_.ok()) return;
  ManagerWindowRecord rec;
  rec.run_id = run_id_;
  rec.window = first_index_ + w.index;
  rec.end_s = w.end_s;
  rec.valid = w.valid;
  rec.invalid_because = w.invalid_because;
  rec.tail_us = w.tail_us;
  rec.target_us = spec_.qos.target_us;
  if (rec.tail_us && rec.target_us && *rec.target_us > 0) rec.slack = (*rec.target_us - *rec.tail_us) / *rec.target_us;
  rec.load_qps = w.target_qps;
  // Each neighbour's CPU over the span between this reading and the last: the window as the
  // runner heard of it, a few polls after the generator closed it.
  if (corunners_) {
    const int64_t now = p_.MonotonicNanos();
    auto progress = corunners_->ReadProgress();
    const double seconds = static_cast<double>(now - last_read_ns_) / 1e9;
    for (const auto& [name, after] : progress) {
      auto before = last_.find(name);
      if (before == last_.end()) continue;
      if (auto t = CpuThroughput(before->second, after, seconds)) {
        rec.neighbour_throughput[name] = *t;
      } else if (rec.valid && !after.running) {
        // A neighbour gone in the middle of a window leaves it measured beside less than its set.
        rec.valid = false;
        rec.invalid_because = "co-runner '" + name + "': " + after.cpu_why;
      }
    }
    last_ = std::move(progress);
    last_read_ns_ = now;
  }
  if (policy_) {
    WindowFigures f;
    f.index = rec.window;
    f.valid = rec.valid;
    f.invalid_because = rec.invalid_because;
    f.tail_us = rec.tail_us;
    f.target_us = rec.target_us.value_or(0);
    f.load_qps = w.target_qps;
    f.neighbour_throughput = rec.neighbour_throughput;
    Decision d = policy_->Decide(f);
    rec.note = d.note;
    int seq = 0;
    for (const Action& a : d.actions) {
      ManagerActionRecord ar{.seq = seq++, .tenant = a.tenant, .knob = a.knob, .from = a.from, .to = a.to,
                             .from_text = a.from_text, .to_text = a.to_text, .reason = a.reason};
      auto m = std::find_if(movables_.begin(), movables_.end(),
                            [&](const Movable& x) { return x.tenant == a.tenant && x.knob->key == a.knob; });
      Status s = m == movables_.end() ? NotFound("no resource " + a.tenant + "'s " + a.knob + " in [manager]")
                                      : Write(a.tenant, *m->knob, a.to);
      if (!s.ok()) {
        ar.failure = s.message();
        ++failed_actions_;
      }
      ++actions_;
      rec.actions.push_back(std::move(ar));
    }
    rec.allocation = AllocationNow();
  } else {
    rec.note = "static: " + mode_;
  }
  status_ = store_.InsertManagerWindow(rec);
  ++windows_;
}

}  // namespace ream
