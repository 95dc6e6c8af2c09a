#include "store/merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "platform/text.h"

namespace ream {
namespace {

// Databases are never attached to one another: SQLite attaches at most 10 and cannot detach
// inside a transaction, and a campaign has hundreds of units. Each input is its own read-only
// connection and its rows are copied, value by value, into the output's one transaction.

Result<int> UserVersion(sql::Database& db) {
  REAM_ASSIGN_OR_RETURN(auto st, db.Prepare("PRAGMA user_version"));
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? static_cast<int>(st.Int(0)) : 0;
}

Result<std::vector<std::string>> Columns(sql::Database& db, const std::string& table) {
  REAM_ASSIGN_OR_RETURN(auto st, db.Prepare("PRAGMA table_info(" + table + ")"));
  std::vector<std::string> cols;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    cols.push_back(st.Text(1));
  }
  return cols;
}

std::vector<std::string> Without(const std::vector<std::string>& cols, const std::set<std::string>& drop) {
  std::vector<std::string> v;
  for (const auto& c : cols) {
    if (!drop.count(c)) v.push_back(c);
  }
  return v;
}

std::vector<std::string> Prefixed(const std::vector<std::string>& cols, const std::string& alias) {
  std::vector<std::string> v;
  for (const auto& c : cols) v.push_back(alias + "." + c);
  return v;
}

int IndexOf(const std::vector<std::string>& cols, const std::string& name) {
  auto it = std::find(cols.begin(), cols.end(), name);
  return it == cols.end() ? -1 : static_cast<int>(it - cols.begin());
}

// The tables merged, each with its columns (as the output has them, but its own `id`) and
// the column naming its parent row.
struct Table {
  std::string name;
  std::string parent;  // "" for experiments
  bool has_id = false;
  std::vector<std::string> cols;  // every column but id
};

// How bad an experiment's status is: a merged experiment takes the worst of its parts'.
int Rank(ExperimentStatus s) {
  switch (s) {
    case ExperimentStatus::kComplete: return 0;
    case ExperimentStatus::kPartial: return 1;
    case ExperimentStatus::kRunning: return 2;
    case ExperimentStatus::kInterrupted: return 3;
    case ExperimentStatus::kFailed: return 4;
  }
  return 4;
}

class Merger {
 public:
  Merger(Store& out, const MergeOptions& o, std::string out_name)
      : out_(out), o_(o), out_name_(std::move(out_name)) {}

