#include "sandbox/libvirt_api.h"

#include <mutex>

#include "platform/dynamic_library.h"

namespace ream {

Result<const LibvirtApi*> Libvirt() {
  static std::once_flag once;
  static LibvirtApi api;
  static Status failure;
  std::call_once(once, [] {
    const std::string lib = "libvirt.so.0";
    auto h = OpenLibrary(lib);
    if (!h.ok()) {
      failure = Unavailable(h.status().message() + " (the vm sandbox needs libvirt: Debian's libvirt0, "
                                                    "installed by scripts/install-deps)");
      return;
    }
    auto bind = [&](auto& fn, const char* name) {
      if (!failure.ok()) return;
      auto s = LibrarySymbol(*h, lib, name);
      if (!s.ok()) {
        failure = Unavailable(s.status().message());
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(*s);
    };
    bind(api.SetErrorFunc, "virSetErrorFunc");
    bind(api.GetLastErrorMessage, "virGetLastErrorMessage");
    bind(api.ConnectOpen, "virConnectOpen");
    bind(api.ConnectClose, "virConnectClose");
    bind(api.ConnectGetLibVersion, "virConnectGetLibVersion");
    bind(api.DomainCreateXML, "virDomainCreateXML");
    bind(api.DomainDestroy, "virDomainDestroy");
    bind(api.DomainFree, "virDomainFree");
    bind(api.DomainRef, "virDomainRef");
    bind(api.DomainIsActive, "virDomainIsActive");
    bind(api.DomainListGetStats, "virDomainListGetStats");
    bind(api.DomainStatsRecordListFree, "virDomainStatsRecordListFree");
    bind(api.DomainLookupByName, "virDomainLookupByName");
    bind(api.DomainSave, "virDomainSave");
    bind(api.DomainRestore, "virDomainRestore");
    bind(api.TypedParamsGetULLong, "virTypedParamsGetULLong");
  });
  if (!failure.ok()) return failure;
  return &api;
}

}  // namespace ream
