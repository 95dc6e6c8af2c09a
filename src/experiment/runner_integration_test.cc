// The runner end to end on this machine (root, real cgroups, real servers): a SIGKILL
// mid-sweep then --resume, a workload crashing at one load level, co-runners, keep-awake, and
// specs that must fail before any load. (The knee search against a fine grid:
// knee_integration_test.cc.)
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/integration_test_support.h"
#include "platform/test_directory.h"
#include "platform/keep_awake.h"
#include "store/store.h"

namespace ream {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using testing_support::Drain;
using testing_support::Exec;
using testing_support::Ream;

// The ream binary at a path every user can reach, for spec commands that start it by path
// (they run as the unprivileged workload user; platform/integration_test_support.h).
const std::string& WorkloadReam() { return testing_support::WorldReachableReam(REAM_BINARY, "it"); }

// A spec's text up to its [load] table's timing: experiment `name` (then `top`: scenarios,
// repetitions...) of the synthetic server at a constant 20 us service (`more_args` appended to
// its arguments), warm-up 200 ms, `duration` a level and a 200 ms response timeout. The test
// appends the rest of [load] and the tables after it.
std::string SyntheticSpecUpToLoad(const std::string& name, const std::string& duration, const std::string& top = "",
                                  const std::string& more_args = "") {
  return "name = \"" + name + "\"\n" + top + "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"const:20us\"" +
         more_args + "]\n[load]\nwarmup = \"200ms\"\nduration = \"" + duration + "\"\nresponse_timeout = \"200ms\"\n";
}

// One level of `ream serve kv` at 1 000 QPS with [load] keep_awake = KEEP_AWAKE (TOML).
std::string KeepAwakeSpec(const std::string& name, const std::string& keep_awake, const std::string& duration) {
  return "name = \"" + name + "\"\nscenarios = [\"1-ST\"]\n[workload]\nbuiltin = \"kv\"\n[load]\nwarmup = \"200ms\"\n"
         "duration = \"" + duration + "\"\nkeep_awake = " + keep_awake + "\n[sweep]\nqps = [1000]\n";
}

// What `sqlite3 DB "QUERY"` prints.
std::string Sql(const std::string& db, const std::string& query) {
  return Drain(popen(("sqlite3 " + db + " \"" + query + "\"").c_str(), "r")).output;
}

class RunnerIntegration : public testing_support::RootDatabaseTest {
 protected:
  RunnerIntegration() : RootDatabaseTest("ream-runner-it", "cgroups") {}
  std::string Spec(const std::string& name, const std::string& text) {
    std::string path = (dir_ / (name + ".toml")).string();
    std::ofstream(path) << text;
    return path;
  }
  // Runs `ream run SPEC --db DB` in the background and SIGKILLs it once `points` points are
  // stored, i.e. mid-sweep. Returns its pid and how many points were stored at the kill; a
  // test failure (with the run's log) when it stored fewer or was not killed by the signal.
  struct Killed {
    pid_t pid = -1;
    int stored = 0;
    std::string log;  // what it printed (SIGINT)
  };
  Killed RunAndKillAfter(const std::string& spec, int points) {
    return RunAndSignalAfter({"run", spec, "--db", db_}, points, SIGKILL);
  }
  // The same for `ream ARGS` and any signal: SIGKILL must kill it, SIGINT must make it stop
  // cleanly with exit status 130.
  Killed RunAndSignalAfter(const std::vector<std::string>& args, int points, int sig);
};

// Every cgroup directory named for ream process `pid`, in every hierarchy.
std::vector<std::string> CgroupsOf(int pid) {
  std::vector<std::string> out;
  std::string prefix = "ream-" + std::to_string(pid) + "-";
  std::error_code ec;
  for (const auto& h : fs::directory_iterator("/sys/fs/cgroup", ec)) {
    std::error_code ec2;
    for (const auto& d : fs::directory_iterator(h.path(), ec2)) {
      if (d.is_directory() && d.path().filename().string().rfind(prefix, 0) == 0) out.push_back(d.path());
    }
  }
  return out;
}

using testing_support::ProcessesWith;

// The run events `ream run --events FILE` wrote, one JSON object per line; those named
// `event` ("level_measured", ...) when given.
std::vector<nlohmann::json> Events(const std::string& path, const std::string& event = "") {
  std::vector<nlohmann::json> out;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      ADD_FAILURE() << path << ": a line is not JSON: " << line;
      continue;
    }
    if (event.empty() || j.value("event", "") == event) out.push_back(j);
  }
  return out;
}

int CountPoints(const std::string& db) {
  auto s = Store::OpenReadOnly(db);
  if (!s.ok()) return 0;
  auto st = s->db().Prepare("SELECT count(*) FROM points");
  if (!st.ok() || !st->Step().value_or(false)) return 0;
  return static_cast<int>(st->Int(0));
}

