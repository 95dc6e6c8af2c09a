// Child processes started by ream's sandboxes: fork/exec with the child placed in its
// cgroups, resctrl group and network namespace *before* it executes a single instruction of
// the workload, its stdout optionally captured line by line (readiness lines), and waiting,
// signalling and reaping. Created through Platform::Spawn so only platform/ touches the OS.
#pragma once

#include <chrono>
#include <csignal>  // SIGKILL, SIGTERM... for Signal()/Kill(), so callers need no OS header
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/status.h"

namespace ream {

// Who a workload runs as when it is not ream's own user (Platform::LookupUser fills it).
struct RunAs {
  std::string name;         // "ream", "nobody", ...
  int uid = 0;
  int gid = 0;              // the user's primary group
  std::vector<int> groups;  // its supplementary groups (getgrouplist), primary included
  std::string home;         // HOME for the child
};

struct SpawnOptions {
  // argv[0] is searched in PATH (also in /usr/sbin and /sbin). Required. With run_as, a name
  // without '/' is searched as that user would (program_search.h: FindProgramAsUser), in the
  // PATH the child gets (`env`'s, else ream's).
  std::vector<std::string> argv;
  // The child's pid is written into each of these files (cgroup.procs of every hierarchy,
  // resctrl "tasks") before it execs, so everything it runs is accounted and limited.
  std::vector<std::string> join_files;
  // A named network namespace file ("/run/netns/ream-...") the child enters before exec;
  // empty: the host's namespace.
  std::string netns_path;
  // true: stdout goes to a pipe read by ChildProcess (WaitForLine, Lines; each line is
  // also passed to `on_stdout_line` when set). false: inherited from ream.
  bool capture_stdout = false;
  std::function<void(const std::string&)> on_stdout_line;
  // The child gets SIGKILL when the thread that spawned it exits (PR_SET_PDEATHSIG), so a
  // SIGKILLed ream leaves no running workload behind. Spawn from a long-lived thread.
  bool kill_with_parent = true;
  // Extra environment variables (NAME, value) on top of ream's own environment.
  std::vector<std::pair<std::string, std::string>> env;
  // true: the child's stdin is a pipe that ChildProcess::WriteStdin feeds and CloseStdin ends
  // (an agent behind `ssh` reads its requests there and exits when it closes). false: the
  // child's stdin is inherited from ream.
  bool pipe_stdin = false;
  // Non-empty: the child's stderr goes to this file (created or truncated), for a caller that
  // reads what the child said when it failed (ssh's "Permission denied", say).
  std::string stderr_path;
  // Non-empty (and capture_stdout false): the child's stdout goes to this file (created or
  // truncated), for a batch program whose output is bytes nobody reads line by line.
  std::string stdout_path;
  // Non-empty: the child's working directory, entered after it took run_as (so the user must
  // be able to enter it). "" : ream's own, inherited. A program that writes beside itself
  // ('.') then writes where its user may, not into a directory only root can write.
  std::string working_dir;
  // Called in the parent once the child has joined `join_files`, just before it is let go to
  // exec: what is read here (a cgroup's counters, say) precedes everything the child runs.
  std::function<void()> before_exec;
  // Set: once in its cgroups and namespace, the child takes this user's groups, gid and uid,
  // empties its capability bounding and ambient sets (so it holds no capability, also after
  // exec) and sets PR_SET_NO_NEW_PRIVS (no setuid binary or file capability gives any back);
  // HOME, USER and LOGNAME become the user's. A failed step fails Spawn with its errno
  // (PermissionDenied when ream is not root). nullopt: ream's own user and privileges.
  std::optional<RunAs> run_as;
};

// How a process ended.
struct ProcessExit {
  bool signaled = false;
  int exit_code = 0;  // when !signaled
  int signal = 0;     // when signaled
  // "exited with status 3", "killed by signal 9 (SIGKILL)".
  std::string Describe() const;
  // The shell convention: exit_code, or 128 + signal.
  int ShellCode() const { return signaled ? 128 + signal : exit_code; }
};

class ChildProcess {
 public:
  // A child still running is killed (SIGKILL) and reaped; the stdout reader is joined.
  virtual ~ChildProcess() = default;
  virtual int pid() const = 0;
  // kill(2). NotFound once the process has been reaped.
  virtual Status Signal(int sig) = 0;
  // The exit once the process has ended (it is reaped then), nullopt while it runs.
  virtual std::optional<ProcessExit> Poll() = 0;
  // Blocks until the process ends or `timeout` passes (Timeout then).
  virtual Result<ProcessExit> Wait(std::chrono::milliseconds timeout) = 0;
  // With capture_stdout: the first stdout line (seen before or after the call) for which
  // `match` is true. Timeout after `timeout`; Unavailable when stdout closed (the process
  // ended) without such a line; Unsupported without capture_stdout.
  virtual Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                          std::chrono::milliseconds timeout) = 0;
  // The stdout lines captured so far (the last 1000).
  virtual std::vector<std::string> Lines() const = 0;
  // With capture_stdout: blocks until stdout has reached its end — every line written has been
  // read and passed on — or `timeout` passes. true when it has. A process that has exited may
  // still have lines in the pipe: read its output after this, not after Wait alone.
  virtual bool WaitForOutputEnd(std::chrono::milliseconds timeout) = 0;
  // With pipe_stdin: writes all of `data` to the child's stdin. Unavailable when the child has
  // closed its end (it exited: EPIPE, never a SIGPIPE in ream), Timeout when the pipe stayed full
  // for `timeout`; Unsupported without pipe_stdin.
  virtual Status WriteStdin(const std::string& data, std::chrono::milliseconds timeout);
  // With pipe_stdin: closes ream's end, so the child reads end-of-file. Idempotent.
  virtual void CloseStdin() {}
};

}  // namespace ream