  Status Init() {
    for (auto [name, parent, has_id] : {std::tuple<const char*, const char*, bool>{"experiments", "", true},
                                        {"host_environments", "experiment_id", false},
                                        {"runs", "experiment_id", true},
                                        {"points", "run_id", true},
                                        {"histograms", "point_id", false},
                                        {"timelines", "point_id", false},
                                        {"manager_windows", "run_id", false},
                                        {"manager_actions", "run_id", false}}) {
      REAM_ASSIGN_OR_RETURN(auto cols, Columns(out_.db(), name));
      tables_[name] = Table{name, parent, has_id, Without(cols, {"id"})};
    }
    REAM_ASSIGN_OR_RETURN(auto names, out_.db().Prepare("SELECT name FROM experiments"));
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, names.Step());
      if (!row) break;
      origin_[names.Text(0)] = out_name_;
    }
    return Status::Ok();
  }

  // Refuses an input this merge cannot join, before anything is written.
  Status Check(const std::string& path, sql::Database& in) {
    REAM_ASSIGN_OR_RETURN(int version, UserVersion(in));
    if (version == 0) return InvalidArgument(path + " is not a ream results database");
    if (version != kStoreSchemaVersion) {
      return InvalidArgument(path + " has results schema version " + std::to_string(version) + " and " + out_name_ +
                             " " + std::to_string(kStoreSchemaVersion) +
                             ": ream merge joins databases of one schema version only (it migrates none); merge "
                             "them with the ream that wrote " + path);
    }
    for (const auto& [name, t] : tables_) {
      REAM_ASSIGN_OR_RETURN(auto cols, Columns(in, name));
      if (Without(cols, {"id"}) != t.cols) {
        return InvalidArgument("table " + name + " of " + path + " has other columns than " + out_name_ +
                               "'s at the same schema version: one of them was not written by ream");
      }
    }
    return Status::Ok();
  }

  Status MergeOne(const std::string& path, sql::Database& in) {
    const Table& e = tables_.at("experiments");
    REAM_ASSIGN_OR_RETURN(auto exps, in.Prepare("SELECT id, " + Join(e.cols, ", ") + " FROM experiments ORDER BY name"));
    const int name_col = 1 + IndexOf(e.cols, "name");
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, exps.Step());
      if (!row) break;
      const std::string name = exps.Text(name_col);
      REAM_ASSIGN_OR_RETURN(auto there, out_.db().Prepare("SELECT id, " + Join(e.cols, ", ") +
                                                           " FROM experiments WHERE name = ?"));
      there.Bind(1, name);
      REAM_ASSIGN_OR_RETURN(bool found, there.Step());
      int64_t id = 0;
      if (!found) {
        REAM_ASSIGN_OR_RETURN(id, InsertRow(e, exps, 1, 0));
        origin_[name] = path;
        ++report_.experiments_added;
      } else {
        id = there.Int(0);
        REAM_RETURN_IF_ERROR(JoinExperiment(path, name, exps, there, id));
        ++report_.experiments_joined;
      }
      const int64_t from = exps.Int(0);
      REAM_RETURN_IF_ERROR(MergeEnvironments(in, from, id));
      REAM_RETURN_IF_ERROR(MergeRuns(path, in, name, from, id));
    }
    ++report_.inputs;
    return Status::Ok();
  }

  const MergeReport& report() const { return report_; }

 private:
  // The output's INSERT for `t`, prepared once.
  Result<sql::Statement*> Insert(const Table& t, const std::string& verb = "INSERT") {
    const std::string key = verb + " " + t.name;
    auto it = inserts_.find(key);
    if (it == inserts_.end()) {
      std::string marks;
      for (size_t i = 0; i < t.cols.size(); ++i) marks += i ? ",?" : "?";
      REAM_ASSIGN_OR_RETURN(auto st, out_.db().Prepare(verb + " INTO " + t.name + " (" + Join(t.cols, ", ") +
                                                       ") VALUES (" + marks + ")"));
      it = inserts_.emplace(key, std::move(st)).first;
    }
    REAM_RETURN_IF_ERROR(it->second.Reset());
    return &it->second;
  }

  // Copies `src`'s current row (t.cols from column `first` on) into the output, its parent
  // column set to `parent`; the new row's id.
  Result<int64_t> InsertRow(const Table& t, const sql::Statement& src, int first, int64_t parent,
                            const std::string& verb = "INSERT") {
    REAM_ASSIGN_OR_RETURN(sql::Statement * ins, Insert(t, verb));
    for (size_t i = 0; i < t.cols.size(); ++i) {
      if (!t.parent.empty() && t.cols[i] == t.parent) {
        ins->Bind(static_cast<int>(i) + 1, parent);
      } else {
        ins->BindColumn(static_cast<int>(i) + 1, src, first + static_cast<int>(i));
      }
    }
    REAM_RETURN_IF_ERROR(ins->Run());
    return out_.db().LastInsertId();
  }

  // Copies the rows of `t` under the input's parent `from` to the output's `to`, calling
  // `each(old id, new id)` after each (tables with an id).
  Status CopyChildren(sql::Database& in, const Table& t, int64_t from, int64_t to, const std::string& order,
                      const std::function<Status(int64_t, int64_t)>& each = nullptr) {
    REAM_ASSIGN_OR_RETURN(auto rows, in.Prepare("SELECT " + std::string(t.has_id ? "id, " : "0, ") +
                                                Join(t.cols, ", ") + " FROM " + t.name + " WHERE " + t.parent +
                                                " = ? ORDER BY " + order));
    rows.Bind(1, from);
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, rows.Step());
      if (!row) break;
      REAM_ASSIGN_OR_RETURN(int64_t id, InsertRow(t, rows, 1, to));
      if (each) REAM_RETURN_IF_ERROR(each(rows.Int(0), id));
    }
    return Status::Ok();
  }

  // The experiment `name` is in the output already: the same spec, else refused; its aggregate
  // columns joined by rules that neither order nor repetition change.
  Status JoinExperiment(const std::string& path, const std::string& name, const sql::Statement& in,
                        const sql::Statement& out, int64_t id) {
    const Table& e = tables_.at("experiments");
    const std::set<std::string> aggregates = {"status", "failure", "created_ns", "finished_ns"};
    const int hash = IndexOf(e.cols, "spec_hash"), text = IndexOf(e.cols, "spec_text");
    const std::string& first = origin_.count(name) ? origin_[name] : out_name_;
    if (in.ExactValue(1 + text) != out.ExactValue(1 + text)) {
      return InvalidArgument("experiment '" + name + "' has different specs in " + first + " (spec " +
                             out.Text(1 + hash) + ") and " + path + " (spec " + in.Text(1 + hash) +
                             "): ream merge keeps one spec per name; rename one of the experiments and merge again");
    }
    for (size_t i = 0; i < e.cols.size(); ++i) {
      if (aggregates.count(e.cols[i])) continue;
      const int c = 1 + static_cast<int>(i);
      if (in.ExactValue(c) != out.ExactValue(c)) {
        return InvalidArgument("experiment '" + name + "' has the same spec in " + first + " and " + path +
                               " but a different " + e.cols[i] + " ('" + out.Text(c) + "' and '" + in.Text(c) +
                               "'): were they written by different ream versions? merge with one of them");
      }
    }
    auto status_of = [&](const sql::Statement& st, const std::string& file) -> Result<ExperimentStatus> {
      const std::string s = st.Text(1 + IndexOf(e.cols, "status"));
      auto parsed = ParseExperimentStatus(s);
      if (!parsed) return Corrupt(file + ": unknown status '" + s + "' of experiment '" + name + "' (a newer ream's?)");
      return *parsed;
    };
    REAM_ASSIGN_OR_RETURN(ExperimentStatus a, status_of(out, first));
    REAM_ASSIGN_OR_RETURN(ExperimentStatus b, status_of(in, path));
    const int failure = 1 + IndexOf(e.cols, "failure");
    const int created = 1 + IndexOf(e.cols, "created_ns"), finished = 1 + IndexOf(e.cols, "finished_ns");
    ExperimentStatus status = a;
    std::string why = out.Text(failure);
    if (Rank(b) > Rank(a) || (Rank(b) == Rank(a) && in.Text(failure) < why)) {
      status = b;
      why = in.Text(failure);
    }
    std::optional<int64_t> end = out.OptInt(finished);
    if (auto f = in.OptInt(finished); f && (!end || *f > *end)) end = f;
    if (status == ExperimentStatus::kRunning) end.reset();
    REAM_ASSIGN_OR_RETURN(auto up, out_.db().Prepare("UPDATE experiments SET status = ?, failure = ?, created_ns = ?, "
                                                     "finished_ns = ? WHERE id = ?"));
    up.Bind(1, StatusName(status)).Bind(2, why).Bind(3, std::min(out.Int(created), in.Int(created)));
    up.Bind(4, end).Bind(5, id);
    return up.Run();
  }

  // Every host environment of the input; `environment` keeps the earliest recorded of all.
  Status MergeEnvironments(sql::Database& in, int64_t from, int64_t to) {
    const Table& h = tables_.at("host_environments");
    REAM_ASSIGN_OR_RETURN(auto rows, in.Prepare("SELECT " + Join(h.cols, ", ") +
                                                " FROM host_environments WHERE experiment_id = ?"));
    rows.Bind(1, from);
    bool any = false;
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, rows.Step());
      if (!row) break;
      REAM_RETURN_IF_ERROR(InsertRow(h, rows, 0, to, "INSERT OR IGNORE").status());
      any = true;
    }
    if (!any) return Status::Ok();
    REAM_ASSIGN_OR_RETURN(auto del, out_.db().Prepare("DELETE FROM environment WHERE experiment_id = ?"));
    del.Bind(1, to);
    REAM_RETURN_IF_ERROR(del.Run());
    REAM_ASSIGN_OR_RETURN(
        auto one, out_.db().Prepare("INSERT INTO environment (experiment_id, ream_version, ream_commit, hostname, "
                                    "kernel, cpu_model, topology_json, doctor_json, recorded_ns, timing_json) "
                                    "SELECT experiment_id, ream_version, ream_commit, hostname, kernel, cpu_model, "
                                    "topology_json, doctor_json, recorded_ns, timing_json FROM host_environments "
                                    "WHERE experiment_id = ? ORDER BY recorded_ns, hostname LIMIT 1"));
    one.Bind(1, to);
    return one.Run();
  }

  Status MergeRuns(const std::string& path, sql::Database& in, const std::string& experiment, int64_t from,
                   int64_t to) {
    const Table& r = tables_.at("runs");
    REAM_ASSIGN_OR_RETURN(auto runs, in.Prepare("SELECT id, " + Join(r.cols, ", ") +
                                                " FROM runs WHERE experiment_id = ? ORDER BY ordinal, id"));
    runs.Bind(1, from);
    const std::vector<std::string> key = {"scenario", "partition_label", "repetition", "tenants"};
    REAM_ASSIGN_OR_RETURN(auto find, out_.db().Prepare("SELECT id FROM runs WHERE experiment_id = ? AND scenario = ? "
                                                       "AND partition_label = ? AND repetition = ? AND tenants = ?"));
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, runs.Step());
      if (!row) break;
      REAM_RETURN_IF_ERROR(find.Reset());
      find.Bind(1, to);
      for (size_t k = 0; k < key.size(); ++k) find.BindColumn(static_cast<int>(k) + 2, runs, 1 + IndexOf(r.cols, key[k]));
      REAM_ASSIGN_OR_RETURN(bool there, find.Step());
      if (there) {
        const int64_t existing = find.Int(0);
        REAM_ASSIGN_OR_RETURN(std::string a, RunDigest(out_.db(), existing));
        REAM_ASSIGN_OR_RETURN(std::string b, RunDigest(in, runs.Int(0)));
        if (a != b) {
          auto col = [&](const char* c) { return runs.Text(1 + IndexOf(r.cols, c)); };
          const std::string tenants = col("tenants");
          return InvalidArgument("run " + col("scenario") + " / " + col("partition_label") + " / repetition " +
                                 col("repetition") + " / " + (tenants.empty() ? "alone" : "beside " + tenants) +
                                 " of experiment '" + experiment + "' is in " +
                                 (run_origin_.count(existing) ? run_origin_[existing] : out_name_) + " and " + path +
                                 " with different contents: the same run measured twice; merge one of the two");
        }
        ++report_.runs_already_there;
        continue;
      }
      REAM_ASSIGN_OR_RETURN(int64_t run_id, InsertRow(r, runs, 1, to));
      run_origin_[run_id] = path;
      REAM_RETURN_IF_ERROR(CopyChildren(in, tables_.at("points"), runs.Int(0), run_id, "seq, id",
                                        [&](int64_t old_point, int64_t new_point) -> Status {
                                          ++report_.points_added;
                                          REAM_RETURN_IF_ERROR(CopyChildren(in, tables_.at("histograms"), old_point,
                                                                            new_point, "kind"));
                                          return CopyChildren(in, tables_.at("timelines"), old_point, new_point,
                                                              "point_id");
                                        }));
      // A manager's windows before their actions, which name them.
      REAM_RETURN_IF_ERROR(CopyChildren(in, tables_.at("manager_windows"), runs.Int(0), run_id, "window_index"));
      REAM_RETURN_IF_ERROR(
          CopyChildren(in, tables_.at("manager_actions"), runs.Int(0), run_id, "window_index, seq"));
      ++report_.runs_added;
      if (o_.after_run) o_.after_run(report_.runs_added);
    }
    return Status::Ok();
  }

  // A run's contents without its ids: the run's columns, then each point's (by level and
  // attempt) with its histograms and timeline. Equal for the same run merged from two files.
  Result<std::string> RunDigest(sql::Database& db, int64_t run_id) {
    std::string d;
    auto rows = [&](const Table& t, const std::string& where, int64_t id, const std::string& order,
                    const std::function<Status(const sql::Statement&)>& each) -> Status {
      const auto cols = Without(t.cols, {t.parent});
      REAM_ASSIGN_OR_RETURN(auto st, db.Prepare("SELECT " + std::string(t.has_id ? "id, " : "0, ") + Join(cols, ", ") +
                                                " FROM " + t.name + " WHERE " + where + " = ? ORDER BY " + order));
      st.Bind(1, id);
      while (true) {
        REAM_ASSIGN_OR_RETURN(bool row, st.Step());
        if (!row) break;
        d += "\n" + t.name + ":";
        for (size_t i = 0; i < cols.size(); ++i) d += st.ExactValue(1 + static_cast<int>(i));
        if (each) REAM_RETURN_IF_ERROR(each(st));
      }
      return Status::Ok();
    };
    REAM_RETURN_IF_ERROR(rows(tables_.at("runs"), "id", run_id, "id", [&](const sql::Statement&) -> Status {
      REAM_RETURN_IF_ERROR(rows(tables_.at("points"), "run_id", run_id, "target_load, attempt",
                                [&](const sql::Statement& p) -> Status {
                                  REAM_RETURN_IF_ERROR(
                                      rows(tables_.at("histograms"), "point_id", p.Int(0), "kind", nullptr));
                                  return rows(tables_.at("timelines"), "point_id", p.Int(0), "point_id", nullptr);
                                }));
      REAM_RETURN_IF_ERROR(rows(tables_.at("manager_windows"), "run_id", run_id, "window_index", nullptr));
      return rows(tables_.at("manager_actions"), "run_id", run_id, "window_index, seq", nullptr);
    }));
    return d;
  }

  Store& out_;
  const MergeOptions& o_;
  std::string out_name_;
  std::map<std::string, Table> tables_;
  std::map<std::string, sql::Statement> inserts_;
  std::map<std::string, std::string> origin_;  // experiment name -> the file it first came from
  std::map<int64_t, std::string> run_origin_;  // output run id -> the file it came from in this merge
  MergeReport report_;
};