RunnerIntegration::Killed RunnerIntegration::RunAndSignalAfter(const std::vector<std::string>& args, int points,
                                                                int sig) {
  std::string log = (dir_ / "first.log").string();
  Killed k;
  k.pid = fork();
  if (k.pid < 0) {
    ADD_FAILURE() << "fork failed";
    return k;
  }
  if (k.pid == 0) {
    freopen(log.c_str(), "w", stderr);
    freopen(log.c_str(), "a", stdout);
    std::vector<char*> argv = {const_cast<char*>(REAM_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(REAM_BINARY, argv.data());
    _exit(127);
  }
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (CountPoints(db_) < points && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  k.stored = CountPoints(db_);
  if (k.stored < points) ADD_FAILURE() << "the first run stored too few points; its log:\n" << std::ifstream(log).rdbuf();
  kill(k.pid, sig);
  int st = 0;
  waitpid(k.pid, &st, 0);
  std::stringstream printed;
  printed << std::ifstream(log).rdbuf();
  k.log = printed.str();
  if (sig == SIGKILL && (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)) {
    ADD_FAILURE() << "the first run was not killed mid-sweep; its log:\n" << k.log;
  }
  if (sig != SIGKILL && (!WIFEXITED(st) || WEXITSTATUS(st) != 130)) {
    ADD_FAILURE() << "the first run did not stop with status 130 on signal " << sig << "; its log:\n" << k.log;
  }
  // The stored count after it stopped (a clean stop finishes storing the point it measured).
  k.stored = CountPoints(db_);
  return k;
}

// An experiment's status and the points of its only run; an empty status when it or that
// run is not found.
struct OnlyRun {
  std::string status;
  std::vector<PointRecord> points;
};
OnlyRun StoredOnlyRun(Store& s, const std::string& experiment) {
  OnlyRun out;
  auto e = s.FindExperiment(experiment);
  if (!e.ok() || !e->has_value()) return out;
  auto runs = s.ListRuns((*e)->id);
  if (!runs.ok() || runs->size() != 1u) return out;
  auto points = s.ListPoints((*runs)[0].id);
  if (!points.ok()) return out;
  out.status = std::string(StatusName((*e)->status));
  out.points = std::move(points).value();
  return out;
}

TEST_F(RunnerIntegration, SigkillMidSweepThenResumeStoresEveryPointExactlyOnce) {
  // A unique seed marks this test's workload processes in /proc.
  std::string marker = std::to_string(900000 + getpid() % 100000);
  std::string spec = Spec("kill", SyntheticSpecUpToLoad("kill", "800ms", "", ", \"--seed\", \"" + marker + "\"") +
                                      R"(# One measurement a level: the test counts them.
attempts = 1
[sweep]
qps = [1000, 1500, 2000, 2500, 3000, 3500]
[qos]
target = "5ms"
)");
  Killed killed = RunAndKillAfter(spec, 2);
  const pid_t pid = killed.pid;
  const int before_kill = killed.stored;
  ASSERT_FALSE(HasFailure());
  ASSERT_LT(before_kill, 6) << "the sweep finished before the kill; the test proves nothing";
  // The killed ream could not clean up: its workload's cgroup is still there (the next ream
  // start must remove it).
  EXPECT_FALSE(CgroupsOf(pid).empty());

  const std::string events = (dir_ / "resume.events").string();
  Exec resume = Ream("run " + spec + " --db " + db_ + " --resume --events " + events);
  ASSERT_EQ(resume.code, 0) << resume.output;
  auto started = Events(events, "experiment_started");
  ASSERT_EQ(started.size(), 1u) << resume.output;
  EXPECT_TRUE(started[0]["resumed"].get<bool>()) << started[0];

  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto e = s->FindExperiment("kill");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->status, ExperimentStatus::kComplete);
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  auto points = s->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok());
  std::multiset<double> levels;
  for (const auto& p : *points) levels.insert(p.target_load);
  EXPECT_EQ(levels, (std::multiset<double>{1000, 1500, 2000, 2500, 3000, 3500}));
  auto dup = s->db().Prepare("SELECT count(*) FROM (SELECT run_id, target_load FROM points "
                             "GROUP BY run_id, target_load HAVING count(*) > 1)");
  ASSERT_TRUE(dup.ok());
  ASSERT_TRUE(dup->Step().value_or(false));
  EXPECT_EQ(dup->Int(0), 0);
  // The points stored before the kill were not measured again.
  auto run_started = Events(events, "run_started");
  ASSERT_EQ(run_started.size(), 1u) << resume.output;
  EXPECT_EQ(run_started[0]["points_already_stored"], before_kill) << run_started[0];
  EXPECT_EQ(Events(events, "level_measured").size(), static_cast<size_t>(6 - before_kill)) << resume.output;
  // Nothing of the killed run is left: no cgroup, no state record, no workload process.
  EXPECT_TRUE(CgroupsOf(pid).empty());
  EXPECT_FALSE(fs::exists("/run/ream/" + std::to_string(pid) + "-1.state"));
  EXPECT_TRUE(ProcessesWith("--seed " + marker).empty());
}

// A knee search whose every point is invalid (no request is issued with zero lateness, and
// 100 % must be timely): `low` is measured again twice (sweep.remeasure_invalid's default) and
// the run says it could not be measured validly instead of that QoS was missed. Killed after
// two attempts, --resume makes only the third: each (level, attempt) is stored exactly once.
// Shared servers: a co-runner SIGKILLed in the middle of a point makes that point
// invalid naming it and how it ended, is started again for the next point, the database passes
// its integrity check, and no cgroup or process of the run is left.
TEST_F(RunnerIntegration, ACorunnerKilledMidPointInvalidatesThatPointNamingItAndNothingIsLeft) {
  // A unique sleep marks this test's co-runner in /proc.
  std::string marker = std::to_string(700000 + getpid() % 100000);
  std::string spec = Spec("coloc", SyntheticSpecUpToLoad("coloc", "1500ms") +
                                       R"(# One measurement a level: the kill is timed from the first stored point.
attempts = 1
[sweep]
qps = [1000, 1500, 2000]
[qos]
target = "5ms"
[[corunner]]
name = "victim"
command = ["sleep", ")" + marker + R"("]
sched = "idle"
[colocation]
alone = false
)");
  auto pid = fork();
  ASSERT_GE(pid, 0);
  std::string log = (dir_ / "coloc.log").string();
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    freopen(log.c_str(), "a", stdout);
    execl(REAM_BINARY, REAM_BINARY, "run", spec.c_str(), "--db", db_.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Once the first point is stored, the second level is under way: kill the co-runner 0.8 s
  // into it (its warm-up is 0.2 s, its window 1.5 s).
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (CountPoints(db_) < 1 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(CountPoints(db_), 1) << std::ifstream(log).rdbuf();
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  // The co-runner runs under `ream corun --sched idle -- sleep MARKER`, whose command line
  // carries the marker too: the victim is the process that is `sleep` itself.
  std::vector<int> victims;
  for (int v : ProcessesWith(marker)) {
    std::ifstream comm("/proc/" + std::to_string(v) + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == "sleep") victims.push_back(v);
  }
  ASSERT_EQ(victims.size(), 1u) << "the co-runner should be running once";
  kill(victims[0], SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  std::stringstream printed;
  printed << std::ifstream(log).rdbuf();
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << printed.str();
  EXPECT_NE(printed.str().find("co-runner 'victim' killed by signal 9"), std::string::npos) << printed.str();

  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto e = s->FindExperiment("coloc");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  EXPECT_EQ((*runs)[0].key.corunner_set, "victim");
  auto points = s->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok() && points->size() == 3u);
  for (const auto& p : *points) {
    ASSERT_TRUE(p.corunners.contains("victim")) << TenantFiguresToJson(p.corunners).dump();
    const TenantFigures& victim = p.corunners.at("victim");
    bool named = false;
    for (const auto& r : p.invalid_reasons) named = named || r.find("co-runner 'victim'") != std::string::npos;
    if (p.target_load == 1500) {
      EXPECT_TRUE(named) << ::testing::PrintToString(p.invalid_reasons);
      EXPECT_FALSE(p.valid.value_or(true));
      EXPECT_NE(victim.ended.find("signal 9"), std::string::npos) << victim.ended;
    } else {
      // Before the kill and after its restart, the co-runner ran through the window; its
      // cgroup's CPU and memory were measured (a sleeping process: little CPU, some memory).
      EXPECT_FALSE(named) << ::testing::PrintToString(p.invalid_reasons);
      EXPECT_EQ(victim.ended, "");
      EXPECT_TRUE(victim.cpu_util.has_value()) << victim.ToJson().dump();
      EXPECT_GT(victim.mem_bytes.value_or(0), 0) << victim.ToJson().dump();
    }
  }
  // Nothing of the run is left: no co-runner process, no cgroup of the run's ream.
  EXPECT_TRUE(ProcessesWith(marker).empty());
  EXPECT_TRUE(CgroupsOf(pid).empty());
}

TEST_F(RunnerIntegration, ACorunnerUnderALoadOfItsOwnIsMeasuredAloneAndBesideEveryPointAndNothingIsLeft) {
  // PARTIES-style: a second latency-critical server (ream's kv) beside the subject, driven by a
  // generator of its own; a unique record count marks its process in /proc.
  // The subject's own validity is not what this test is about: on a host whose vCPUs stall for
  // milliseconds (a pinned spin loop losing 20 % of CPU 0's time, stalls up to 4 ms, 7 Dec 2026)
  // its 1 s points failed the distortion rule at every commit tried, and analyze then had nothing
  // to read the neighbour beside. The seed's rule with a low bar keeps the points it reads.
  const std::string marker = std::to_string(20000 + getpid() % 10000);
  std::string spec = Spec("two", R"(name = "two"
scenarios = ["1-ST"]
[workload]
builtin = "kv"
args = ["--records", "1000"]
[load]
warmup = "200ms"
duration = "1s"
response_timeout = "200ms"
attempts = 1
[sweep]
qps = [2000, 4000]
[qos]
target = "5ms"
validity = "seed"
min_timely_ratio = 0.5
[[corunner]]
name = "kv2"
builtin = "kv"
args = ["--records", ")" + marker + R"("]
[corunner.load]
qps = 1500
)");
  Exec run = Ream("run " + spec + " --db " + db_);
  ASSERT_EQ(run.code, 0) << run.output;

  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto e = s->FindExperiment("two");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  const RunRecord* shared = nullptr;
  for (const auto& r : *runs) {
    if (r.key.corunner_set == "kv2") shared = &r;
  }
  ASSERT_NE(shared, nullptr) << run.output;
  // Its own load, measured by its own generator: the rate it asked for (open loop), a tail, and
  // a validity verdict of its own — alone, and beside every point of the subject.
  auto check = [](const TenantFigures& fig, const std::string& where) {
    ASSERT_TRUE(fig.load.has_value()) << where << ": " << fig.ToJson().dump();
    const TenantLoadFigures& l = *fig.load;
    ASSERT_TRUE(l.measured()) << where << ": " << l.unavailable;
    EXPECT_EQ(l.target_qps, 1500) << where;
    ASSERT_TRUE(l.achieved_qps.has_value()) << where;
    EXPECT_NEAR(*l.achieved_qps, 1500, 1500 * 0.10) << where << ": " << l.ToJson().dump();
    EXPECT_GT(l.latency_p95_us.value_or(0), 0) << where;
    EXPECT_TRUE(l.valid.has_value()) << where << ": " << l.ToJson().dump();
    // It served what it was sent: its own cgroup's CPU shows at least 2 us a request (about 20 us
    // here; an idle kv server uses none), so the load reached this server and not the subject.
    ASSERT_TRUE(fig.cpu_util.has_value()) << where << ": " << fig.ToJson().dump();
    EXPECT_GT(*fig.cpu_util, 1500 * 2e-6) << where << ": " << fig.ToJson().dump();
  };
  ASSERT_TRUE(shared->corunners && shared->corunners->alone_measured);
  const CorunnerRecord* kv2 = shared->corunners->Find("kv2");
  ASSERT_TRUE(kv2 && kv2->alone);
  check(*kv2->alone, "alone");
  auto points = s->ListPoints(shared->id);
  ASSERT_TRUE(points.ok() && points->size() == 2u);
  for (const auto& p : *points) check(p.corunners.at("kv2"), "beside " + std::to_string(p.target_load));

  // The analysis reads it as a latency-critical neighbour: its QPS alone and together, and its tail.
  Exec an = Ream("analyze --db " + db_ + " --json");
  ASSERT_EQ(an.code, 0) << an.output;
  auto j = nlohmann::json::parse(an.output.substr(an.output.find('{')));
  bool found = false;
  for (const auto& g : j["colocation"]["groups"]) {
    for (const auto& c : g["corunners"]) {
      if (c["name"] != "kv2") continue;
      found = true;
      EXPECT_EQ(c["measure"], "QPS");
      EXPECT_NEAR(c["alone"].get<double>(), 1500, 150) << c.dump();
      EXPECT_EQ(c["load"]["together_windows"].get<int>(), 2) << c.dump();
    }
  }
  EXPECT_TRUE(found) << an.output.substr(0, 4000);
  Exec text = Ream("analyze --db " + db_);
  EXPECT_NE(text.output.find("LOADED CO-RUNNER"), std::string::npos) << text.output;
  const std::string html = (dir_ / "two.html").string();
  Exec rep = Ream("report --db " + db_ + " --out " + html);
  ASSERT_EQ(rep.code, 0) << rep.output;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  const size_t table = page.str().find("<table class=\"colocation-loaded\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(page.str().find("<tr><td>kv2</td><td>1500</td>", table), std::string::npos);
  // Nothing is left: neither the neighbour nor its generator.
  EXPECT_TRUE(ProcessesWith(marker).empty());
}

// A natural co-runner as people write it: stress-ng writes beside itself ('.'), so it runs
// only where its user can write. It starts in its sandbox's TMPDIR, owned by that user, whatever
// directory ream was started from (here /, which the workload's user cannot write).
TEST_F(RunnerIntegration, StressNgAsWrittenRunsAsACorunnerAndLeavesNothing) {
  std::string spec = Spec("stream", SyntheticSpecUpToLoad("stream", "1s", "scenarios = [\"1-ST\"]\n") +
                                        R"(attempts = 1
[sweep]
qps = [500]
[qos]
target = "5ms"
[[corunner]]
name = "stream"
command = ["stress-ng", "--stream", "1", "--timeout", "0"]
[colocation]
alone = false
)");
  Exec run = testing_support::Sh("cd / && " + std::string(REAM_BINARY) + " run " + spec + " --db " + db_);
  ASSERT_EQ(run.code, 0) << run.output;
  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto e = s->FindExperiment("stream");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  auto points = s->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok() && points->size() == 1u);
  ASSERT_TRUE((*points)[0].corunners.contains("stream")) << TenantFiguresToJson((*points)[0].corunners).dump();
  const TenantFigures& fig = (*points)[0].corunners.at("stream");
  EXPECT_EQ(fig.ended, "") << fig.ToJson().dump();
  // It ran through the window: a stream stressor keeps its CPU busy (a stopped one shows none).
  ASSERT_TRUE(fig.cpu_share.has_value()) << fig.ToJson().dump();
  EXPECT_GT(*fig.cpu_share, 0.2) << fig.ToJson().dump();
  // Its sandbox (named in the run's description) is gone: its TMPDIR and its cgroups.
  ASSERT_TRUE((*runs)[0].corunners.has_value());
  const std::string sandbox = (*runs)[0].corunners->corunners.at(0).sandbox;
  ASSERT_FALSE(sandbox.empty()) << (*runs)[0].corunners->ToJson().dump();
  EXPECT_FALSE(fs::exists("/tmp/" + sandbox + ".tmp"));
  std::error_code ec;
  for (const auto& h : fs::directory_iterator("/sys/fs/cgroup", ec)) EXPECT_FALSE(fs::exists(h.path() / sandbox));
}

// A co-runner that exits at once fails the run, and the error carries what the program itself
// said on stderr, not only `ream corun`'s lines.
TEST_F(RunnerIntegration, ACorunnerThatExitsAtOnceFailsTheRunWithItsOwnStderr) {
  std::string spec = Spec("quits", R"(name = "quits"
scenarios = ["1-ST"]
[workload]
builtin = "synthetic"
[load]
warmup = "100ms"
duration = "300ms"
[sweep]
qps = [200]
[[corunner]]
name = "quitter"
command = ["sh", "-c", "echo 'frobnicator: no such widget' >&2; exit 4"]
[colocation]
alone = false
)");
  Exec run = Ream("run " + spec + " --db " + db_);
  ASSERT_NE(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("co-runner 'quitter'"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("exited with status 4"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("its last stderr:\n    frobnicator: no such widget"), std::string::npos) << run.output;
}

TEST_F(RunnerIntegration, KneeReMeasuresAnInvalidLevelAndResumeContinuesItsAttempts) {
  std::string spec = Spec("remeasure", SyntheticSpecUpToLoad("remeasure", "600ms") +
                                           R"(timely_tolerance = "0us"
[sweep]
mode = "knee"
low = 1000
high = 2000
max_points = 6
[qos]
target = "5ms"
min_timely_ratio = 1.0
validity = "seed"
)");
  const int before_kill = RunAndKillAfter(spec, 2).stored;
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(before_kill, 2) << "the kill came too late; the test proves nothing";

  const std::string events = (dir_ / "resume.events").string();
  Exec resume = Ream("run " + spec + " --db " + db_ + " --resume --events " + events);
  ASSERT_EQ(resume.code, 0) << resume.output;
  auto run_started = Events(events, "run_started");
  ASSERT_EQ(run_started.size(), 1u) << resume.output;
  EXPECT_EQ(run_started[0]["points_already_stored"], 2);
  // Only the third attempt is measured, and it says why.
  auto again = Events(events, "measuring_again");
  ASSERT_EQ(again.size(), 1u) << resume.output;
  EXPECT_EQ(again[0]["load"], 1000);
  EXPECT_EQ(again[0]["attempt"], 2);  // 0-based: the third
  EXPECT_EQ(again[0]["max_attempts"], 3);
  EXPECT_EQ(again[0]["why"], "invalid");
  EXPECT_NE(again[0]["last_invalid_reason"].get<std::string>().find("timely ratio"), std::string::npos) << again[0];
  // The knee says the level could not be measured validly, not that it missed QoS.
  auto knee = Events(events, "knee_ended");
  ASSERT_EQ(knee.size(), 1u) << resume.output;
  ASSERT_EQ(knee[0]["invalid_levels"].size(), 1u) << knee[0];
  EXPECT_EQ(knee[0]["invalid_levels"][0]["load"], 1000);
  EXPECT_EQ(knee[0]["invalid_levels"][0]["attempts"], 3);
  EXPECT_TRUE(knee[0]["below_range"].get<bool>()) << knee[0];
  EXPECT_TRUE(knee[0]["low_never_valid"].get<bool>()) << knee[0];
  EXPECT_TRUE(knee[0]["last_pass"].is_null()) << knee[0];

  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  OnlyRun run = StoredOnlyRun(*s, "remeasure");
  EXPECT_EQ(run.status, "complete");
  std::multiset<std::pair<double, int64_t>> levels;
  for (const auto& p : run.points) {
    levels.insert({p.target_load, p.attempt});
    EXPECT_EQ(p.status, PointStatus::kOk);
    EXPECT_FALSE(p.valid.value_or(true));
  }
  EXPECT_EQ(levels, (std::multiset<std::pair<double, int64_t>>{{1000, 0}, {1000, 1}, {1000, 2}}));
}

// A grid re-measures an invalid level when the spec asks (remeasure_invalid), says so, and
// stores each attempt as a point of its own; a grid that does not ask measures each level once.
TEST_F(RunnerIntegration, GridReMeasuresAnInvalidLevelWhenAsked) {
  auto spec_with = [&](const std::string& name, const std::string& extra) {
    return Spec(name, SyntheticSpecUpToLoad(name, "500ms") + R"(timely_tolerance = "0us"
attempts = 1
[sweep]
qps = [1000]
)" + extra + R"([qos]
target = "5ms"
min_timely_ratio = 1.0
validity = "seed"
)");
  };
  const std::string again_events = (dir_ / "again.events").string();
  Exec again = Ream("run " + spec_with("again", "remeasure_invalid = 1\n") + " --db " + db_ + " --events " +
                    again_events);
  ASSERT_EQ(again.code, 0) << again.output;
  auto said = Events(again_events, "measuring_again");
  ASSERT_EQ(said.size(), 1u) << again.output;
  EXPECT_EQ(said[0]["load"], 1000);
  EXPECT_EQ(said[0]["attempt"], 1);
  EXPECT_EQ(said[0]["max_attempts"], 2);
  EXPECT_NE(said[0]["last_invalid_reason"].get<std::string>().find("timely ratio"), std::string::npos) << said[0];
  // The progress count grows by the extra attempt instead of running past its total.
  auto measured = Events(again_events, "level_measured");
  ASSERT_EQ(measured.size(), 2u) << again.output;
  EXPECT_EQ(measured[1]["done_points"], 2);
  EXPECT_EQ(measured[1]["planned_points"], 2);
  const std::string once_events = (dir_ / "once.events").string();
  Exec once = Ream("run " + spec_with("once", "") + " --db " + db_ + " --events " + once_events);
  ASSERT_EQ(once.code, 0) << once.output;
  EXPECT_TRUE(Events(once_events, "measuring_again").empty()) << once.output;
  EXPECT_EQ(Events(once_events, "level_measured").size(), 1u) << once.output;
  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::multiset<std::pair<double, int64_t>> levels;
  for (const auto& p : StoredOnlyRun(*s, "again").points) levels.insert({p.target_load, p.attempt});
  EXPECT_EQ(levels, (std::multiset<std::pair<double, int64_t>>{{1000, 0}, {1000, 1}}));
  EXPECT_EQ(StoredOnlyRun(*s, "once").points.size(), 1u);
}

TEST_F(RunnerIntegration, WorkloadCrashingAtOneLevelIsStoredAsFailedAndTheRunGoesOn) {
  // The workload is a shell that runs the synthetic server and, 6.5 s after it started (in
  // the middle of the second level's 3 s window), kills it and exits with status 42.
  std::string spec = Spec("crash", std::string(R"(name = "crash"
[workload]
command = ["sh", "-c", ")") + WorkloadReam() + R"( serve synthetic --service const:20us --port {port} & sleep 6.5; kill -9 $!; exit 42"]
ready = "port"
ready_timeout = "10s"
[load]
warmup = "200ms"
duration = "3s"
response_timeout = "200ms"
attempts = 1
[sweep]
qps = [1000, 1500, 2000]
)");
  Exec r = Ream("run " + spec + " --db " + db_);
  ASSERT_EQ(r.code, 0) << r.output;
  auto s = Store::OpenReadOnly(db_);
  ASSERT_TRUE(s.ok());
  auto e = s->FindExperiment("crash");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->status, ExperimentStatus::kComplete);
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  auto points = s->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 3u) << r.output;
  const PointRecord& crashed = (*points)[1];
  EXPECT_EQ(crashed.target_load, 1500);
  EXPECT_EQ(crashed.status, PointStatus::kFailed) << r.output;
  EXPECT_EQ(crashed.workload_exit_code.value_or(-1), 42);
  EXPECT_NE(crashed.workload_exit.find("exited with status 42"), std::string::npos) << crashed.workload_exit;
  EXPECT_NE(crashed.failure.find("status 42"), std::string::npos) << crashed.failure;
  EXPECT_FALSE(crashed.valid.has_value());
  // The levels before and after were measured: the runner restarted the workload and went on.
  EXPECT_EQ((*points)[0].status, PointStatus::kOk);
  EXPECT_EQ((*points)[2].status, PointStatus::kOk) << r.output;
  EXPECT_TRUE((*points)[2].issued.value_or(0) > 0);
}

// A spec's command runs as the workload user (no capabilities) unless it says user = "root",
// and the stored environment says which.
TEST_F(RunnerIntegration, SpecCommandRunsUnprivilegedByDefaultAndAsRootOnlyWhenAsked) {
  struct passwd* pw = getpwnam("ream");
  ASSERT_NE(pw, nullptr) << "no user 'ream': run scripts/install-deps (or scripts/ream-user)";
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);  // the workload user writes its uid here
  for (const std::string user : {"", "root"}) {
    const std::string name = user.empty() ? "asdefault" : "asroot";
    std::string spec = Spec(name, "name = \"" + name + "\"\n[workload]\n" +
                                      (user.empty() ? "" : "user = \"" + user + "\"\n") +
                                      "command = [\"sh\", \"-c\", \"id -u > " + (out / name).string() +
                                      "; grep CapEff /proc/self/status >> " + (out / name).string() + "; exec " +
                                      WorkloadReam() + R"( serve synthetic --service const:20us --port {port}"]
ready = "port"
[load]
warmup = "100ms"
duration = "1s"
[sweep]
qps = [500]
)");
    Exec r = Ream("run " + spec + " --db " + db_);
    ASSERT_EQ(r.code, 0) << r.output;
    std::ifstream f(out / name);
    std::string uid, capeff_key, capeff;
    f >> uid >> capeff_key >> capeff;
    auto s = Store::OpenReadOnly(db_);
    ASSERT_TRUE(s.ok());
    auto e = s->FindExperiment(name);
    ASSERT_TRUE(e.ok() && e->has_value());
    auto env = s->GetEnvironment((*e)->id);
    ASSERT_TRUE(env.ok() && env->has_value());
    std::string stored;
    for (const auto& c : (*env)->doctor) {
      if (c.value("name", "") == "workload.user") stored = c.value("detail", "");
    }
    if (user.empty()) {
      EXPECT_EQ(uid, std::to_string(pw->pw_uid)) << r.output;
      EXPECT_EQ(capeff, "0000000000000000");
      EXPECT_NE(stored.find("user=ream uid=" + std::to_string(pw->pw_uid)), std::string::npos) << stored;
      EXPECT_NE(stored.find("no_new_privs=1 capabilities=none"), std::string::npos) << stored;
    } else {
      EXPECT_EQ(uid, "0") << r.output;
      EXPECT_NE(capeff, "0000000000000000");
      EXPECT_NE(stored.find("user=root uid=0"), std::string::npos) << stored;
    }
  }
}

// Two experiments interleaved (--interleave): the runs alternate in the rounds --dry-run
// prints, an interrupt stops both with every finished point kept, and --resume finishes them in
// the same order, each point stored once. A bad second spec or a name already stored stops the
// call before anything of the first is created or run.
TEST_F(RunnerIntegration, InterleavedExperimentsRunInShuffledRoundsAndResumeInTheSameOrder) {
  auto spec_named = [&](const std::string& name) {
    return Spec(name, SyntheticSpecUpToLoad(name, "300ms", "repetitions = 3\n") +
                          R"(# One measurement a level: the test counts them.
attempts = 1
[sweep]
qps = [1000, 1500]
[qos]
target = "5ms"
)");
  };
  std::string a = spec_named("alpha"), b = spec_named("beta");
  const std::string both = a + " " + b + " --db " + db_ + " --interleave --order-seed 2";
  Exec dry = Ream("run " + both + " --dry-run");
  ASSERT_EQ(dry.code, 0) << dry.output;
  // "interleaved, in rounds shuffled with order seed 3: alpha/1 beta/1 ..." (experiment/run).
  std::vector<std::string> planned;
  {
    size_t at = dry.output.find("order seed 2:");
    ASSERT_NE(at, std::string::npos) << dry.output;
    std::istringstream line(dry.output.substr(at + 13, dry.output.find('\n', at) - at - 13));
    for (std::string w; line >> w;) planned.push_back(w);
  }
  ASSERT_EQ(planned.size(), 6u) << dry.output;
  for (size_t k = 0; k < 6; k += 2) {
    // Each round is one run of each experiment, the k-th.
    std::string round = std::to_string(k / 2 + 1);
    EXPECT_EQ((std::set<std::string>{planned[k], planned[k + 1]}),
              (std::set<std::string>{"alpha/" + round, "beta/" + round}))
        << dry.output;
  }

  // Interrupted in the third run (each run is two points).
  Killed first = RunAndSignalAfter({"run", a, b, "--db", db_, "--interleave", "--order-seed", "2"}, 5, SIGINT);
  ASSERT_FALSE(HasFailure());
  ASSERT_LT(first.stored, 12) << "both finished before the interrupt; the test proves nothing";
  EXPECT_NE(first.log.find("Continue with: ream run " + both + " --resume"), std::string::npos) << first.log;
  {
    auto s = Store::OpenReadOnly(db_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (const char* name : {"alpha", "beta"}) {
      auto e = s->FindExperiment(name);
      ASSERT_TRUE(e.ok() && e->has_value()) << name;
      EXPECT_EQ((*e)->status, ExperimentStatus::kInterrupted) << name;
    }
  }

  Exec resume = Ream("run " + both + " --resume");
  ASSERT_EQ(resume.code, 0) << resume.output;
  EXPECT_NE(resume.output.find("experiment 'alpha' complete"), std::string::npos) << resume.output;
  EXPECT_NE(resume.output.find("experiment 'beta' complete"), std::string::npos) << resume.output;

  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->IntegrityCheck().ok());
  // The runs in the order they started are the planned order; each has its two points once.
  std::vector<std::pair<int64_t, std::string>> started;
  for (const char* name : {"alpha", "beta"}) {
    auto e = s->FindExperiment(name);
    ASSERT_TRUE(e.ok() && e->has_value()) << name;
    EXPECT_EQ((*e)->status, ExperimentStatus::kComplete) << name;
    auto runs = s->ListRuns((*e)->id);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 3u) << name;
    for (const auto& r : *runs) {
      started.push_back({r.started_ns.value_or(0), std::string(name) + "/" + std::to_string(r.ordinal + 1)});
      auto points = s->ListPoints(r.id);
      ASSERT_TRUE(points.ok());
      std::multiset<double> levels;
      for (const auto& p : *points) levels.insert(p.target_load);
      EXPECT_EQ(levels, (std::multiset<double>{1000, 1500})) << name << " run " << r.ordinal + 1;
    }
  }
  std::sort(started.begin(), started.end());
  std::vector<std::string> order;
  for (const auto& [t, run] : started) order.push_back(run);
  EXPECT_EQ(order, planned) << resume.output;

  // A bad second spec: nothing of the first is created; a name already stored: the same.
  std::string db2 = (dir_ / "r2.db").string();
  Exec bad = Ream("run " + spec_named("gamma") + " " +
                  Spec("broken", "name = \"broken\"\n[workload]\nbuiltin = \"synthetic\"\n[sweep]\nqps = [0]\n") +
                  " --db " + db2 + " --interleave");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("broken.toml"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(db2));
  Exec again = Ream("run " + spec_named("delta") + " " + a + " --db " + db_ + " --interleave");
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("experiment 'alpha' is already in"), std::string::npos) << again.output;
  EXPECT_FALSE(s->FindExperiment("delta").value_or(std::nullopt).has_value()) << again.output;
}

