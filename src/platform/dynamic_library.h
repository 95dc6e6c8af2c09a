// Libraries loaded at run time (dlopen): for what only one feature needs, so that ream starts,
// and its vm guest image stays small, without them (libvirt for the vm sandbox).
#pragma once

#include <string>

#include "platform/status.h"

namespace ream {

// dlopen(name, RTLD_NOW | RTLD_LOCAL); NotFound with dlerror()'s message. Never closed.
Result<void*> OpenLibrary(const std::string& name);
// dlsym; NotFound naming the symbol and the library.
Result<void*> LibrarySymbol(void* library, const std::string& library_name, const std::string& symbol);

}  // namespace ream
