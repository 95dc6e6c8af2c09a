// What the tests against real servers (peers_test.cc, label `peers`) stand on: free loopback
// ports, a throwaway directory, a child process killed with the test, memcached, redis-server and
// nginx started in such a directory, `ream load` run against them, and the servers' own counters
// (memcached `stats`, Redis INFO). Test code only: it makes system calls where the tests need them.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/stall_probe.h"

namespace ream::peers_test {

using Clock = std::chrono::steady_clock;

inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

inline int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` and reads until the reply ends with `terminator` (or 5 s pass).
inline std::string Exchange(int port, const std::string& request, const std::string& terminator) {
  int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  std::string reply;
  if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    auto deadline = Clock::now() + std::chrono::seconds(5);
    char buf[4096];
    while (Clock::now() < deadline &&
           (reply.size() < terminator.size() ||
            reply.compare(reply.size() - terminator.size(), terminator.size(), terminator) != 0)) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) break;
      reply.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return reply;
}

// A directory removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/ream-peers-XXXXXX";
    char* d = mkdtemp(tmpl);
    if (d != nullptr) {
      path_ = d;
      // nginx and memcached may drop privileges; let them read it.
      std::filesystem::permissions(path_, std::filesystem::perms(0755));
    }
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A child process, killed (and reaped) when this object goes away.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::string& log_path) {
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
      }
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
      _exit(127);
    }
  }
  ~Process() { Stop(); }

  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }
  void Kill() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  // SIGTERM, then SIGKILL after 3 s.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    auto deadline = Clock::now() + std::chrono::seconds(3);
    while (Clock::now() < deadline) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Kill();
  }

 private:
  pid_t pid_ = -1;
};

struct CommandOutput {
  int exit_code = -1;  // 128 + signal when killed
  bool timed_out = false;
  std::string out, err;
  double seconds = 0;
};

// Runs argv to completion, killing it after `timeout` (a hang is a failure, not a stuck test).
// `during` runs once, `during_after` into the run.
inline CommandOutput RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                         std::chrono::milliseconds during_after = std::chrono::milliseconds(0),
                         const std::function<void()>& during = nullptr) {
  CommandOutput result;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return result;
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  bool did_during = during == nullptr;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    auto now = Clock::now();
    if (!did_during && now - start >= during_after) {
      during();
      did_during = true;
    }
    if (now - start > timeout) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, 20) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

inline bool WaitListening(int port, Process& p, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (!p.Running()) return false;
    int fd = ConnectLoopback(port);
    if (fd >= 0) {
      close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// How many times `needle` occurs in `text` (a server log, say).
inline size_t Occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos; ++at) ++n;
  return n;
}

// One real server on a free loopback port in its own throwaway directory.
struct Peer {
  TempDir dir;
  int port = FreePort();
  std::unique_ptr<Process> process;
  std::string log_path() const { return dir.path() + "/server.log"; }
  std::string Log() const { return ReadFileOrEmpty(log_path()); }
  // Whether the server accepts connections within 5 s; a failure carries its logs.
  ::testing::AssertionResult Listening() {
    if (WaitListening(port, *process, std::chrono::seconds(5))) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "nothing accepts on port " << port << "; its log:\n"
                                         << Log() << ReadFileOrEmpty(dir.path() + "/error.log");
  }
};

inline void StartRedis(Peer* p) {
  p->process = std::make_unique<Process>(
      std::vector<std::string>{"redis-server", "--port", std::to_string(p->port), "--bind",
                               "127.0.0.1", "--dir", p->dir.path(), "--save", "",
                               "--appendonly", "no", "--daemonize", "no"},
      p->log_path());
}

inline void StartMemcached(Peer* p) {
  p->process = std::make_unique<Process>(
      std::vector<std::string>{"memcached", "-l", "127.0.0.1", "-p", std::to_string(p->port),
                               "-U", "0", "-m", "64", "-t", "1", "-u", "nobody"},
      p->log_path());
}

// nginx answering every path with `status` (and a small body) and logging every request.
// `default_keepalive`: leave keepalive_requests at nginx's default (1000 responses per
// connection, as Debian's /etc/nginx/nginx.conf does), else make it unlimited. `cpu`: pin
// nginx to that CPU (taskset), -1 for no pinning.
inline void StartNginx(Peer* p, int status = 200, bool default_keepalive = false, int cpu = -1) {
  const std::string& d = p->dir.path();
  std::filesystem::create_directories(d + "/html");
  std::ofstream(d + "/html/index.html") << "hello\n";
  std::ofstream conf(d + "/nginx.conf");
  conf << "daemon off; master_process off; worker_processes 1;\n"
       << "error_log " << d << "/error.log; pid " << d << "/nginx.pid;\n"
       << "events { worker_connections 256; }\n"
       << "http {\n"
       << "  access_log " << d << "/access.log;\n"
       << (default_keepalive ? "  keepalive_timeout 65;\n"  // Debian's nginx.conf
                             : "  keepalive_requests 100000000; keepalive_timeout 60s;\n")
       << "  client_body_temp_path " << d << "/body; proxy_temp_path " << d << "/proxy;\n"
       << "  fastcgi_temp_path " << d << "/fcgi; uwsgi_temp_path " << d << "/uwsgi;\n"
       << "  scgi_temp_path " << d << "/scgi;\n"
       << "  server {\n"
       << "    listen 127.0.0.1:" << p->port << ";\n"
       << "    root " << d << "/html;\n"
       << "    location / { return " << status << " \"item\\n\"; }\n"
       << "  }\n"
       << "}\n";
  conf.close();
  std::vector<std::string> argv = {"nginx", "-p", d, "-c", d + "/nginx.conf"};
  if (cpu >= 0) argv.insert(argv.begin(), {"taskset", "-c", std::to_string(cpu)});
  p->process = std::make_unique<Process>(argv, p->log_path());
}

struct LoadRun {
  CommandOutput cmd;
  nlohmann::json json;  // null when the output held none
};

// `cpu`: run ream pinned to that CPU (taskset), -1 for no pinning.
inline LoadRun RunReamLoad(int port, const std::vector<std::string>& extra,
                    std::chrono::milliseconds timeout,
                    std::chrono::milliseconds during_after = std::chrono::milliseconds(0),
                    const std::function<void()>& during = nullptr, int cpu = -1) {
  std::vector<std::string> argv = {REAM_BINARY, "load", "--target",
                                   "127.0.0.1:" + std::to_string(port), "--json", "-"};
  if (cpu >= 0) argv.insert(argv.begin(), {"taskset", "-c", std::to_string(cpu)});
  argv.insert(argv.end(), extra.begin(), extra.end());
  LoadRun run;
  run.cmd = RunCommand(argv, timeout, during_after, during);
  size_t brace = run.cmd.out.find('{');
  if (brace != std::string::npos) {
    run.json = nlohmann::json::parse(run.cmd.out.substr(brace), nullptr, false);
    if (run.json.is_discarded()) run.json = nullptr;
  }
  return run;
}

inline std::string Describe(const LoadRun& r) {
  return "exit " + std::to_string(r.cmd.exit_code) + (r.cmd.timed_out ? " (timed out)" : "") +
         "\nstderr: " + r.cmd.err + "\nstdout: " + r.cmd.out.substr(0, 3000);
}

// memcached `stats` as a name → value map.
inline std::map<std::string, uint64_t> MemcachedStats(int port) {
  std::map<std::string, uint64_t> stats;
  std::string reply = Exchange(port, "stats\r\n", "END\r\n");
  size_t pos = 0;
  while ((pos = reply.find("STAT ", pos)) != std::string::npos) {
    size_t sp = reply.find(' ', pos + 5);
    size_t eol = reply.find("\r\n", pos);
    if (sp == std::string::npos || eol == std::string::npos || sp > eol) break;
    stats[reply.substr(pos + 5, sp - pos - 5)] =
        std::strtoull(reply.substr(sp + 1, eol - sp - 1).c_str(), nullptr, 10);
    pos = eol;
  }
  return stats;
}

// A Redis command's integer reply (":N"), via redis-cli's raw output.
inline int64_t RedisInteger(int port, const std::vector<std::string>& command) {
  std::vector<std::string> argv = {"redis-cli", "-h", "127.0.0.1", "-p", std::to_string(port)};
  argv.insert(argv.end(), command.begin(), command.end());
  CommandOutput r = RunCommand(argv, std::chrono::seconds(5));
  if (r.exit_code != 0) return -1;
  return std::strtoll(r.out.c_str(), nullptr, 10);
}

// "cmdstat_set:calls=123,..." from INFO commandstats.
inline uint64_t RedisCalls(int port, const std::string& command) {
  CommandOutput r = RunCommand({"redis-cli", "-h", "127.0.0.1", "-p", std::to_string(port),
                                "INFO", "commandstats"},
                               std::chrono::seconds(5));
  std::string key = "cmdstat_" + command + ":calls=";
  size_t at = r.out.find(key);
  if (at == std::string::npos) return 0;
  return std::strtoull(r.out.c_str() + at + key.size(), nullptr, 10);
}

inline constexpr auto kRunTimeout = std::chrono::seconds(30);

// Every request was answered without error. Validity itself is not asserted here: on a busy
// shared machine the generator may miss its schedule (timeliness), which says nothing about
// the protocol; the reasons must then be about timing only, never failed requests.
inline void ExpectNoFailedRequests(const LoadRun& run) {
  EXPECT_EQ(run.json["errors"], 0) << Describe(run);
  EXPECT_EQ(run.json["completed"], run.json["issued"]) << Describe(run);
  std::string reasons = run.json["invalid_reasons"].dump();
  EXPECT_EQ(reasons.find("failed"), std::string::npos) << reasons;
  if (!run.json["valid"].get<bool>()) {
    std::printf("note: run invalid for timing reasons only: %s\n", reasons.c_str());
  }
}

}  // namespace ream::peers_test