// --keep-awake keeps the workload's CPU awake too. Where the kernel cannot poll the CPUs in
// idle (or REAM_KEEP_AWAKE=pollers asks, as here): `ream keep-awake` runs in the workload's cpu
// cgroup (where its SCHED_IDLE pollers yield to the workload at once) but not in its cpuacct
// group, so the workload's CPU figure does not count the pollers' spinning; each point says
// what was kept awake, and the pollers end with the run.
TEST_F(RunnerIntegration, KeepAwakeSpinsBesideTheWorkloadWithoutBeingChargedToIt) {
  if (!fs::exists("/sys/fs/cgroup/cpu/cgroup.procs") || !fs::exists("/sys/fs/cgroup/cpuacct/cgroup.procs") ||
      fs::equivalent("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct")) {
    GTEST_SKIP() << "needs cgroup v1 with cpu and cpuacct in hierarchies of their own (ream says why not otherwise)";
  }
  std::string events = (dir_ / "events.jsonl").string();
  std::string spec = Spec("awake", KeepAwakeSpec("awake", "true", "1500ms"));
  FILE* f = popen(("REAM_KEEP_AWAKE=pollers " + std::string(REAM_BINARY) + " run " + spec + " --db " + db_ +
                   " --events " + events + " 2>&1")
                      .c_str(),
                  "r");
  ASSERT_NE(f, nullptr);
  // While the level runs: the poller is in a ream cpu cgroup, in no ream cpuacct group, and spins.
  int pid = 0;
  std::string cpu_line, cpuacct_line;
  double spun_s = 0;
  for (int i = 0; i < 100 && pid == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto pids = ProcessesWith("keep-awake --cpus");
    if (pids.empty()) continue;
    pid = pids[0];
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::ifstream cg("/proc/" + std::to_string(pid) + "/cgroup");
    for (std::string l; std::getline(cg, l);) {
      if (l.find(":cpu:") != std::string::npos) cpu_line = l;
      if (l.find(":cpuacct:") != std::string::npos) cpuacct_line = l;
    }
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(st)), std::istreambuf_iterator<char>());
    std::istringstream in(stat.substr(stat.rfind(')') + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int k = 3; k <= 15 && in >> field; ++k) {
      if (k == 14) utime = std::stol(field);
      if (k == 15) stime = std::stol(field);
    }
    spun_s = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  Exec run = Drain(f);
  const std::string& out = run.output;
  ASSERT_EQ(run.code, 0) << out;
  ASSERT_GT(pid, 0) << "no ream keep-awake process appeared: " << out;
  EXPECT_NE(cpu_line.find("/ream-"), std::string::npos) << cpu_line;
  EXPECT_EQ(cpuacct_line.find("/ream-"), std::string::npos) << cpuacct_line;
  EXPECT_GT(spun_s, 0.1) << "the poller did not spin";
  EXPECT_NE(out.find("kept awake by SCHED_IDLE pollers in its cpu cgroup"), std::string::npos) << out;
  std::string q = Sql(db_, "select cpu_util, json_extract(generator_json, '$.keep_awake_workload') from points");
  ASSERT_FALSE(q.empty());
  // The poller spins whenever the kv server does not run (~all of this CPU at 1 000 QPS): were
  // it counted, the workload's utilization would be near 1.
  std::printf("points: %s\n", q.c_str());
  double util = std::stod(q.substr(0, q.find('|')));
  EXPECT_LT(util, 0.5) << q;
  EXPECT_NE(q.find("kept awake"), std::string::npos) << q;
  EXPECT_TRUE(ProcessesWith("keep-awake --cpus").empty());
}

