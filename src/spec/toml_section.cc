// The spec's TOML reader: typed getters, error messages with the key's line, unknown keys.
#include "spec/toml_section.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ream {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

Result<std::chrono::nanoseconds> ParseSpecDuration(const std::string& text) {
  std::string s = text;
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  if (s.empty()) return InvalidArgument("is an empty duration");
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) {
    return InvalidArgument("'" + text + "' is not a duration (examples: \"5s\", \"250ms\", \"20us\")");
  }
  // The rest of the text, NULs included ("5s\0x" is not "5s").
  std::string unit = s.substr(static_cast<size_t>(end - s.c_str()));
  double ns_per = 0;
  if (unit.empty() || unit == "s") ns_per = 1e9;
  else if (unit == "ms") ns_per = 1e6;
  else if (unit == "us" || unit == "µs") ns_per = 1e3;
  else if (unit == "ns") ns_per = 1;
  else if (unit == "m" || unit == "min") ns_per = 60e9;
  else if (unit == "h") ns_per = 3600e9;
  else return InvalidArgument("'" + text + "' has an unknown unit '" + unit + "' (use ns, us, ms, s, m or h)");
  if (v < 0) return InvalidArgument("'" + text + "' is negative");
  // Past int64 nanoseconds (~292 years) llround has no answer (it gave a negative duration:
  // found by fuzz/spec_fuzzer).
  if (v * ns_per > 9.0e18) return InvalidArgument("'" + text + "' is too long a duration");
  return std::chrono::nanoseconds(static_cast<int64_t>(std::llround(v * ns_per)));
}

std::string TomlSection::Where(const toml::node& n) const {
  return source_ + ":" + std::to_string(n.source().begin.line);
}

std::string TomlSection::KeyName(const std::string& key) const {
  return name_.empty() ? key : name_ + "." + key;
}

Status TomlSection::Error(const toml::node& n, const std::string& key, const std::string& what) const {
  return InvalidArgument(Where(n) + ": " + KeyName(key) + " " + what);
}

int TomlSection::Line(const std::string& key) const {
  auto* n = t_.get(key);
  return n ? static_cast<int>(n->source().begin.line) : static_cast<int>(t_.source().begin.line);
}

Status TomlSection::Unknown() const {
  for (auto&& [k, v] : t_) {
    std::string key(k.str());
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string best;
    size_t best_d = 3;
    for (const auto& cand : known_) {
      size_t d = EditDistance(key, cand);
      if (d < best_d) best_d = d, best = cand;
    }
    std::string msg = source_ + ":" + std::to_string(k.source().begin.line) +
                      ": unknown key '" + KeyName(key) + "'";
    msg += best.empty() ? " (known keys" + std::string(name_.empty() ? "" : " in [" + name_ + "]") + ": " + Join() + ")"
                        : " (did you mean '" + KeyName(best) + "'?)";
    return InvalidArgument(msg);
  }
  return Status::Ok();
}

Status TomlSection::String(const std::string& key, std::string* out) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_string()) return Error(*n, key, "must be a string");
  *out = n->value<std::string>().value();
  return Status::Ok();
}

Status TomlSection::Int(const std::string& key, int64_t* out, int64_t min, int64_t max) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_integer()) return Error(*n, key, "must be an integer");
  int64_t v = n->value<int64_t>().value();
  if (v < min || v > max) {
    return Error(*n, key, "is " + std::to_string(v) + "; it must be between " +
                              std::to_string(min) + " and " + std::to_string(max));
  }
  *out = v;
  return Status::Ok();
}

Status TomlSection::Int(const std::string& key, int* out, int64_t min, int64_t max) const {
  int64_t v = *out;
  REAM_RETURN_IF_ERROR(Int(key, &v, min, max));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status TomlSection::Number(const std::string& key, double* out, double min, double max) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_number()) return Error(*n, key, "must be a number");
  double v = n->is_integer() ? static_cast<double>(n->value<int64_t>().value())
                             : n->value<double>().value();
  if (!std::isfinite(v) || v < min || v > max) {
    std::ostringstream m;
    m << "is " << v << "; it must be between " << min << " and " << max;
    return Error(*n, key, m.str());
  }
  *out = v;
  return Status::Ok();
}

Status TomlSection::Bool(const std::string& key, bool* out) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_boolean()) return Error(*n, key, "must be true or false");
  *out = n->value<bool>().value();
  return Status::Ok();
}

Status TomlSection::DurationNs(const std::string& key, std::chrono::nanoseconds* out, std::chrono::nanoseconds min,
                           std::chrono::nanoseconds max) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  std::string text;
  if (n->is_string()) {
    text = n->value<std::string>().value();
  } else if (n->is_number()) {
    double s = n->is_integer() ? static_cast<double>(n->value<int64_t>().value())
                               : n->value<double>().value();
    text = std::to_string(s);
  } else {
    return Error(*n, key, "must be a duration such as \"5s\", \"250ms\" or \"20us\"");
  }
  auto d = ParseSpecDuration(text);
  if (!d.ok()) return Error(*n, key, d.status().message());
  if (*d < min || *d > max) {
    return Error(*n, key, "is " + text + "; it must be between " +
                              std::to_string(std::chrono::duration<double>(min).count()) +
                              " s and " +
                              std::to_string(std::chrono::duration<double>(max).count()) + " s");
  }
  *out = *d;
  return Status::Ok();
}

Status TomlSection::StringList(const std::string& key, std::vector<std::string>* out,
                           std::vector<int>* lines) const {
  auto* n = Get(key);
  if (!n) return Status::Ok();
  const toml::array* a = n->as_array();
  if (!a) return Error(*n, key, "must be an array of strings");
  out->clear();
  for (const auto& e : *a) {
    if (!e.is_string()) return Error(e, key, "must contain only strings");
    out->push_back(e.value<std::string>().value());
    if (lines) lines->push_back(static_cast<int>(e.source().begin.line));
  }
  return Status::Ok();
}

Status TomlSection::OneOf(const std::string& key, std::string* out, const std::vector<std::string>& options) const {
  REAM_RETURN_IF_ERROR(String(key, out));
  if (Get(key) && std::find(options.begin(), options.end(), *out) == options.end()) {
    std::string o;
    for (const auto& s : options) o += (o.empty() ? "" : ", ") + ("\"" + s + "\"");
    return Error(*Get(key), key, "is \"" + *out + "\"; it must be one of " + o);
  }
  return Status::Ok();
}

const toml::table* TomlSection::Table(const std::string& key, Status* error) const {
  auto* n = Get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    *error = Error(*n, key, "must be a table ([" + KeyName(key) + "])");
    return nullptr;
  }
  return n->as_table();
}

std::string TomlSection::Join() const {
  std::string s;
  for (const auto& k : known_) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace ream
