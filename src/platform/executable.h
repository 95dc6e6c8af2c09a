// What the dynamic loader will do with a program and with this process: whether an executable
// can take a preloaded library (LD_PRELOAD needs a dynamically linked, non-setuid program), and
// the symbols a preloaded library exports to the process it is in. Real-machine only, like
// platform/net.h: nothing here has a fake.
#pragma once

#include <string>

#include "platform/status.h"

namespace ream {

struct ExecutableInfo {
  std::string path;         // as inspected
  bool elf = false;         // an ELF file (else a script, with `interpreter`, or something else)
  bool dynamic = false;     // ELF with a PT_INTERP header: ld.so runs it and honours LD_PRELOAD
  bool set_id = false;      // setuid or setgid: ld.so ignores LD_PRELOAD (secure-execution mode)
  std::string interpreter;  // a "#!" script's interpreter, as written ("" otherwise)
};

// Reads `path`'s ELF header and program headers (or its "#!" line) and its mode bits. NotFound
// when it does not exist, IoError when it cannot be read.
Result<ExecutableInfo> InspectExecutable(const std::string& path);

// The address of `name` among the objects loaded in this process (a library LD_PRELOADed into
// it, say), nullptr when none exports it.
void* FindLoadedSymbol(const char* name);

}  // namespace ream
