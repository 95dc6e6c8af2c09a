// The batch programs' inputs, generated from a seed: every byte comes from one std::mt19937_64
// mapped by ream's own arithmetic (never a std:: distribution, whose output the standard leaves
// to the library), so a seed gives the same bytes on every machine and build.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include "platform/status.h"

namespace ream::batch {

// Where a generator writes its files: a directory on disk (PrepareInput) or memory (tests).
class InputFiles {
 public:
  virtual ~InputFiles() = default;
  // The stream of the input file `name` (a plain file name), created empty; valid until the
  // next Open. IoError naming the path when it cannot be created or a write to the previous
  // file failed (a full disk).
  virtual Result<std::ostream*> Open(const std::string& name) = 0;
};

// InputFiles kept in memory, for tests and checksums.
class MemoryInputFiles : public InputFiles {
 public:
  Result<std::ostream*> Open(const std::string& name) override;
  // Each file's bytes, by name.
  std::map<std::string, std::string> Contents() const;

 private:
  std::map<std::string, std::unique_ptr<std::ostringstream>> files_;
};

// The seeded generator every input is drawn from.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, n) (n > 0); the modulo bias is below 2^-40 for the n used here.
  uint64_t Below(uint64_t n) { return engine_() % n; }
  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1))); }
  // Uniform in [0, 1) from the top 53 bits.
  double Unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

// The generators, one per program of the table (batch.cc). `size` is the program's own unit
// (bytes of text, frames, nodes, ...); each returns the first write error.
Status WriteText(InputFiles& files, uint64_t seed, uint64_t size);         // xz, bzip2
Status WritePerlInput(InputFiles& files, uint64_t seed, uint64_t size);    // perl
Status WriteCSource(InputFiles& files, uint64_t seed, uint64_t size);      // gcc
Status WritePovScene(InputFiles& files, uint64_t seed, uint64_t size);     // povray
Status WriteImage(InputFiles& files, uint64_t seed, uint64_t size);        // imagemagick
Status WriteXmlInput(InputFiles& files, uint64_t seed, uint64_t size);     // xalan
Status WriteVideo(InputFiles& files, uint64_t seed, uint64_t size);        // x264
Status WriteGtpGame(InputFiles& files, uint64_t seed, uint64_t size);      // gnugo
Status WriteMinCostFlow(InputFiles& files, uint64_t seed, uint64_t size);  // mcf
Status WriteSequences(InputFiles& files, uint64_t seed, uint64_t size);    // hmmer

}  // namespace ream::batch
