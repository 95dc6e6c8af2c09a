// ELF inspection for LD_PRELOAD and dlsym lookups (platform/executable.h).
#include "platform/executable.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ream {
namespace {

bool ReadAt(int fd, void* dst, size_t n, off_t at) {
  return ::pread(fd, dst, n, at) == static_cast<ssize_t>(n);
}

// Whether the ELF file on `fd` has a PT_INTERP program header.
template <typename Ehdr, typename Phdr>
Result<bool> HasInterp(int fd, const std::string& path) {
  Ehdr eh;
  if (!ReadAt(fd, &eh, sizeof eh, 0)) return IoError(path + ": truncated ELF header");
  if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum > 4096) {
    return IoError(path + ": unexpected ELF program header table");
  }
  std::vector<Phdr> ph(eh.e_phnum);
  if (!ph.empty() && !ReadAt(fd, ph.data(), ph.size() * sizeof(Phdr), static_cast<off_t>(eh.e_phoff))) {
    return IoError(path + ": truncated ELF program headers");
  }
  for (const auto& h : ph) {
    if (h.p_type == PT_INTERP) return true;
  }
  return false;
}

}  // namespace

Result<ExecutableInfo> InspectExecutable(const std::string& path) {
  ExecutableInfo info;
  info.path = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat " + path);
  info.set_id = (st.st_mode & (S_ISUID | S_ISGID)) != 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open " + path);
  unsigned char ident[EI_NIDENT] = {};
  Result<ExecutableInfo> out = info;
  ssize_t n = ::pread(fd, ident, sizeof ident, 0);
  if (n >= 2 && ident[0] == '#' && ident[1] == '!') {
    char line[256] = {};
    ssize_t m = ::pread(fd, line, sizeof line - 1, 2);
    std::string s(line, m > 0 ? static_cast<size_t>(m) : 0);
    s = s.substr(0, s.find('\n'));
    size_t b = s.find_first_not_of(" \t");
    s = b == std::string::npos ? "" : s.substr(b);
    info.interpreter = s.substr(0, s.find_first_of(" \t"));
    out = info;
  } else if (n == EI_NIDENT && std::memcmp(ident, ELFMAG, SELFMAG) == 0) {
    info.elf = true;
    Result<bool> interp = ident[EI_CLASS] == ELFCLASS64 ? HasInterp<Elf64_Ehdr, Elf64_Phdr>(fd, path)
                                                         : HasInterp<Elf32_Ehdr, Elf32_Phdr>(fd, path);
    if (interp.ok()) {
      info.dynamic = *interp;
      out = info;
    } else {
      out = interp.status();
    }
  }
  ::close(fd);
  return out;
}

void* FindLoadedSymbol(const char* name) { return ::dlsym(RTLD_DEFAULT, name); }

}  // namespace ream
