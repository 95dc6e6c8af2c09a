// Finding a workload's program the way the user it runs as would find it. ream runs as root, and
// root's PATH may list first a directory only root can enter (a per-user shim such as pyenv's
// under /root): found there, the program then fails to start as the unprivileged workload user
// ("exec: Permission denied") although /usr/bin has it. access(2) answers for root, so the
// search here judges each directory's and file's permission bits against the user's uid and
// groups instead.
#pragma once

#include <string>

#include "platform/process.h"
#include "platform/status.h"

namespace ream {

// Searched after PATH, in this order (a login shell's default PATH, root's tools included).
inline constexpr char kStandardProgramDirs[] =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Access bits as in a file mode's classes.
inline constexpr unsigned kAccessRead = 4;
inline constexpr unsigned kAccessExecute = 1;  // search, for a directory

// Whether `user` has every access in `want` to a file of `mode` owned by `owner_uid` and
// `owner_gid`, by the permission bits alone (ACLs and capabilities aside): the owner's class
// when the user owns it, else the group's when one of the user's groups owns it, else the
// others' — the first class that applies decides, as in the kernel. Root may read and search
// anything, and execute a file that has an execute bit in any class.
bool UserHasAccess(const RunAs& user, unsigned mode, int owner_uid, int owner_gid,
                   unsigned want);

// The absolute path at which `user` would find `name` (which has no '/'): the first entry of
// `path_env` (a PATH value), then of kStandardProgramDirs, holding a regular file that the user
// may execute (and read, unless it is an ELF binary: a script's interpreter reads it as the
// user) in a directory the user may reach (search permission on it and each directory above
// it, also along the path a symbolic link leads to). Relative entries are skipped.
// NotFound naming the program, the user, the directories searched, each candidate skipped with
// the reason, and the fix (`--user root`, or the program's absolute path).
Result<std::string> FindProgramAsUser(const std::string& name, const RunAs& user,
                                      const std::string& path_env);

}  // namespace ream
