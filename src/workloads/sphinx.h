// The `sphinx` workload (TailBench's sphinx, the seed's CPU-intensive application): speech
// recognition with CMU PocketSphinx, one utterance decoded per request. The utterances are
// synthesized once from a generated word list (espeak-ng, resampled by sox to 16 kHz mono
// 16-bit) and cached in a directory, so nothing is downloaded and a restart reuses them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/status.h"
#include "workloads/server.h"

namespace ream {

struct SphinxOptions {
  std::string cache_dir = "/var/cache/ream/sphinx";  // where utterances are synthesized once
  std::string model_dir = "/usr/share/pocketsphinx/model/en-us";  // pocketsphinx-en-us
  uint64_t utterances = 8;    // distinct utterances; a request's key picks one (index mod n)
  uint64_t words = 12;        // words per utterance (~0.35 s of speech each)
  uint64_t seed = 1;          // seed of the word lists
};

// One synthesized utterance: its text and its 16 kHz mono signed 16-bit samples.
struct Utterance {
  std::string text;
  std::vector<int16_t> samples;
};

// The word list of utterance `index` for `seed` (deterministic).
std::string SphinxUtteranceText(uint64_t seed, uint64_t index, uint64_t words);

// Synthesizes (through platform.Run: espeak-ng, then sox) the utterances missing from
// options.cache_dir and loads them all. InvalidArgument for zero utterances or words;
// NotFound naming the package when espeak-ng or sox is missing; the failing command's error
// otherwise. A failed synthesis leaves no partial file in the cache.
Result<std::vector<Utterance>> PrepareSphinxUtterances(Platform& platform, const SphinxOptions& options);

// Checks the model (NotFound naming pocketsphinx-en-us when it is absent or does not
// load), then makes the handlers: each worker owns one decoder; a request's key selects the
// utterance (its decimal digits mod the count) and the response is the hypothesis text.
Result<HandlerFactory> MakeSphinxHandlers(Platform& platform,
                                          std::shared_ptr<const std::vector<Utterance>> utterances,
                                          const SphinxOptions& options);

}  // namespace ream
