#include "platform/dynamic_library.h"

#include <dlfcn.h>

namespace ream {

Result<void*> OpenLibrary(const std::string& name) {
  void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    return NotFound("cannot load " + name + ": " + (e ? e : "unknown error"));
  }
  return h;
}

Result<void*> LibrarySymbol(void* library, const std::string& library_name, const std::string& symbol) {
  ::dlerror();
  void* s = ::dlsym(library, symbol.c_str());
  if (!s) {
    const char* e = ::dlerror();
    return NotFound(library_name + " has no symbol " + symbol + (e ? std::string(": ") + e : ""));
  }
  return s;
}

}  // namespace ream