Result<MergeReport> Merge(Store& out, const std::string& out_name, std::vector<std::string> inputs,
                          const MergeOptions& options) {
  if (inputs.empty()) return InvalidArgument("no database to merge into " + out_name);
  if (out.schema_version() != kStoreSchemaVersion) {
    return InvalidArgument(out_name + " has results schema version " + std::to_string(out.schema_version()) +
                           ", this ream merges into version " + std::to_string(kStoreSchemaVersion));
  }
  // Sorted: the order changes no row, only which ids the new rows get.
  std::sort(inputs.begin(), inputs.end());
  Merger m(out, options, out_name);
  REAM_RETURN_IF_ERROR(m.Init());
  std::vector<sql::Database> dbs;
  for (const auto& path : inputs) {
    REAM_ASSIGN_OR_RETURN(sql::Database db, sql::Database::Open(path, false, /*read_only=*/true));
    REAM_RETURN_IF_ERROR(m.Check(path, db));
    dbs.push_back(std::move(db));
  }
  sql::Transaction tx(out.db());
  REAM_RETURN_IF_ERROR(tx.begin_status());
  for (size_t i = 0; i < inputs.size(); ++i) REAM_RETURN_IF_ERROR(m.MergeOne(inputs[i], dbs[i]));
  REAM_RETURN_IF_ERROR(tx.Commit());
  return m.report();
}

}  // namespace

