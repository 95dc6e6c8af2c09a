// The batch suite's table of programs, its input cache and one measured run (batch.h).
#include "batch/batch.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "workloads/dataset_dir.h"

namespace ream::batch {
namespace {

using Argv = std::vector<std::string>;

// The calibration: each size_for_default below is meant to run about 5 s on the machine ream is
// developed on (2 vCPUs of an AMD EPYC, 32 MB L3, Debian 12), one copy alone, measured with
// `ream batch NAME --json` on 5 Dec 2026 while other builds shared the two CPUs (so +-40 %); each
// comment gives the runs measured and, where the size was then scaled to 5 s, says so.
// bench/batch_suite.sh's "alone" column is the check of the final sizes (docs/workloads.md).
std::vector<BatchProgram> MakeTable() {
  std::vector<BatchProgram> t;
  t.push_back({
      .name = "bzip2",
      .spec = "401.bzip2",
      .package = "bzip2",
      .program = "/usr/bin/bzip2",
      .category = Category::kCompute,
      .size_unit = "bytes of generated text",
      .size_for_default = 47'000'000,  // 4.37 s (5.96 s at 56 MB while two builds ran)
      .generate = WriteText,
      .argv = [](const std::string& prog, const std::string& in, const std::string&, uint64_t) {
        return Argv{prog, "-9", "-c", in + "/corpus.txt"};
      },
  });
  t.push_back({
      .name = "xz",
      .spec = "557.xz_r",
      .package = "xz-utils",
      .program = "/usr/bin/xz",
      .category = Category::kCache,
      .size_unit = "bytes of generated text",
      .size_for_default = 4'500'000,  // 3.7 MB took 3.82 s, 5.17 MB 6.98 s under load
      .generate = WriteText,
      // -9: a 64 MiB dictionary, larger than the LLC, as 557.xz_r's inputs use.
      .argv = [](const std::string& prog, const std::string& in, const std::string&, uint64_t) {
        return Argv{prog, "-T1", "-9", "-c", in + "/corpus.txt"};
      },
  });
  t.push_back({
      .name = "perl",
      .spec = "500.perlbench_r",
      .package = "perl",
      .program = "/usr/bin/perl",
      .category = Category::kCompute,
      .size_unit = "passes over a 1 MB generated text",
      .size_for_default = 19,  // 12 passes took 3.08 s; scaled
      .generate = WritePerlInput,
      .argv = [](const std::string& prog, const std::string& in, const std::string&, uint64_t size) {
        return Argv{prog, in + "/bench.pl", in + "/corpus.txt", std::to_string(size)};
      },
  });
  t.push_back({
      .name = "gcc",
      .spec = "502.gcc_r",
      .package = "gcc",
      .program = "/usr/bin/gcc",
      .category = Category::kCache,
      .size_unit = "generated C functions",
      .size_for_default = 240,  // 180 took 3.66 s, 230 took 6.52 s under load
      .generate = WriteCSource,
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t) {
        return Argv{prog, "-O2", "-c", in + "/gen.c", "-o", scratch + "/gen.o"};
      },
  });
  t.push_back({
      .name = "povray",
      .spec = "511.povray_r",
      .package = "povray",
      .program = "/usr/bin/povray",
      .category = Category::kCompute,
      .size_unit = "image rows (640 wide)",
      .size_for_default = 550,  // 400 rows took 3.64 s (about 1.5 s of it parsing and set-up); scaled
      .generate = WritePovScene,
      // +WT1: one render thread; -D: no display; +A0.3: anti-aliasing, as SPEC's scene has.
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t size) {
        return Argv{prog, "+I" + in + "/scene.pov", "+O" + scratch + "/out.png", "+W640",
                    "+H" + std::to_string(size), "+WT1", "-D", "+A0.3", "-GA"};
      },
  });
  t.push_back({
      .name = "imagick",
      .spec = "538.imagick_r",
      .package = "imagemagick-6.q16",
      // The package's own binary, not /usr/bin/convert: that name goes through Debian's
      // alternatives and may be shadowed in /usr/local/bin.
      .program = "/usr/bin/convert-im6.q16",
      .category = Category::kCompute,
      .size_unit = "image rows (1024 wide)",
      .size_for_default = 4300,  // 3300 rows took 3.79 s; scaled
      .generate = WriteImage,
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t) {
        return Argv{prog,      "-limit", "thread", "1",       in + "/image.ppm", "-gaussian-blur", "0x2",
                    "-sharpen", "0x1",   "-edge",  "1",       "-resize",         "140%",           "-rotate",
                    "7",        "-negate", scratch + "/out.ppm"};
      },
      .env = {{"MAGICK_THREAD_LIMIT", "1"}},
  });
  t.push_back({
      .name = "xalan",
      .spec = "523.xalancbmk_r",
      .package = "xalan",
      .program = "/usr/bin/Xalan",
      .category = Category::kCache,
      .size_unit = "generated XML order records",
      .size_for_default = 45'000,  // 40 000 took 3.88 s, 80 000 took 21.4 s: superlinear (sorts, keys)
      .generate = WriteXmlInput,
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t) {
        return Argv{prog, "-o", scratch + "/out.html", in + "/orders.xml", in + "/style.xsl"};
      },
  });
  t.push_back({
      .name = "x264",
      .spec = "525.x264_r",
      .package = "x264",
      .program = "/usr/bin/x264",
      .category = Category::kCompute,
      .size_unit = "generated 640x360 frames",
      .size_for_default = 390,  // 5.23 s
      .generate = WriteVideo,
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t) {
        return Argv{prog, "--threads", "1", "--lookahead-threads", "1", "--preset", "medium", "--quiet",
                    "-o", scratch + "/out.264", in + "/video.y4m"};
      },
  });
  t.push_back({
      .name = "gnugo",
      .spec = "445.gobmk",
      .package = "gnugo",
      .program = "/usr/games/gnugo",
      .category = Category::kCompute,
      .size_unit = "genmove commands",
      .size_for_default = 8,  // 5.34 s (0.6 to 0.7 s a move)
      .generate = WriteGtpGame,
      .argv = [](const std::string& prog, const std::string& in, const std::string&, uint64_t) {
        return Argv{prog, "--mode", "gtp", "--gtp-input", in + "/game.gtp", "--level", "10"};
      },
  });
  t.push_back({
      .name = "mcf",
      .spec = "505.mcf_r",
      .package = "liblemon-dev",  // ream-mcf is built from it (src/batch/mcf_solver.cc)
      .program = "ream-mcf",
      .category = Category::kMemory,
      .size_unit = "network nodes (8 arcs each)",
      .size_for_default = 80'000,  // 72 000 took 4.14 s, 100 000 took 8.4 s: about n^1.6
      .generate = WriteMinCostFlow,
      .argv = [](const std::string& prog, const std::string& in, const std::string&, uint64_t) {
        return Argv{prog, in + "/network.min"};
      },
  });
  t.push_back({
      .name = "hmmer",
      .spec = "456.hmmer",
      .package = "hmmer",
      .program = "/usr/bin/phmmer",
      .category = Category::kCompute,
      .size_unit = "database sequences",
      .size_for_default = 190'000,  // 230 000 took 6.15 s; scaled
      .generate = WriteSequences,
      .argv = [](const std::string& prog, const std::string& in, const std::string& scratch, uint64_t) {
        return Argv{prog, "--cpu", "1", "--noali", "-o", scratch + "/hits.txt", in + "/query.fa", in + "/db.fa"};
      },
  });
  t.push_back({
      .name = "mbw",
      .spec = "462.libquantum (streaming)",
      .package = "mbw",
      .program = "/usr/bin/mbw",
      .category = Category::kMemory,
      .size_unit = "memcpy passes over 256 MiB",
      .size_for_default = 110,  // 60 passes took 2.69 s (1.93 s at 23 under load: page faults of the first pass); scaled
      .generate = nullptr,
      // -t0: memcpy only; arrays of 256 MiB, eight times the LLC, so every pass goes to DRAM.
      .argv = [](const std::string& prog, const std::string&, const std::string&, uint64_t size) {
        return Argv{prog, "-q", "-t0", "-n", std::to_string(size), "256"};
      },
  });
  return t;
}

