// `ream relay`: the in-path relay of the LogGP knobs L, g and G (relay/relay.h), between a
// client and a server, until SIGINT/SIGTERM. The runner starts it beside the workload when one
// of these knobs is set; `ream exec --net-latency ...` does too.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "partition/spec.h"
#include "platform/affinity.h"
#include "platform/platform.h"
#include "platform/net.h"
#include "platform/poller.h"
#include "relay/relay.h"

namespace ream::cli {
namespace {

struct RelayFlags {
  std::string listen = "127.0.0.1:0";
  std::string to;
  std::string latency = "0", gap = "0", per_byte = "0";
  std::string protocol;  // framing; "" = chunks
  std::string cpus;
  std::string spin = "30us";
};

int RunRelay(const RelayFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "ream relay: " << s.message() << "\n";
    return ExitCodeFor(s);
  };
  relay::RelayOptions o;
  // HOST:PORT, port 0 allowed (the kernel picks; ParseHostPort wants 1..65535).
  size_t colon = f.listen.rfind(':');
  char* end = nullptr;
  long port = colon == std::string::npos ? -1 : std::strtol(f.listen.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || end == f.listen.c_str() + colon + 1 || *end != '\0' || port < 0 || port > 65535) {
    return fail(InvalidArgument("--listen: '" + f.listen + "' is not HOST:PORT"));
  }
  o.listen_host = f.listen.substr(0, colon);
  if (o.listen_host.size() > 2 && o.listen_host.front() == '[') o.listen_host = o.listen_host.substr(1, o.listen_host.size() - 2);
  o.listen_port = static_cast<int>(port);
  auto to = net::ParseHostPort(f.to);
  if (!to.ok()) return fail(InvalidArgument("--to: " + to.status().message()));
  o.to_host = to->host;
  o.to_port = to->port;
  struct Knob {
    const char* flag;
    const std::string& text;
    int64_t* into;
  };
  int64_t spin = 0;
  for (const Knob& k : {Knob{"--latency", f.latency, &o.params.latency_ns}, Knob{"--gap", f.gap, &o.params.gap_ns},
                        Knob{"--per-byte", f.per_byte, &o.params.per_byte_ns}, Knob{"--spin", f.spin, &spin}}) {
    if (!k.text.empty() && k.text[0] == '-') return fail(InvalidArgument(std::string(k.flag) + " must not be negative"));
    auto d = ParseDuration(k.text);
    if (!d.ok()) return fail(InvalidArgument(std::string(k.flag) + ": " + d.status().message()));
    *k.into = d->count();
  }
  o.spin_ns = spin;
  o.framing = relay::FramingFor(f.protocol);
  if (!f.cpus.empty()) {
    auto cpus = ParseCpuList(f.cpus);
    if (!cpus.ok()) return fail(InvalidArgument("--cpus: " + cpus.status().message()));
    Status s = SetThisThreadAffinity(*cpus);
    if (!s.ok()) return fail(s.Annotate("--cpus " + f.cpus));
  }
  auto signals = net::BlockTerminationSignals();
  if (!signals.ok()) return fail(signals.status());
  auto r = relay::Relay::Create(o);
  if (!r.ok()) return fail(r.status());
  // The readiness line: the first line on stdout.
  std::printf("ream-relay ready %s to=%s latency_ns=%lld gap_ns=%lld per_byte_ns=%lld method=\"%s\"\n",
              net::JoinHostPort(o.listen_host, (*r)->port()).c_str(), f.to.c_str(),
              static_cast<long long>(o.params.latency_ns), static_cast<long long>(o.params.gap_ns),
              static_cast<long long>(o.params.per_byte_ns), relay::RelayMethod(f.protocol).c_str());
  std::fflush(stdout);
  Status s = (*r)->Run(signals->get());
  const relay::RelayStats& st = (*r)->stats();
  std::printf("ream-relay stats connections=%lld to_server=%lld/%lldB to_client=%lld/%lldB late=%lld max_late_ns=%lld stamped_reads=%lld\n",
              static_cast<long long>(st.connections), static_cast<long long>(st.messages_to_server),
              static_cast<long long>(st.bytes_to_server), static_cast<long long>(st.messages_to_client),
              static_cast<long long>(st.bytes_to_client), static_cast<long long>(st.late_departures),
              static_cast<long long>(st.max_late_ns), static_cast<long long>(st.stamped_reads));
  std::fflush(stdout);
  if (!s.ok()) return fail(s);
  return 0;
}

}  // namespace

void AddRelayCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<RelayFlags>();
  CLI::App* sub = app.add_subcommand(
      "relay", "Forward TCP connections adding LogGP latency, gap and per-byte time (until SIGINT/SIGTERM)");
  sub->add_option("--listen", f->listen, "HOST:PORT to accept on (port 0: a free one, printed)")->capture_default_str();
  sub->add_option("--to", f->to, "HOST:PORT of the server")->required();
  sub->add_option("--latency", f->latency, "L: one-way delay added to every message, both directions (200us)")
      ->capture_default_str();
  sub->add_option("--gap", f->gap, "g: minimum interval between consecutive messages on a connection")
      ->capture_default_str();
  sub->add_option("--per-byte", f->per_byte, "G: time per byte (8ns = 125 MB/s)")->capture_default_str();
  sub->add_option("--protocol", f->protocol,
                  "Split the streams into this protocol's messages (ream); otherwise each read is a message");
  sub->add_option("--cpus", f->cpus, "Pin the relay to these CPUs (0,2-3)");
  sub->add_option("--spin", f->spin, "Spin (rather than sleep) this long before each departure")->capture_default_str();
  commands.push_back({sub, [f] { return RunRelay(*f); }});
}

}  // namespace ream::cli
