// Exports a results store to files: CSV (experiments.csv, runs.csv, points.csv), JSON (one
// document with experiments → environment, runs → points), and HdrHistogram interchange logs
// (one .hlog per run and histogram kind, one interval per load level, tagged with its QPS).
// Produces file contents only; the caller writes them (through the Platform).
#pragma once

#include <map>
#include <string>

#include "store/store.h"

namespace ream {

enum class ExportFormat { kCsv, kJson, kHdrLog };
// "csv", "json", "hdrlog"; InvalidArgument naming the choices otherwise.
Result<ExportFormat> ParseExportFormat(const std::string& name);

// relative file name → contents. `experiment` empty: every experiment; otherwise NotFound
// when the database has no such experiment.
Result<std::map<std::string, std::string>> ExportStore(Store& store, ExportFormat format,
                                                       const std::string& experiment);

// The whole content of one experiment as JSON (also what --format json writes per experiment).
Result<nlohmann::json> ExperimentToJson(Store& store, const ExperimentRecord& e);

// RFC 4180 quoting: fields with a comma, quote or newline are quoted, quotes doubled.
std::string CsvField(const std::string& s);

}  // namespace ream
