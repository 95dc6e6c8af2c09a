// A window's figures, its verdict, and its JSON (load/load_window.h).
#include "load/load_window.h"

#include <algorithm>
#include <cmath>

#include "load/histogram.h"
#include "platform/text.h"

namespace ream {
namespace {

nlohmann::json OptionalNumber(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

LoadWindow JudgeWindow(int64_t index, double start_s, double end_s, double target_qps, WindowCounts c,
                       double percentile, double min_timely_ratio, std::optional<WindowDistortion> distortion) {
  LoadWindow w;
  w.index = index;
  w.start_s = start_s;
  w.end_s = end_s;
  w.target_qps = target_qps;
  w.scheduled = c.scheduled;
  w.answered = c.answered;
  w.errors = c.errors;
  w.percentile = percentile;
  const double length = end_s - start_s;
  w.throughput_qps = length > 0 ? static_cast<double>(c.answered) / length : 0;
  w.timely_ratio = c.scheduled > 0 ? static_cast<double>(c.timely) / static_cast<double>(c.scheduled) : 0;
  if (!c.latencies_ns.empty()) {
    // The same buckets as the run's own figures, so a window's tail and the run's compare.
    Histogram h;
    for (int64_t ns : c.latencies_ns) h.Record(ns);
    auto us = [&h](double q) { return static_cast<double>(h.ValueAtQuantile(q)) / 1e3; };
    w.tail_us = us(percentile / 100);
    w.p95_us = us(0.95);
    w.p99_us = us(0.99);
  }
  if (c.scheduled == 0) {
    w.invalid_because = "no request was scheduled in it (the rate was 0)";
  } else if (c.answered == 0) {
    w.invalid_because = "no answer came in it";
  } else if (c.errors > 0) {
    w.invalid_because = std::to_string(c.errors) + " request" + (c.errors == 1 ? "" : "s") + " failed in it";
  } else if (w.timely_ratio < min_timely_ratio) {
    const std::string late = "timely " + Fmt("%.1f", 100 * w.timely_ratio) + " % < " +
                             Fmt("%.1f", 100 * min_timely_ratio) + " %";
    if (!distortion || c.from_send_ns.empty() || !w.tail_us) {
      w.invalid_because = late + ": the generator fell behind its schedule";
    } else {
      // What the lateness did to the window's tail: the same percentile from the actual sends.
      Histogram sent;
      for (int64_t ns : c.from_send_ns) sent.Record(ns);
      const double from_send_us = static_cast<double>(sent.ValueAtQuantile(percentile / 100)) / 1e3;
      const double moved_us = *w.tail_us - from_send_us;
      const double allowed_us = std::max(distortion->max_share * *w.tail_us,
                                         static_cast<double>(distortion->floor_ns) / 1e3);
      if (moved_us > allowed_us) {
        w.invalid_because = late + " and lateness moved the window's p" + Fmt("%g", percentile) + " by " +
                            Fmt("%.1f", moved_us) + " us (" + Fmt("%.1f", 100 * moved_us / *w.tail_us) +
                            " %; at most " + Fmt("%.1f", allowed_us) + " us): the generator fell behind its schedule";
      }
    }
  }
  w.valid = w.invalid_because.empty();
  return w;
}

nlohmann::json LoadWindow::ToJson() const {
  return {{"index", index},
          {"start_s", start_s},
          {"end_s", end_s},
          {"target_qps", target_qps},
          {"throughput_qps", throughput_qps},
          {"scheduled", scheduled},
          {"answered", answered},
          {"errors", errors},
          {"percentile", percentile},
          {"tail_us", OptionalNumber(tail_us)},
          {"p95_us", OptionalNumber(p95_us)},
          {"p99_us", OptionalNumber(p99_us)},
          {"timely_ratio", timely_ratio},
          {"valid", valid},
          {"invalid_because", invalid_because}};
}

Result<LoadWindow> LoadWindow::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgument("a load window is not a JSON object");
  LoadWindow w;
  auto number = [&j](const char* key, double* out) -> Status {
    if (!j.contains(key) || !j[key].is_number()) return InvalidArgument(std::string("load window: '") + key + "' is not a number");
    *out = j[key].get<double>();
    return Status::Ok();
  };
  auto optional = [&j](const char* key, std::optional<double>* out) -> Status {
    if (!j.contains(key) || j[key].is_null()) return Status::Ok();
    if (!j[key].is_number()) return InvalidArgument(std::string("load window: '") + key + "' is not a number or null");
    *out = j[key].get<double>();
    return Status::Ok();
  };
  auto count = [&j](const char* key, uint64_t* out) -> Status {
    std::optional<uint64_t> v = j.contains(key) ? JsonCount(j[key]) : std::nullopt;
    if (!v) return InvalidArgument(std::string("load window: '") + key + "' is not a count");
    *out = *v;
    return Status::Ok();
  };
  uint64_t index = 0;
  REAM_RETURN_IF_ERROR(count("index", &index));
  w.index = static_cast<int64_t>(index);
  REAM_RETURN_IF_ERROR(number("start_s", &w.start_s));
  REAM_RETURN_IF_ERROR(number("end_s", &w.end_s));
  REAM_RETURN_IF_ERROR(number("target_qps", &w.target_qps));
  REAM_RETURN_IF_ERROR(number("throughput_qps", &w.throughput_qps));
  REAM_RETURN_IF_ERROR(count("scheduled", &w.scheduled));
  REAM_RETURN_IF_ERROR(count("answered", &w.answered));
  REAM_RETURN_IF_ERROR(count("errors", &w.errors));
  REAM_RETURN_IF_ERROR(number("percentile", &w.percentile));
  REAM_RETURN_IF_ERROR(optional("tail_us", &w.tail_us));
  REAM_RETURN_IF_ERROR(optional("p95_us", &w.p95_us));
  REAM_RETURN_IF_ERROR(optional("p99_us", &w.p99_us));
  REAM_RETURN_IF_ERROR(number("timely_ratio", &w.timely_ratio));
  if (!j.contains("valid") || !j["valid"].is_boolean()) return InvalidArgument("load window: 'valid' is not true or false");
  w.valid = j["valid"].get<bool>();
  if (j.contains("invalid_because") && j["invalid_because"].is_string()) w.invalid_because = j["invalid_because"].get<std::string>();
  return w;
}

}  // namespace ream