// Counts and checks what a generator writes into a directory on disk.
class DiskInputFiles : public InputFiles {
 public:
  DiskInputFiles(Platform& p, std::string dir) : p_(p), dir_(std::move(dir)) {}

  Result<std::ostream*> Open(const std::string& name) override {
    REAM_RETURN_IF_ERROR(Close());
    path_ = dir_ + "/" + name;
    REAM_ASSIGN_OR_RETURN(current_, p_.OpenForWriting(path_));
    return current_.get();
  }

  // Flushes the open file and adds its size; IoError naming it when a write failed.
  Status Close() {
    if (!current_) return Status::Ok();
    errno = 0;
    current_->flush();
    int err = errno;
    std::streamoff end = current_->tellp();
    bool failed = !*current_;
    current_.reset();  // the close itself; an ofstream reports nothing of it
    if (failed) {
      return IoError("writing " + path_ + " failed" + (err ? std::string(": ") + std::strerror(err) : ""));
    }
    bytes_ += static_cast<uint64_t>(std::max<std::streamoff>(end, 0));
    return Status::Ok();
  }

  uint64_t bytes() const { return bytes_; }

 private:
  Platform& p_;
  std::string dir_;
  std::string path_;
  std::unique_ptr<std::ostream> current_;
  uint64_t bytes_ = 0;
};