Result<MergeReport> MergeInto(Store& out, const std::vector<std::string>& inputs, const MergeOptions& options) {
  return Merge(out, out.path(), inputs, options);
}

Result<MergeReport> MergeFiles(Platform& p, const std::string& out_path, const std::vector<std::string>& inputs,
                               const MergeOptions& options) {
  const bool exists = p.Exists(out_path);
  std::string out_real;
  if (exists) {
    REAM_ASSIGN_OR_RETURN(out_real, p.RealPath(out_path));
  }
  std::vector<std::string> ins;
  std::set<std::string> seen;
  for (const auto& in : inputs) {
    if (!p.Exists(in)) return NotFound("input database " + in + " does not exist");
    REAM_ASSIGN_OR_RETURN(std::string real, p.RealPath(in));
    if (real == out_real) {
      return InvalidArgument(in + " is the output " + out_path + " itself: name the output apart from the inputs");
    }
    if (seen.insert(real).second) ins.push_back(in);
  }
  if (exists) {
    {
      // The output is checked before Store::Open, which would migrate an older one silently.
      REAM_ASSIGN_OR_RETURN(sql::Database db, sql::Database::Open(out_path, false, /*read_only=*/true));
      REAM_ASSIGN_OR_RETURN(int version, UserVersion(db));
      if (version != kStoreSchemaVersion) {
        return InvalidArgument(out_path + " has results schema version " + std::to_string(version) +
                               ", this ream merges into version " + std::to_string(kStoreSchemaVersion) +
                               ": merge into a new file, or with the ream that wrote " + out_path);
      }
    }
    REAM_ASSIGN_OR_RETURN(Store out, Store::Open(out_path, false));
    return Merge(out, out_path, ins, options);
  }
  // A new output is built beside its name and renamed into place once complete (and closed:
  // its write-ahead log checkpointed into the file), so a merge killed midway leaves none.
  const std::string partial = out_path + ".partial-" + std::to_string(p.ProcessId());
  Result<MergeReport> merged = [&]() -> Result<MergeReport> {
    REAM_ASSIGN_OR_RETURN(Store out, Store::Open(partial, true));
    return Merge(out, out_path, ins, options);
  }();
  if (!merged.ok()) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      if (p.Exists(partial + suffix)) (void)p.RemoveFile(partial + suffix);
    }
    return merged;
  }
  REAM_RETURN_IF_ERROR(p.RenameFile(partial, out_path).Annotate("moving the merge into place"));
  return merged;
}

