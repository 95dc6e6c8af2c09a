// mkdir -p and rm -r over the platform's file calls.
#include "workloads/dataset_dir.h"

#include <cstdlib>

namespace ream {

std::string TempBase() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

Status MakeDirs(Platform& p, const std::string& path, std::string* first_created) {
  if (first_created) first_created->clear();
  if (path.empty() || path[0] != '/') return InvalidArgument("'" + path + "' is not an absolute path");
  if (p.IsDirectory(path)) return Status::Ok();
  if (p.Exists(path)) return InvalidArgument(path + " exists and is not a directory");
  std::string prefix;
  for (const std::string& part : Split(path, '/')) {
    prefix += "/" + part;
    if (p.IsDirectory(prefix)) continue;
    Status s = p.MakeDir(prefix);
    if (!s.ok() && s.code() != StatusCode::kAlreadyExists) {
      if (first_created && !first_created->empty()) (void)RemoveTree(p, *first_created);
      return Status(s.code(), "cannot create " + prefix + ": " + s.message());
    }
    if (first_created && first_created->empty() && s.ok()) *first_created = prefix;
  }
  return Status::Ok();
}

Status RemoveTree(Platform& p, const std::string& path) {
  if (!p.Exists(path)) return Status::Ok();
  if (!p.IsDirectory(path)) return p.RemoveFile(path);
  REAM_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, p.ListDir(path));
  for (const DirEntry& e : entries) REAM_RETURN_IF_ERROR(RemoveTree(p, path + "/" + e.name));
  return p.RemoveDir(path);
}

}  // namespace ream
