#include "report/assets.h"

#include <strings.h>

#include <nlohmann/json.hpp>

#include "report/reporter.h"

namespace ream::report {

using nlohmann::json;

// and any "</script" is broken so it cannot end the element.
std::string InlineScript(std::string js) {
  for (const char* marker : {"//# sourceMappingURL=", "//@ sourceMappingURL="}) {
    size_t pos;
    while ((pos = js.find(marker)) != std::string::npos) {
      size_t end = js.find('\n', pos);
      js.erase(pos, end == std::string::npos ? std::string::npos : end - pos);
    }
  }
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js[i] == '<' && i + 8 <= js.size() && js[i + 1] == '/' &&
        strncasecmp(js.c_str() + i + 2, "script", 6) == 0) {
      out += "<\\/";
      ++i;  // skip the '/'
      continue;
    }
    out += js[i];
  }
  return out;
}

Result<HtmlAssets> LoadHtmlAssets(Platform& platform, const std::string& node_modules) {
  HtmlAssets a;
  struct Item {
    const char* package;
    const char* file;
    std::string* out;
  };
  Item items[] = {{"vega", "build/vega.min.js", &a.vega},
                  {"vega-lite", "build/vega-lite.min.js", &a.vega_lite},
                  {"vega-embed", "build/vega-embed.min.js", &a.vega_embed}};
  for (const auto& it : items) {
    std::string path = node_modules + "/" + it.package + "/" + it.file;
    auto js = platform.ReadFile(path);
    if (!js.ok()) {
      return NotFound("report asset " + path + " is missing (" + js.status().message() +
                      "); install the chart libraries with scripts/install-deps (npm install "
                      "in report-assets/), or point --assets at a node_modules directory");
    }
    *it.out = std::move(js).value();
    std::string version = "?";
    auto pkg = platform.ReadFile(node_modules + "/" + it.package + "/package.json");
    if (pkg.ok()) {
      auto j = json::parse(*pkg, nullptr, false);
      if (!j.is_discarded() && j.contains("version") && j["version"].is_string()) {
        version = j["version"].get<std::string>();
      }
    }
    a.versions += (a.versions.empty() ? "" : ", ") + std::string(it.package) + " " + version;
  }
  return a;
}

}  // namespace ream::report
