// Reply bytes made safe to quote in an error message, shared by the client codecs.
#pragma once

#include <string>
#include <string_view>

namespace ream {

// At most `max` bytes of `s`, control and non-ASCII bytes escaped as \xNN, "..." when cut.
std::string Printable(std::string_view s, size_t max = 64);

}  // namespace ream
