// Aligned plain-text tables for the console output of every subcommand.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ream::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns padded to their widest cell; the last column is not padded.
  void Print(std::ostream& os) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ream::cli
