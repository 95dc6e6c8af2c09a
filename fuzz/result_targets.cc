// Shared body of the histogram, generator-JSON and agent-protocol fuzz targets: the contract
// each decoder of ream's own documents must keep on any input (fuzz/result_targets.h).
#include "fuzz/result_targets.h"

#include <cmath>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "remote/agent_protocol.h"
#include "experiment/point_columns.h"
#include "load/histogram.h"
#include "store/store.h"

namespace ream::fuzz {
namespace {

using nlohmann::json;

thread_local bool last_decoded = false;

std::string Refusal(const Status& s, StatusCode want, const char* what, const std::string& must_name) {
  if (s.code() != want) return std::string(what) + " refused with the wrong code: " + s.message();
  if (s.message().empty()) return std::string(what) + " refused without a message";
  if (s.message().find(must_name) == std::string::npos) {
    return std::string(what) + " refusal does not name '" + must_name + "': " + s.message();
  }
  return "";
}

// What every histogram ream decodes must be, whatever text it came from.
std::string CheckHistogram(const Histogram& h) {
  unsigned __int128 total = 0;
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) total += h.bucket(i);
  if (total != h.count()) return "bucket counts do not add up to the count (or wrap)";
  if (h.overflow() > h.count()) return "more overflowed values than values";
  if (h.count() == 0) return "";
  if (h.min() < 0 || h.min() > h.max()) {
    return "min " + std::to_string(h.min()) + " and max " + std::to_string(h.max()) + " out of order";
  }
  if (!std::isfinite(h.mean()) || h.mean() < 0) return "mean " + std::to_string(h.mean());
  if (!std::isfinite(h.stddev()) || h.stddev() < 0) return "stddev " + std::to_string(h.stddev());
  int64_t prev = h.min();
  for (double q : {0.0, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    int64_t v = h.ValueAtQuantile(q);
    if (v < prev || v > h.max()) return "quantile " + std::to_string(q) + " = " + std::to_string(v) + " out of order";
    prev = v;
  }
  // Encode and Decode are inverses on what Decode accepts: the re-encoding decodes, to itself.
  std::string e = h.Encode();
  auto back = Histogram::Decode(e);
  if (!back.ok()) return "its own encoding does not decode: " + back.status().message() + " (" + e + ")";
  if (back->Encode() != e) return "encoding does not round-trip: " + e + " vs " + back->Encode();
  return "";
}

std::string Threw(const char* what, const std::exception& e) {
  return std::string(what) + " threw: " + e.what();
}

}  // namespace

bool LastDecoded() { return last_decoded; }

std::string HistogramBlob(const uint8_t* data, size_t size) {
  last_decoded = false;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto h = Histogram::Decode(text);
  if (!h.ok()) return Refusal(h.status(), StatusCode::kCorrupt, "Histogram::Decode", "histogram encoding");
  last_decoded = true;
  return CheckHistogram(*h);
}

std::string GeneratorOutput(const uint8_t* data, size_t size) {
  last_decoded = false;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto g = ExtractGeneratorJson(text);
    if (!g.ok()) return Refusal(g.status(), StatusCode::kCorrupt, "ExtractGeneratorJson", "the generator");
    if (!g->is_object()) return "ExtractGeneratorJson returned a " + std::string(g->type_name()) + ", not an object";
    PointData d;
    FillFromGenerator(*g, &d);
    last_decoded = true;
    if (d.point.generator.contains("histograms")) return "the stored generator JSON keeps its histograms";
    (void)d.point.generator.dump();  // what the store writes
    for (const auto& [kind, h] : d.histograms) {
      std::string v = CheckHistogram(h);
      if (!v.empty()) return "histogram " + kind + ": " + v;
    }
    if (d.point.lost_requests && *d.point.lost_requests < 0) {
      return "lost requests " + std::to_string(*d.point.lost_requests) + " < 0";
    }
  } catch (const std::exception& e) {
    return Threw("decoding the generator's output", e);
  }
  return "";
}

std::string AgentLine(const uint8_t* data, size_t size) {
  last_decoded = false;
  std::string line(reinterpret_cast<const char*>(data), size);
  json m = json::parse(line, nullptr, false);
  if (m.is_discarded() || !m.is_object()) return "";  // both ends skip or answer "not a JSON object"
  // The agent's end: a "run" message's options (cmd_agent.cc).
  try {
    (void)agent::MessageType(m);
    (void)agent::MessageId(m);
    auto o = agent::LoadOptionsFromJson(m.value("options", json()));
    if (!o.ok()) {
      std::string v = Refusal(o.status(), StatusCode::kInvalidArgument, "LoadOptionsFromJson", "agent run options");
      if (!v.empty()) return v;
    } else {
      last_decoded = true;
      Status valid = ValidateLoadOptions(*o);
      if (!valid.ok()) return "options that read are invalid: " + valid.message();
      json once = agent::LoadOptionsToJson(*o);
      auto again = agent::LoadOptionsFromJson(once);
      if (!again.ok()) return "options do not read back: " + again.status().message() + " " + once.dump();
      if (agent::LoadOptionsToJson(*again) != once) return "options do not round-trip: " + once.dump();
    }
  } catch (const std::exception& e) {
    return Threw("the agent reading run options", e);
  }
  // The coordinator's end: the line as one agent's "result" (remote_driver.cc).
  try {
    LoadOptions total;
    agent::AgentOutcome a;
    a.name = "ssh:fuzz";
    a.target_qps = total.qps;
    a.result = m;
    auto merged = agent::MergeAgentResults(total, {a});
    if (!merged.ok()) {
      return Refusal(merged.status(), StatusCode::kCorrupt, "MergeAgentResults", "agent ssh:fuzz");
    }
    last_decoded = true;
    if (!merged->is_object() || !merged->contains("agents") || !(*merged)["agents"].is_array() ||
        (*merged)["agents"].size() != 1) {
      return "the merged point does not list its one agent";
    }
    (void)merged->dump();  // what the store writes
  } catch (const std::exception& e) {
    return Threw("the coordinator merging an agent's result", e);
  }
  return "";
}

}  // namespace ream::fuzz
