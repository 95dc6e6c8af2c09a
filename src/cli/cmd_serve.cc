// `ream serve synthetic|kv`: ream's built-in servers, speaking ream's protocol.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "platform/poller.h"
#include "workloads/kv.h"
#include "workloads/server.h"
#include "workloads/synthetic.h"

namespace ream::cli {
namespace {

struct ServeFlags {
  std::string bind = "127.0.0.1";
  int port = 0;
  int threads = 1;
  std::string service;
  uint64_t seed = 1;
  uint64_t records = 100000;
  size_t value_bytes = 64;
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

int RunSynthetic(const ServeFlags& f) {
  auto service = ServiceTime::Parse(f.service);
  if (!service.ok()) {
    std::cerr << "ream serve synthetic: " << service.status().message() << "\n";
    return 2;
  }
  ServerOptions o{.bind = f.bind, .port = f.port, .threads = f.threads};
  return Serve("synthetic", o, MakeSyntheticHandlers(*service, f.seed), "service=" + f.service);
}

int RunKv(const ServeFlags& f) {
  if (f.value_bytes > 1024 * 1024) {
    std::cerr << "ream serve kv: --value-bytes must be <= 1048576\n";
    return 2;
  }
  if (f.records > 100'000'000) {
    std::cerr << "ream serve kv: --records must be <= 100000000\n";
    return 2;
  }
  auto store = std::make_shared<KvStore>(f.records, f.value_bytes);
  ServerOptions o{.bind = f.bind, .port = f.port, .threads = f.threads};
  return Serve("kv", o, MakeKvHandlers(store),
               "records=" + std::to_string(f.records) + " value_bytes=" + std::to_string(f.value_bytes));
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandList& commands) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* serve = app.add_subcommand("serve", "Run a built-in server (ream protocol) until SIGINT/SIGTERM");
  serve->require_subcommand(1);
  CLI::App* syn = serve->add_subcommand(
      "synthetic", "Each request busy-spins a service time drawn from --service (calibration workload)");
  AddCommon(syn, *flags);
  syn->add_option("--service", flags->service,
                  "const:20us | exp:100us | lognormal:mean=100us,sigma=1 | bimodal:10us,1ms,p=0.01")
      ->required();
  syn->add_option("--seed", flags->seed, "Seed of the service-time draws")->capture_default_str();
  CLI::App* kv = serve->add_subcommand("kv", "In-memory ordered key-value store: get, set, delete, scan");
  AddCommon(kv, *flags);
  kv->add_option("--records", flags->records, "Records preloaded (keys key0000000000000..)")
      ->capture_default_str();
  kv->add_option("--value-bytes", flags->value_bytes, "Bytes per preloaded value")->capture_default_str();
  commands.push_back({serve, [flags, syn] { return syn->parsed() ? RunSynthetic(*flags) : RunKv(*flags); }});
}

}  // namespace ream::cli
