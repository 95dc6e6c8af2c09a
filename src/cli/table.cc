#include "cli/table.h"

#include <algorithm>

namespace ream::cli {
namespace {
// Display width of UTF-8 text: counts code points, not bytes.
size_t Width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}
}  // namespace

void Table::Print(std::ostream& os) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], Width(row[i]));
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  auto print = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) {
      os << row[i];
      if (i + 1 < row.size()) os << std::string(widths[i] - Width(row[i]) + 2, ' ');
    }
    os << '\n';
  };
  print(header_);
  for (const auto& r : rows_) print(r);
}

}  // namespace ream::cli