Result<std::vector<std::string>> CanonicalRows(sql::Database& db) {
  struct Source {
    std::string table, alias, from;
    std::vector<std::string> keys;  // natural keys of the parents
    std::set<std::string> drop;     // surrogate ids
  };
  const std::string run_key = "e.name, r.scenario, r.partition_label, r.repetition, r.tenants";
  const std::string to_run = " JOIN runs r ON r.id = p.run_id JOIN experiments e ON e.id = r.experiment_id";
  const std::vector<Source> sources = {
      {"experiments", "e", "experiments e", {}, {"id"}},
      {"environment", "v", "environment v JOIN experiments e ON e.id = v.experiment_id", {"e.name"}, {"experiment_id"}},
      {"host_environments", "v", "host_environments v JOIN experiments e ON e.id = v.experiment_id", {"e.name"},
       {"experiment_id"}},
      {"runs", "r", "runs r JOIN experiments e ON e.id = r.experiment_id", {"e.name"}, {"id", "experiment_id"}},
      {"points", "p", "points p" + to_run, {run_key}, {"id", "run_id"}},
      {"histograms", "h", "histograms h JOIN points p ON p.id = h.point_id" + to_run,
       {run_key, "p.target_load", "p.attempt"}, {"point_id"}},
      {"timelines", "t", "timelines t JOIN points p ON p.id = t.point_id" + to_run,
       {run_key, "p.target_load", "p.attempt"}, {"point_id"}},
      {"manager_windows", "w", "manager_windows w JOIN runs r ON r.id = w.run_id JOIN experiments e ON e.id = "
       "r.experiment_id", {run_key}, {"run_id"}},
      {"manager_actions", "a", "manager_actions a JOIN runs r ON r.id = a.run_id JOIN experiments e ON e.id = "
       "r.experiment_id", {run_key}, {"run_id"}},
  };
  std::vector<std::string> rows;
  for (const auto& s : sources) {
    REAM_ASSIGN_OR_RETURN(auto cols, Columns(db, s.table));
    std::vector<std::string> values = {"'" + s.table + "'"};
    for (const auto& k : s.keys) values.push_back(k);
    for (const auto& c : Prefixed(Without(cols, s.drop), s.alias)) values.push_back(c);
    REAM_ASSIGN_OR_RETURN(auto st, db.Prepare("SELECT json_array(" + Join(values, ", ") + ") FROM " + s.from));
    while (true) {
      REAM_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      rows.push_back(st.Text(0));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace ream