// Where the CPUs' idle driver can poll, --keep-awake has the kernel keep them awake: while the
// level runs both CPUs' PM QoS resume latency reads 0 ("n/a") and no `ream keep-awake` runs;
// each point says so; the values come back after the run.
TEST_F(RunnerIntegration, KeepAwakeHasTheKernelPollWhereItCanAndPutsTheSettingBack) {
  for (int cpu : {0, 1}) {
    if (Status can = KeepAwake::KernelCanPoll(cpu); !can.ok()) GTEST_SKIP() << can.message();
  }
  auto qos = [](int cpu) {
    std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/power/pm_qos_resume_latency_us");
    std::string v;
    std::getline(in, v);
    return v;
  };
  const std::string before0 = qos(0), before1 = qos(1);
  if (before0 == "n/a" || before1 == "n/a") GTEST_SKIP() << "a CPU is already held at resume latency 0";
  std::string spec = Spec("kawake", KeepAwakeSpec("kawake", "true", "1500ms"));
  FILE* f = popen((std::string(REAM_BINARY) + " run " + spec + " --db " + db_ + " 2>&1").c_str(), "r");
  ASSERT_NE(f, nullptr);
  bool both_polled = false, pollers = false;
  for (int i = 0; i < 100 && !both_polled; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    both_polled = qos(0) == "n/a" && qos(1) == "n/a";
    pollers = pollers || !ProcessesWith("keep-awake --cpus").empty();
  }
  Exec run = Drain(f);
  const std::string& out = run.output;
  ASSERT_EQ(run.code, 0) << out;
  EXPECT_TRUE(both_polled) << "CPU 0 and 1 never both read n/a during the run: " << out;
  EXPECT_FALSE(pollers) << out;
  std::string q = Sql(db_, "select json_extract(generator_json, '$.keep_awake_workload') from points");
  EXPECT_NE(q.find("the workload's CPUs 0 kept awake by the kernel's idle polling"), std::string::npos) << q;
  EXPECT_EQ(qos(0), before0);
  EXPECT_EQ(qos(1), before1);
}

