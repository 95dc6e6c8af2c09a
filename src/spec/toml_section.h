// Reading one TOML table of the experiment spec: typed getters whose errors name the key and
// its line ("x.toml:12: load.connections must be an integer"), and a check that reports keys
// nobody asked for, with the closest known key as a suggestion ("did you mean ...?").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "platform/status.h"

namespace ream {

// "5s", "250ms", "20us", "1m", or a bare number of seconds. InvalidArgument otherwise.
Result<std::chrono::nanoseconds> ParseSpecDuration(const std::string& s);

// The number of single-character edits turning `a` into `b` (Levenshtein).
size_t EditDistance(const std::string& a, const std::string& b);

// One table of the spec. `name` is its dotted path ("load", "partitions.set"; "" for the top
// level), used in messages; `known` lists the keys it accepts, for Unknown(). Each getter
// leaves `*out` unchanged when the key is absent (so the default stands) and returns
// InvalidArgument naming the key and its line when the value has the wrong type or range.
class TomlSection {
 public:
  TomlSection(const toml::table& t, std::string name, std::string source, std::vector<std::string> known)
      : t_(t), name_(std::move(name)), source_(std::move(source)), known_(std::move(known)) {}

  // "x.toml:12" for a node of this table.
  std::string Where(const toml::node& n) const;
  // "load.duration" for "duration" in [load].
  std::string KeyName(const std::string& key) const;
  // InvalidArgument "x.toml:12: load.duration <what>".
  Status Error(const toml::node& n, const std::string& key, const std::string& what) const;
  const toml::node* Get(const std::string& key) const { return t_.get(key); }
  // The line of `key`, or of the table when the key is absent.
  int Line(const std::string& key) const;

  // The first key not in `known`, as an error with a suggestion; Ok when there is none.
  Status Unknown() const;

  Status String(const std::string& key, std::string* out) const;
  Status Int(const std::string& key, int64_t* out, int64_t min, int64_t max) const;
  Status Int(const std::string& key, int* out, int64_t min, int64_t max) const;
  // A number (integer or float) within [min, max].
  Status Number(const std::string& key, double* out, double min, double max) const;
  Status Bool(const std::string& key, bool* out) const;
  // A duration text ("250ms") or a number of seconds, within [min, max].
  template <typename Dur>
  Status Duration(const std::string& key, Dur* out, Dur min, Dur max) const {
    std::chrono::nanoseconds d{0};
    REAM_RETURN_IF_ERROR(DurationNs(key, &d, std::chrono::duration_cast<std::chrono::nanoseconds>(min),
                                    std::chrono::duration_cast<std::chrono::nanoseconds>(max)));
    if (Get(key)) *out = std::chrono::duration_cast<Dur>(d);
    return Status::Ok();
  }
  // An array of strings; `lines` (optional) receives each element's line.
  Status StringList(const std::string& key, std::vector<std::string>* out,
                    std::vector<int>* lines = nullptr) const;
  // A string that must be one of `options`.
  Status OneOf(const std::string& key, std::string* out, const std::vector<std::string>& options) const;
  // The sub-table `key`, nullptr when absent; sets `*error` when `key` is not a table.
  const toml::table* Table(const std::string& key, Status* error) const;
  const toml::table& table() const { return t_; }
  const std::string& source() const { return source_; }

 private:
  Status DurationNs(const std::string& key, std::chrono::nanoseconds* out, std::chrono::nanoseconds min,
                    std::chrono::nanoseconds max) const;
  std::string Join() const;

  const toml::table& t_;
  std::string name_;
  std::string source_;
  std::vector<std::string> known_;
};

}  // namespace ream
