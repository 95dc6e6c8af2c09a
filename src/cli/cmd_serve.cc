// `ream serve NAME`: ream's built-in servers (workloads/builtins.h), speaking ream's protocol.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "platform/poller.h"
#include "workloads/builtins.h"
#include "workloads/server.h"

namespace ream::cli {
namespace {

struct ServeFlags {
  std::string bind = "127.0.0.1";
  int port = 0;
  int threads = 1;
};

void AddCommon(CLI::App* sub, ServeFlags& f) {
  sub->add_option("--port", f.port, "TCP port to listen on; 0 picks a free one (printed)")
      ->capture_default_str();
  sub->add_option("--threads", f.threads, "Worker threads")->capture_default_str();
  sub->add_option("--bind", f.bind, "IPv4 address to listen on (0.0.0.0 inside a network namespace)")
      ->capture_default_str();
}

// Starts the server, prints the readiness line, serves until SIGINT/SIGTERM.
int Serve(const char* what, const ServerOptions& options, HandlerFactory factory, const std::string& detail) {
  auto signals = net::BlockTerminationSignals();
  if (!signals.ok()) {
    std::cerr << "ream serve " << what << ": " << signals.status().message() << "\n";
    return 1;
  }
  auto server = Server::Start(options, std::move(factory));
  if (!server.ok()) {
    std::cerr << "ream serve " << what << ": " << server.status().message() << "\n";
    return ExitCodeFor(server.status());
  }
  // The readiness line: the first line on stdout, "ready HOST:PORT ...".
  std::printf("ready %s:%d protocol=ream server=%s threads=%d %s\n", options.bind.c_str(),
              (*server)->port(), what, options.threads, detail.c_str());
  std::fflush(stdout);
  Status s = ServeUntilSignalled(**server, signals->get());
  if (!s.ok()) {
    std::cerr << "ream serve " << what << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

// A builtin that runs a server of its own (stream's nginx): started, announced with the same
// readiness line, stopped at SIGINT/SIGTERM or reported when it dies first.
int ServeExternal(const BuiltinWorkload& w, const ServerOptions& options, const WorkloadServer& made) {
  auto signals = net::BlockTerminationSignals();
  if (!signals.ok()) {
    std::cerr << "ream serve " << w.name << ": " << signals.status().message() << "\n";
    return 1;
  }
  auto server = made.external(options);
  if (!server.ok()) {
    std::cerr << "ream serve " << w.name << ": " << server.status().message() << "\n";
    return ExitCodeFor(server.status());
  }
  std::printf("ready %s:%d protocol=%s server=%s threads=%d %s\n", options.bind.c_str(), (*server)->port(),
              w.protocol.c_str(), w.name.c_str(), options.threads, made.detail.c_str());
  std::fflush(stdout);
  auto poller = net::Poller::Create();
  if (!poller.ok() || !poller->Add(signals->get(), EPOLLIN, 1).ok()) {
    (void)(*server)->Stop();
    std::cerr << "ream serve " << w.name << ": cannot wait for signals\n";
    return 1;
  }
  while (true) {
    epoll_event ev[1];
    auto n = poller->Wait(ev, 1, 200'000'000);
    if (n.ok() && *n > 0) break;  // SIGINT / SIGTERM
    if (auto exited = (*server)->Exited()) {
      std::cerr << "ream serve " << w.name << ": " << *exited << "\n";
      (void)(*server)->Stop();
      return 1;
    }
  }
  Status s = (*server)->Stop();
  if (!s.ok()) {
    std::cerr << "ream serve " << w.name << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

// One built-in workload of the table: its options' texts (defaults filled in) make its server.
int RunBuiltin(const BuiltinWorkload& w, const ServeFlags& f, const std::map<std::string, std::string>& values) {
  auto made = w.make(values);
  if (!made.ok()) {
    std::cerr << "ream serve " << w.name << ": " << made.status().message() << "\n";
    return ExitCodeFor(made.status());
  }
  ServerOptions o{.bind = f.bind, .port = f.port, .threads = f.threads};
  if (made->external) return ServeExternal(w, o, *made);
  return Serve(w.name.c_str(), o, std::move(made->handlers), made->detail);
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandList& commands) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* serve = app.add_subcommand("serve", "Run a built-in server (ream protocol; stream: nginx over HTTP) until SIGINT/SIGTERM");
  serve->require_subcommand(1);
  // One subcommand per entry of the workload table (workloads/builtins.h), with its own options.
  struct Entry {
    const BuiltinWorkload* workload;
    CLI::App* sub;
    std::shared_ptr<std::map<std::string, std::string>> values;
  };
  auto entries = std::make_shared<std::vector<Entry>>();
  for (const BuiltinWorkload& w : BuiltinWorkloads().all()) {
    CLI::App* sub = serve->add_subcommand(w.name, w.help);
    AddCommon(sub, *flags);
    auto values = std::make_shared<std::map<std::string, std::string>>();
    for (const WorkloadOption& o : w.options) {
      (*values)[o.flag] = o.default_value;
      CLI::Option* opt = sub->add_option(o.flag, (*values)[o.flag], o.help);
      if (o.required) opt->required();
      else opt->capture_default_str();
    }
    entries->push_back({&w, sub, values});
  }
  commands.push_back({serve, [flags, entries] {
                        for (const Entry& e : *entries) {
                          if (e.sub->parsed()) return RunBuiltin(*e.workload, *flags, *e.values);
                        }
                        return kExitBadInput;
                      }});
}

}  // namespace ream::cli