// The input's total size lives beside it, written before the rename, so a reused input needs
// no walk over its files.
constexpr std::string_view kBytesFile = ".ream-input-bytes";

// Temporary directories of generations whose process is gone (killed mid-way): removed, so a
// killed generation leaves nothing behind once the next one runs.
void RemoveStaleTemporaries(Platform& p, const std::string& root, const std::string& base) {
  auto entries = p.ListDir(root);
  if (!entries.ok()) return;
  const std::string prefix = base + ".tmp-";
  for (const DirEntry& e : *entries) {
    if (e.name.rfind(prefix, 0) != 0) continue;
    int pid = std::atoi(e.name.c_str() + prefix.size());
    if (pid > 0 && p.Kill(pid, 0).code() == StatusCode::kNotFound) (void)RemoveTree(p, root + "/" + e.name);
  }
}

// The cache root, made when missing; made by root, it is handed to the workload user `ream`
// (when there is one) so unprivileged copies can add inputs to it.
Status MakeCacheRoot(Platform& p, const std::string& root) {
  std::string created;
  REAM_RETURN_IF_ERROR(MakeDirs(p, root, &created).Annotate("batch input cache"));
  if (!created.empty() && p.EffectiveUserId() == 0) {
    if (auto user = p.LookupUser("ream"); user.ok()) {
      // From the outermost directory made down to the root.
      for (std::string d = root; d.size() >= created.size(); d = d.substr(0, d.rfind('/'))) {
        REAM_RETURN_IF_ERROR(p.ChangeOwner(d, user->uid, user->gid));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string_view CategoryName(Category c) {
  switch (c) {
    case Category::kCompute: return "compute";
    case Category::kMemory: return "memory";
    case Category::kCache: return "cache";
    case Category::kDisk: return "disk";
  }
  return "unknown";
}

const std::vector<BatchProgram>& BatchPrograms() {
  static const std::vector<BatchProgram> kTable = MakeTable();
  return kTable;
}

const BatchProgram* FindBatchProgram(std::string_view name) {
  for (const BatchProgram& p : BatchPrograms()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string BatchProgramNames() {
  std::string out;
  for (const BatchProgram& p : BatchPrograms()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

uint64_t SizeFor(const BatchProgram& p, double seconds) {
  double s = std::round(static_cast<double>(p.size_for_default) * seconds / kDefaultSeconds);
  return s < 1 ? 1 : static_cast<uint64_t>(s);
}

Result<PreparedInput> PrepareInput(Platform& p, const BatchProgram& prog, const InputOptions& o) {
  if (!(o.seconds > 0)) return InvalidArgument("--seconds must be > 0");
  PreparedInput in;
  in.size = SizeFor(prog, o.seconds);
  if (!prog.generate) return in;
  const std::string base = prog.name + "-" + std::to_string(o.seed) + "-" + std::to_string(in.size);
  in.dir = o.cache_root + "/" + base;
  auto read_bytes = [&]() -> Status {
    REAM_ASSIGN_OR_RETURN(std::string text, p.ReadFile(in.dir + "/" + std::string(kBytesFile)));
    in.bytes = std::strtoull(text.c_str(), nullptr, 10);
    return Status::Ok();
  };
  if (p.IsDirectory(in.dir)) {
    REAM_RETURN_IF_ERROR(read_bytes().Annotate("cached input " + in.dir));
    return in;
  }
  REAM_RETURN_IF_ERROR(MakeCacheRoot(p, o.cache_root));
  RemoveStaleTemporaries(p, o.cache_root, base);
  const std::string tmp = in.dir + ".tmp-" + std::to_string(p.ProcessId());
  (void)RemoveTree(p, tmp);
  REAM_RETURN_IF_ERROR(p.MakeDir(tmp).Annotate("batch input"));
  DiskInputFiles files(p, tmp);
  Status s = prog.generate(files, o.seed, in.size);
  if (Status c = files.Close(); s.ok()) s = c;
  if (s.ok()) s = p.WriteFile(tmp + "/" + std::string(kBytesFile), std::to_string(files.bytes()) + "\n");
  if (s.ok()) {
    s = p.RenameFile(tmp, in.dir);
    // Another copy generated the same input first: theirs is as good as ours.
    if (!s.ok() && p.IsDirectory(in.dir)) s = Status::Ok();
  }
  if (p.Exists(tmp)) (void)RemoveTree(p, tmp);
  if (!s.ok()) return s.Annotate("generating the input of " + prog.name + " in " + tmp);
  in.bytes = files.bytes();
  in.generated = true;
  return in;
}

namespace {

// The published copy of a helper: <cache root>/bin/<hash of ream's path>/<program>.
std::string PublishedPath(const std::string& cache_root, const std::string& exe, const std::string& program) {
  return cache_root + "/bin/" + Fnv1aHex(exe) + "/" + program;
}

}  // namespace

Result<std::string> ResolveProgram(Platform& p, const BatchProgram& prog) {
  if (prog.program.find('/') != std::string::npos) {
    if (p.Exists(prog.program)) return prog.program;
    return Unavailable(prog.name + " needs " + prog.program + ", which is not installed: install Debian's '" +
                       prog.package + "' package (apt-get install " + prog.package + ", or scripts/install-deps)");
  }
  // A helper built with ream: build/ream-mcf beside build/ream, or PREFIX/lib/ream/ream-mcf.
  REAM_ASSIGN_OR_RETURN(std::string exe, p.RealPath("/proc/self/exe"));
  const std::string dir = exe.substr(0, exe.rfind('/') + 1);
  for (const std::string& candidate : {dir + prog.program, dir + "../lib/ream/" + prog.program}) {
    if (p.Exists(candidate)) return p.RealPath(candidate);
  }
  // Not reachable from here (a directory this user cannot enter): the copy `ream run` published.
  if (const std::string published = PublishedPath(std::string(kDefaultCacheRoot), exe, prog.program);
      p.Exists(published)) {
    return published;
  }
  return Unavailable(prog.name + " needs " + prog.program + ", built with ream (target " + prog.program +
                     ", from Debian's '" + prog.package + "'), which is not next to " + exe +
                     " (or not reachable by this user, and no copy of it was published in " +
                     std::string(kDefaultCacheRoot) + "/bin)");
}

Status PublishHelper(Platform& p, const BatchProgram& prog, const std::string& cache_root) {
  if (prog.program.find('/') != std::string::npos) return Status::Ok();
  REAM_ASSIGN_OR_RETURN(std::string found, ResolveProgram(p, prog));
  REAM_ASSIGN_OR_RETURN(std::string exe, p.RealPath("/proc/self/exe"));
  const std::string to = PublishedPath(cache_root, exe, prog.program);
  if (found == to) return Status::Ok();
  REAM_RETURN_IF_ERROR(MakeCacheRoot(p, cache_root));
  const std::string dir = to.substr(0, to.rfind('/'));
  REAM_RETURN_IF_ERROR(MakeDirs(p, dir).Annotate("publishing " + prog.program));
  REAM_ASSIGN_OR_RETURN(std::string bytes, p.ReadFile(found));
  // Written aside and renamed: a copy running the previous one keeps its file.
  const std::string tmp = to + ".tmp." + std::to_string(p.ProcessId());
  Status s = p.WriteFile(tmp, bytes);
  if (s.ok()) s = p.ChangeMode(tmp, 0755);
  if (s.ok()) s = p.RenameFile(tmp, to);
  if (!s.ok()) {
    (void)p.RemoveFile(tmp);
    return s.Annotate("publishing " + prog.program + " to " + to + " for the workload's user");
  }
  return Status::Ok();
}

Result<BatchRun> RunBatchProgram(Platform& p, const BatchProgram& prog, const PreparedInput& input,
                                 double seconds) {
  REAM_ASSIGN_OR_RETURN(std::string program, ResolveProgram(p, prog));
  const std::string scratch = TempBase() + "/ream-batch-" + prog.name + "-" + std::to_string(p.ProcessId());
  (void)RemoveTree(p, scratch);
  REAM_RETURN_IF_ERROR(MakeDirs(p, scratch).Annotate("batch scratch directory"));
  SpawnOptions o;
  o.argv = prog.argv(program, input.dir, scratch, input.size);
  o.env = prog.env;
  // One thread for programs that size a pool from these (OpenMP builds, BLAS).
  o.env.emplace_back("OMP_NUM_THREADS", "1");
  o.env.emplace_back("OPENBLAS_NUM_THREADS", "1");
  o.stdout_path = scratch + "/stdout";
  o.stderr_path = scratch + "/stderr";
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>((20 * seconds + 60) * 1000));
  BatchRun run;
  const int64_t start = p.MonotonicNanos();
  auto child = p.Spawn(o);
  if (!child.ok()) {
    (void)RemoveTree(p, scratch);
    return child.status().Annotate("starting " + program);
  }
  auto exit = (*child)->Wait(timeout);
  const int64_t end = p.MonotonicNanos();
  if (!exit.ok()) {
    (void)(*child)->Signal(SIGKILL);
    (void)(*child)->Wait(std::chrono::seconds(10));
    (void)RemoveTree(p, scratch);
    return exit.status().Annotate(prog.name + " did not finish");
  }
  run.seconds = static_cast<double>(end - start) * 1e-9;
  run.exit = *exit;
  if (auto err = p.ReadFile(o.stderr_path); err.ok()) {
    std::vector<std::string> lines = Split(*err, '\n');
    const size_t keep = 5;
    run.stderr_tail.assign(lines.end() - static_cast<std::ptrdiff_t>(std::min(keep, lines.size())), lines.end());
  }
  (void)RemoveTree(p, scratch);
  return run;
}

}  // namespace ream::batch
