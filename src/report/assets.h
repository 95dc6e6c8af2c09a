// The chart libraries of `ream report`, read from a node_modules directory (LoadHtmlAssets,
// declared in reporter.h) and inlined into the page so that it opens offline.
#pragma once

#include <string>

namespace ream::report {

// A library ready to inline in <script>: its source map comment is dropped (nothing may be
// fetched) and any "</script" is broken so it cannot end the element.
std::string InlineScript(std::string js);

}  // namespace ream::report
