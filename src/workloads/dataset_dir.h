// Directories the data-generating workloads (sphinx, rocksdb) create for their data sets, and
// where the workloads' temporary files go,
// through the platform: made with their parents, and removed whole when generation fails so
// a bad parameter leaves nothing behind.
#pragma once

#include <string>

#include "platform/platform.h"
#include "platform/status.h"

namespace ream {

// mkdir -p: creates `path` and its missing parents. *first_created (optional) is the
// outermost directory this call created ("" when `path` existed), for RemoveTree on failure. The platform's error (PermissionDenied, IoError with "Read-only file
// system", ...) annotated with the path otherwise; a path that exists as a file is
// InvalidArgument.
Status MakeDirs(Platform& platform, const std::string& path, std::string* first_created = nullptr);

// Where a workload puts its temporary files: $TMPDIR (the sandbox's private directory, removed
// with it even when the server is killed outright) when set, else /tmp.
std::string TempBase();

// rm -r: removes `path` (a file or a directory and everything under it). Ok when absent.
Status RemoveTree(Platform& platform, const std::string& path);

}  // namespace ream
