// The small pieces of HTML every part of `ream report`'s page uses: escaping, JSON that is safe
// inside <script>, and a figure carrying the exact number `ream analyze --json` prints.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ream::report {

// Text escaped for HTML content and attribute values.
std::string Esc(const std::string& s);
// JSON safe inside <script>: '<' only occurs inside strings, where \u003c means the same.
std::string ScriptJson(const nlohmann::json& j);
// The exact number `ream analyze --json` prints for this value.
std::string JsonNumber(double v);
// <span data-metric data-value> around a figure, "—" (data-value null) when there is none.
std::string Fig(const std::string& metric, const std::optional<double>& v,
                const std::string& group = "", const std::string& prefix = "");

}  // namespace ream::report
