#include "report/html_util.h"

#include "report/reporter.h"

namespace ream::report {

using nlohmann::json;

std::string Esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string ScriptJson(const json& j) {
  std::string s = j.dump();
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '<') {
      o += "\\u003c";
    } else {
      o += c;
    }
  }
  return o;
}

std::string JsonNumber(double v) { return json(v).dump(); }

std::string Fig(const std::string& metric, const std::optional<double>& v, const std::string& group,
                const std::string& prefix) {
  std::string attrs = " data-metric=\"" + Esc(metric) + "\"";
  if (!group.empty()) attrs += " data-group=\"" + Esc(group) + "\"";
  if (!v) return "<span" + attrs + " data-value=\"null\">—</span>";
  return "<span" + attrs + " data-value=\"" + JsonNumber(*v) + "\">" + Esc(prefix) +
         FormatNumber(*v) + "</span>";
}

}  // namespace ream::report
