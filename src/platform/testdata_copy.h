// Test helper: a writable copy of a fixture tree under /tmp, removed when it goes out of
// scope (sandbox code creates directories and writes files in it). Tests that write must use
// a copy: ctest runs tests in parallel, and two writing into one source tree see each other.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace ream {

class FixtureCopy {
 public:
  // `name`: a fixture directory under `under` (relative to the source tree).
  explicit FixtureCopy(const std::string& name, const std::string& under = "src/partition/testdata") {
    static int n = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("ream-fixture-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
    std::filesystem::copy(std::string(REAM_SOURCE_DIR) + "/" + under + "/" + name, dir_,
                          std::filesystem::copy_options::recursive);
  }
  ~FixtureCopy() { std::filesystem::remove_all(dir_); }
  std::string root() const { return dir_.string(); }
  std::string Path(const std::string& abs) const { return dir_.string() + abs; }
  void Write(const std::string& abs, const std::string& content) const {
    std::filesystem::create_directories(std::filesystem::path(Path(abs)).parent_path());
    FILE* f = std::fopen(Path(abs).c_str(), "w");
    std::fputs(content.c_str(), f);
    std::fclose(f);
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace ream
