#include "spec/tenant_places.h"

#include "platform/text.h"
#include "spec/spec.h"

namespace ream {

const std::vector<TenantPlaceRow>& TenantPlaceRows() {
  static const std::vector<TenantPlaceRow> rows = {
      {.name = "process", .what = "a process in a cgroup of its own on this host"},
      {.name = "node",
       .what = "the same in a network namespace of its own, joined to this host by a veth pair",
       .own_network = true},
      {.name = "vm", .what = "a libvirt guest (ream's servers only)", .ream_servers_only = true, .sandbox_kind = "vm"},
      {.name = "ssh",
       .what = "a sandbox the ream agent on HOST makes, over ssh",
       .takes_host = true,
       .needs_address = true,
       .sandbox_kind = "remote"},
  };
  return rows;
}

Result<TenantPlace> ParseTenantPlace(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  std::vector<std::string> known;
  for (const TenantPlaceRow& row : TenantPlaceRows()) {
    known.push_back("\"" + row.name + (row.takes_host ? ":HOST" : "") + "\" (" + row.what + ")");
  }
  for (const TenantPlaceRow& row : TenantPlaceRows()) {
    if (row.name != name || row.takes_host != (colon != std::string::npos)) continue;
    TenantPlace at{&row, row.takes_host ? text.substr(colon + 1) : std::string()};
    if (row.takes_host && (at.host.empty() || at.host.find_first_of(" \t\n'\"") != std::string::npos)) {
      return InvalidArgument("\"" + text + "\" needs a host as ssh reaches it after \"" + row.name + ":\"");
    }
    return at;
  }
  return InvalidArgument("\"" + text + "\" is none of " + Join(known, ", "));
}

TenantPlace SubjectPlace(const ExperimentSpec& spec) {
  // [nodes] workload and [sandbox] kind are the subject's words for the same rows.
  auto where = ParseTenantPlace(spec.nodes.workload_host.empty() ? spec.sandbox.kind
                                                                  : "ssh:" + spec.nodes.workload_host);
  return where.ok() ? *where : TenantPlace{&TenantPlaceRows().front(), ""};
}

}  // namespace ream
