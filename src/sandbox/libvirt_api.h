// libvirt's C API, loaded at run time (libvirt.so.0): the vm sandbox needs it, nothing else
// does, so ream starts on a host without libvirt and its guest image carries none of it.
// The types are libvirt's own headers' (libvirt-dev at build time).
#pragma once

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "platform/status.h"

namespace ream {

struct LibvirtApi {
  decltype(&::virSetErrorFunc) SetErrorFunc;
  decltype(&::virGetLastErrorMessage) GetLastErrorMessage;
  decltype(&::virConnectOpen) ConnectOpen;
  decltype(&::virConnectClose) ConnectClose;
  decltype(&::virConnectGetLibVersion) ConnectGetLibVersion;
  decltype(&::virDomainCreateXML) DomainCreateXML;
  decltype(&::virDomainDestroy) DomainDestroy;
  decltype(&::virDomainFree) DomainFree;
  decltype(&::virDomainRef) DomainRef;
  decltype(&::virDomainIsActive) DomainIsActive;
  decltype(&::virDomainListGetStats) DomainListGetStats;
  decltype(&::virDomainStatsRecordListFree) DomainStatsRecordListFree;
  decltype(&::virDomainLookupByName) DomainLookupByName;
  decltype(&::virDomainSave) DomainSave;
  decltype(&::virDomainRestore) DomainRestore;
  decltype(&::virTypedParamsGetULLong) TypedParamsGetULLong;
};

// Loads the library once; the same table (or the same reason) every call after.
Result<const LibvirtApi*> Libvirt();

}  // namespace ream
