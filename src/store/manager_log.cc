// A manager's windows and actions in the store (schema 11; store/manager_records.h).
#include <nlohmann/json.hpp>

#include "store/store.h"

namespace ream {
namespace {

constexpr int kManagerSchema = 11;

nlohmann::json AllocationToJson(const std::map<std::string, std::map<std::string, ManagerLevel>>& a) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [tenant, knobs] : a) {
    for (const auto& [knob, l] : knobs) j[tenant][knob] = {{"level", l.level}, {"text", l.text}};
  }
  return j;
}

// The stored documents back, refused naming the run and window when they are not what
// InsertManagerWindow writes: a figure read as something else would be a wrong figure.
Status ReadDocuments(const std::string& neighbours, const std::string& allocation, const std::string& where,
                     ManagerWindowRecord* w) {
  auto bad = [&](const std::string& what) { return Corrupt(where + ": " + what); };
  const nlohmann::json n = nlohmann::json::parse(neighbours, nullptr, false);
  if (!n.is_object()) return bad("neighbours_json is not an object: " + neighbours);
  for (const auto& [name, v] : n.items()) {
    if (!v.is_number()) return bad("neighbours_json." + name + " is not a number");
    w->neighbour_throughput[name] = v.get<double>();
  }
  const nlohmann::json a = nlohmann::json::parse(allocation, nullptr, false);
  if (!a.is_object()) return bad("allocation_json is not an object: " + allocation);
  for (const auto& [tenant, knobs] : a.items()) {
    if (!knobs.is_object()) return bad("allocation_json." + tenant + " is not an object");
    for (const auto& [knob, l] : knobs.items()) {
      const std::string key = "allocation_json." + tenant + "." + knob;
      if (!l.is_object() || !l.contains("level") || !l["level"].is_number() || !l.contains("text") ||
          !l["text"].is_string()) {
        return bad(key + " is not {\"level\": number, \"text\": string}");
      }
      w->allocation[tenant][knob] = {l["level"].get<double>(), l["text"].get<std::string>()};
    }
  }
  return Status::Ok();
}

}  // namespace

Status Store::InsertManagerWindow(const ManagerWindowRecord& w) {
  if (schema_version_ < kManagerSchema) {
    return Unsupported(db_.path() + " is at results schema " + std::to_string(schema_version_) +
                       ", which has no manager tables (schema " + std::to_string(kManagerSchema) + ")");
  }
  sql::Transaction tx(db_);
  REAM_RETURN_IF_ERROR(tx.begin_status());
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("INSERT INTO manager_windows (run_id, window_index, end_s, valid, "
                                             "invalid_because, tail_us, target_us, slack, load_qps, neighbours_json, "
                                             "allocation_json, note) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"));
  nlohmann::json neighbours = nlohmann::json::object();
  for (const auto& [name, v] : w.neighbour_throughput) neighbours[name] = v;
  st.Bind(1, w.run_id).Bind(2, w.window).Bind(3, w.end_s).Bind(4, static_cast<int64_t>(w.valid ? 1 : 0));
  st.Bind(5, w.invalid_because).Bind(6, w.tail_us).Bind(7, w.target_us).Bind(8, w.slack).Bind(9, w.load_qps);
  st.Bind(10, neighbours.dump()).Bind(11, AllocationToJson(w.allocation).dump()).Bind(12, w.note);
  Status s = st.Run();
  if (s.code() == StatusCode::kAlreadyExists) {
    return Status(StatusCode::kAlreadyExists, "run " + std::to_string(w.run_id) + " already has manager window " +
                                                  std::to_string(w.window) + " in " + db_.path());
  }
  REAM_RETURN_IF_ERROR(s);
  REAM_ASSIGN_OR_RETURN(auto a, db_.Prepare("INSERT INTO manager_actions (run_id, window_index, seq, tenant, knob, "
                                            "from_level, to_level, from_text, to_text, reason, failure) "
                                            "VALUES (?,?,?,?,?,?,?,?,?,?,?)"));
  for (const auto& x : w.actions) {
    REAM_RETURN_IF_ERROR(a.Reset());
    a.Bind(1, w.run_id).Bind(2, w.window).Bind(3, static_cast<int64_t>(x.seq)).Bind(4, x.tenant).Bind(5, x.knob);
    a.Bind(6, x.from).Bind(7, x.to).Bind(8, x.from_text).Bind(9, x.to_text).Bind(10, x.reason).Bind(11, x.failure);
    Status as = a.Run();
    if (as.code() == StatusCode::kAlreadyExists) {
      return Status(StatusCode::kAlreadyExists, "manager window " + std::to_string(w.window) + " of run " +
                                                    std::to_string(w.run_id) + " lists action " +
                                                    std::to_string(x.seq) + " twice");
    }
    REAM_RETURN_IF_ERROR(as);
  }
  return tx.Commit();
}

Result<std::vector<ManagerWindowRecord>> Store::ListManagerWindows(int64_t run_id) {
  std::vector<ManagerWindowRecord> out;
  if (schema_version_ < kManagerSchema) return out;
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("SELECT window_index, end_s, valid, invalid_because, tail_us, target_us, "
                                             "slack, load_qps, neighbours_json, allocation_json, note "
                                             "FROM manager_windows WHERE run_id = ? ORDER BY window_index"));
  st.Bind(1, run_id);
  auto opt = [&](int col) { return st.IsNull(col) ? std::nullopt : std::optional<double>(st.Double(col)); };
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    ManagerWindowRecord w;
    w.run_id = run_id;
    w.window = st.Int(0);
    w.end_s = st.Double(1);
    w.valid = st.Int(2) != 0;
    w.invalid_because = st.Text(3);
    w.tail_us = opt(4);
    w.target_us = opt(5);
    w.slack = opt(6);
    w.load_qps = opt(7);
    w.note = st.Text(10);
    REAM_RETURN_IF_ERROR(ReadDocuments(st.Text(8), st.Text(9),
                                       db_.path() + ": run " + std::to_string(run_id) + ", manager window " +
                                           std::to_string(w.window),
                                       &w));
    out.push_back(std::move(w));
  }
  REAM_ASSIGN_OR_RETURN(auto a, db_.Prepare("SELECT window_index, seq, tenant, knob, from_level, to_level, from_text, "
                                            "to_text, reason, failure FROM manager_actions WHERE run_id = ? "
                                            "ORDER BY window_index, seq"));
  a.Bind(1, run_id);
  size_t at = 0;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, a.Step());
    if (!row) break;
    const int64_t window = a.Int(0);
    while (at < out.size() && out[at].window < window) ++at;
    if (at == out.size() || out[at].window != window) {
      return Corrupt(db_.path() + ": run " + std::to_string(run_id) + " has a manager action in window " +
                     std::to_string(window) + ", which it has no row of");
    }
    out[at].actions.push_back({.seq = static_cast<int>(a.Int(1)), .tenant = a.Text(2), .knob = a.Text(3),
                               .from = a.Double(4), .to = a.Double(5), .from_text = a.Text(6), .to_text = a.Text(7),
                               .reason = a.Text(8), .failure = a.Text(9)});
  }
  return out;
}

}  // namespace ream