// keep_awake = "generator": `ream load` keeps the generator's CPUs awake with pollers of its
// own, no `ream keep-awake` runs beside the workload, and each point says both.
TEST_F(RunnerIntegration, KeepAwakeGeneratorLeavesTheWorkloadsCpusAlone) {
  std::string spec = Spec("awakegen", KeepAwakeSpec("awakegen", "\"generator\"", "1000ms"));
  FILE* f = popen((std::string(REAM_BINARY) + " run " + spec + " --db " + db_ + " 2>&1").c_str(), "r");
  ASSERT_NE(f, nullptr);
  // While the level runs: a `ream load` with --keep-awake, and never a `ream keep-awake`.
  bool generator_awake = false, workload_awake = false;
  for (int i = 0; i < 50 && !generator_awake; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (int pid : ProcessesWith("--keep-awake")) {
      const auto loads = ProcessesWith(" load --target");
      generator_awake = generator_awake || std::find(loads.begin(), loads.end(), pid) != loads.end();
    }
    workload_awake = workload_awake || !ProcessesWith("keep-awake --cpus").empty();
  }
  Exec run = Drain(f);
  const std::string& out = run.output;
  ASSERT_EQ(run.code, 0) << out;
  EXPECT_TRUE(generator_awake) << "no ream load with --keep-awake appeared: " << out;
  EXPECT_FALSE(workload_awake) << out;
  EXPECT_NE(out.find("; keep_awake = \"generator\": its CPUs kept out of idle, the workload's left alone)"),
            std::string::npos)
      << out;
  std::string q = Sql(db_, "select json_extract(generator_json, '$.keep_awake_cpus') || '|' || "
                          "json_extract(generator_json, '$.keep_awake_workload') from points");
  ASSERT_FALSE(q.empty());
  EXPECT_NE(q.find("|not asked: keep_awake = \"generator\""), std::string::npos) << q;
  EXPECT_NE(q.substr(0, q.find('|')), "") << q;
  EXPECT_TRUE(ProcessesWith("--keep-awake").empty());
}

