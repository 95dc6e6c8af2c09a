// What the integration tests share: a command run through the shell to its end, what ream left
// behind, and the ream binary at a path every user can reach (header only, like stall_probe.h;
// no production code includes it).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "platform/platform.h"

namespace ream::testing_support {

// How a command run to its end ended: its exit status (128 + the signal that ended it), what it
// printed, and how long it took from the time given to Drain.
struct Exec {
  int code = -1;
  std::string output;
  double seconds = 0;
};

// Reads a command started with popen to its end and closes it (nullptr: an empty Exec, code -1).
inline Exec Drain(FILE* f, std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now()) {
  Exec e;
  if (!f) return e;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) e.output.append(buf, n);
  int st = pclose(f);
  e.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

// Runs the shell command `cmd` to its end: its stdout, and its stderr too unless `stdout_only`.
inline Exec Sh(const std::string& cmd, bool stdout_only = false) {
  auto t0 = std::chrono::steady_clock::now();
  return Drain(popen((cmd + (stdout_only ? " 2>/dev/null" : " 2>&1")).c_str(), "r"), t0);
}

// Runs `ream ARGS` (the binary as built: REAM_BINARY, cmake/test_paths.h, which every test
// includes) to its end: its stdout, and its stderr too unless `stdout_only`.
inline Exec Ream(const std::string& args, bool stdout_only = false) {
  return Sh(std::string(REAM_BINARY) + " " + args, stdout_only);
}

// Every kernel object and state file named for ream process `pid` — cgroups in any hierarchy,
// resctrl groups, /run/ream state files, network namespaces, veths and their qdiscs, its
// sandboxes' and its local client nodes' (ream-PID-cK, reamPIDcKh), its sandboxes' private
// TMPDIRs and the scratch directories of its ssh sessions' stderr in /tmp — one per line; ""
// when none.
inline std::string ReamObjectsOf(int pid) {
  const std::string p = std::to_string(pid);
  auto r = MakePosixPlatform()->Run(
      {"sh", "-c",
       "ls -d /sys/fs/cgroup/*/ream-" + p + "-* /sys/fs/cgroup/ream-" + p + "-* /sys/fs/resctrl/ream-" + p +
           "-* /run/ream/" + p + "-*.state /tmp/ream-agents-" + p + "-* /tmp/ream-workload-" + p + "-* /tmp/ream-" + p +
           "-*.tmp 2>/dev/null; "
           "ip netns list 2>/dev/null | grep -w 'ream-" + p + "-c\\?[0-9]*'; "
           "ip -o link show 2>/dev/null | grep -o 'ream" + p + "\\(c[0-9]*\\)\\?[hn][0-9]*'; "
           "tc qdisc show 2>/dev/null | grep 'ream" + p + "[hnc]'; true"},
      std::chrono::seconds(30));
  return r.ok() ? r->out : "<sh failed: " + r.status().message() + ">";
}

// Pids of live processes (other than this one) whose command line contains `marker`.
inline std::vector<int> ProcessesWith(const std::string& marker) {
  namespace fs = std::filesystem;
  std::vector<int> out;
  // Without exceptions: processes come and go while /proc is read, and an exception thrown
  // here while a test's thread runs `ream` would abort the test process instead of failing it.
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const auto& d = *it;
    std::string name = d.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(d.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (char& c : cmd) c = c ? c : ' ';
    if (cmd.find(marker) != std::string::npos && std::stoi(name) != ::getpid()) out.push_back(std::stoi(name));
  }
  return out;
}

// The ream binary `binary` at /tmp/ream-<tag>-bin-<pid>/ream, a directory every user can enter:
// spec commands that start ream by path run as the unprivileged workload user, and the build
// tree may sit where only root can enter (a clone under /root or in a private temporary
// directory). The path is unique to this test process, so the processes started from it are
// found by it in /proc. A hard link (a copy across file systems), removed at exit.
inline const std::string& WorldReachableReam(const std::string& binary, const std::string& tag) {
  namespace fs = std::filesystem;
  struct Link {
    fs::path dir;
    std::string path;
    Link(const std::string& binary, const std::string& tag) {
      dir = fs::path("/tmp") / ("ream-" + tag + "-bin-" + std::to_string(::getpid()));
      fs::remove_all(dir);
      fs::create_directories(dir);
      fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
      path = (dir / "ream").string();
      std::error_code ec;
      fs::create_hard_link(binary, path, ec);
      if (ec) fs::copy_file(binary, path);
    }
    ~Link() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  };
  static Link link(binary, tag);
  return link.path;
}

}  // namespace ream::testing_support
