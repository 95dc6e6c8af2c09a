#include "platform/program_search.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "platform/platform.h"

namespace ream {

bool UserHasAccess(const RunAs& user, unsigned mode, int owner_uid, int owner_gid,
                   unsigned want) {
  if (user.uid == 0) {
    // Root reads and searches anything; it executes a regular file only when some class may.
    if ((want & kAccessExecute) == 0 || S_ISDIR(mode)) return true;
    return (mode & 0111) != 0;
  }
  unsigned granted;
  if (user.uid == owner_uid) {
    granted = (mode >> 6) & 7;
  } else if (user.gid == owner_gid ||
             std::find(user.groups.begin(), user.groups.end(), owner_gid) != user.groups.end()) {
    granted = (mode >> 3) & 7;
  } else {
    granted = mode & 7;
  }
  return (granted & want) == want;
}

namespace {

std::string Octal(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// Why `user` cannot reach `path`'s file through its directories (each from / down must be
// searchable); nullopt when it can. Also the reason the path could not be examined.
std::optional<std::string> UnreachableDir(const RunAs& user, const std::string& path) {
  std::string dir = "/";
  size_t pos = 1;
  while (true) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return dir + ": " + std::strerror(errno);
    if (!UserHasAccess(user, st.st_mode, static_cast<int>(st.st_uid), static_cast<int>(st.st_gid),
                       kAccessExecute)) {
      return user.name + " may not search " + dir + " (mode " + Octal(st.st_mode) + ", owner uid " +
             std::to_string(st.st_uid) + ")";
    }
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) return std::nullopt;  // what is left is the file's name
    dir = path.substr(0, slash);
    pos = slash + 1;
  }
}

bool IsElf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  bool elf = ::pread(fd, magic, 4, 0) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
  ::close(fd);
  return elf;
}

// Why `user` cannot run `candidate`; nullopt when it can. NotFound-like absence is "".
std::optional<std::string> WhyNot(const RunAs& user, const std::string& candidate) {
  struct stat st {};
  if (::stat(candidate.c_str(), &st) != 0) return std::string();  // absent: not worth a word
  if (!S_ISREG(st.st_mode)) return std::string();
  const int uid = static_cast<int>(st.st_uid), gid = static_cast<int>(st.st_gid);
  // PosixSpawn executes an ELF file from a descriptor ream opened, but the user's own exec of a
  // script needs the file readable (its interpreter opens it by name).
  const unsigned want = IsElf(candidate) ? kAccessExecute : kAccessExecute | kAccessRead;
  if (!UserHasAccess(user, st.st_mode, uid, gid, want)) {
    return user.name + " may not " + (want & kAccessRead ? "read and execute" : "execute") +
           " it (mode " + Octal(st.st_mode) + ", owner uid " + std::to_string(uid) + ")";
  }
  if (auto why = UnreachableDir(user, candidate)) return why;
  // A symbolic link along the way (a PATH entry such as /bin, the file itself) must be
  // followed by the user too: judge the path it leads to as well.
  char real[PATH_MAX];
  if (::realpath(candidate.c_str(), real) != nullptr && candidate != real) {
    if (auto why = UnreachableDir(user, real)) return *why + ", on the way to " + real;
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> FindProgramAsUser(const std::string& name, const RunAs& user,
                                      const std::string& path_env) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return InvalidArgument("'" + name + "' is not a program name to search for in PATH");
  }
  std::vector<std::string> dirs = Split(path_env, ':');
  for (const auto& d : Split(kStandardProgramDirs, ':')) {
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  std::vector<std::string> skipped;
  for (std::string dir : dirs) {
    if (dir.empty() || dir[0] != '/') continue;  // a relative entry depends on the working dir
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    const std::string candidate = (dir == "/" ? "" : dir) + "/" + name;
    auto why = WhyNot(user, candidate);
    if (!why) return candidate;
    if (!why->empty()) skipped.push_back(candidate + ": " + *why);
  }
  std::string m = "program '" + name + "' is not found for user " + user.name + " (uid " +
                  std::to_string(user.uid) + "), who runs the workload: searched PATH=" +
                  path_env + " and then " + kStandardProgramDirs;
  for (const auto& s : skipped) m += "; skipped " + s;
  m += ". Run it as root (--user root, or [workload] user = \"root\"), or give the program's "
       "absolute path";
  return NotFound(m);
}

}  // namespace ream