TEST_F(RunnerIntegration, BadSpecsFailFastNamingTheCause) {
  const std::string base = "[workload]\nbuiltin = \"synthetic\"\n[load]\nduration = \"1s\"\n[sweep]\nqps = [1000]\n";
  Exec typo = Ream("run " + Spec("typo", "name = \"t\"\n[workload]\nbuiltin = \"synthetic\"\n[load]\nduraton = \"1s\"\n[sweep]\nqps = [1000]\n") +
                   " --db " + db_);
  EXPECT_EQ(typo.code, 2) << typo.output;
  EXPECT_NE(typo.output.find("typo.toml:5: unknown key 'load.duraton' (did you mean 'load.duration'?)"),
            std::string::npos)
      << typo.output;

  Exec negative = Ream("run " + Spec("neg", "name = \"t\"\n[workload]\nbuiltin = \"synthetic\"\n[sweep]\nqps = [1000, -200]\n") +
                       " --db " + db_);
  EXPECT_EQ(negative.code, 2) << negative.output;
  EXPECT_NE(negative.output.find("neg.toml:5: sweep.qps is -200; a load level must be a rate > 0"), std::string::npos)
      << negative.output;

  // 2-SMT needs SMT siblings; where the machine has them, ask for more cores than exist.
  std::ifstream sib("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
  std::string siblings;
  sib >> siblings;
  bool smt = siblings.find_first_of(",-") != std::string::npos;
  std::string scenario = smt ? "4096-ST" : "2-SMT";
  const std::string place_spec = Spec("place", "name = \"t\"\nscenarios = [\"1-ST\",\n  \"" + scenario + "\"]\n" + base);
  // --strict refuses a spec naming a scenario this machine cannot run ...
  Exec place = Ream("run " + place_spec + " --db " + db_ + " --strict");
  EXPECT_EQ(place.code, 2) << place.output;
  EXPECT_NE(place.output.find("place.toml:3: scenario \"" + scenario + "\" cannot run on this machine"),
            std::string::npos)
      << place.output;
  if (!smt) {
    EXPECT_NE(place.output.find("SMT"), std::string::npos) << place.output;
  }
  // ... and without it the scenario is skipped, saying why, and the rest runs.
  Exec skip = Ream("run " + place_spec + " --db " + db_ + " --dry-run");
  EXPECT_EQ(skip.code, 0) << skip.output;
  EXPECT_NE(skip.output.find("scenario " + scenario + " skipped: not available here: "), std::string::npos)
      << skip.output;
  EXPECT_NE(skip.output.find("run 1: 1-ST"), std::string::npos) << skip.output;

  // A protocol ream cannot speak, and an HTTP method that leaves no way to send the mix's sets.
  const std::string http = "name = \"t\"\n[workload]\ncommand = [\"sleep\", \"60\"]\nport = 1\nprotocol = ";
  Exec gopher = Ream("run " + Spec("gopher", http + "\"gopher\"\n[sweep]\nqps = [1000]\n") + " --db " + db_);
  EXPECT_EQ(gopher.code, 2) << gopher.output;
  EXPECT_NE(gopher.output.find("gopher"), std::string::npos) << gopher.output;
  EXPECT_NE(gopher.output.find("memcached"), std::string::npos) << gopher.output;  // the known ones
  Exec get_only = Ream("run " + Spec("getonly", http + "\"http\"\n[load]\nhttp_method = \"GET\"\n[sweep]\nqps = [1000]\n") +
                       " --db " + db_);
  EXPECT_EQ(get_only.code, 2) << get_only.output;
  EXPECT_NE(get_only.output.find("load.get_ratio = 0.9"), std::string::npos) << get_only.output;

  // None of these created a database: they failed before anything was run or stored.
  EXPECT_FALSE(fs::exists(db_));

  // A command that never becomes ready: fails after its ready_timeout, before any load, and
  // leaves no process behind.
  std::string marker = std::to_string(777000 + getpid() % 1000) + ".5";
  Exec never = Ream("run " + Spec("never", "name = \"t\"\n[workload]\ncommand = [\"sleep\", \"" + marker +
                                                "\"]\nport = 1\nready_timeout = \"1s\"\n[sweep]\nqps = [1000]\n") +
                    " --db " + db_);
  EXPECT_NE(never.code, 0) << never.output;
  EXPECT_NE(never.output.find("never became ready within 1s"), std::string::npos) << never.output;
  EXPECT_LT(never.seconds, 10.0);
  EXPECT_EQ(CountPoints(db_), 0);
  EXPECT_TRUE(ProcessesWith("sleep " + marker).empty());
}

}  // namespace
}  // namespace ream
