// The sphinx workload: utterances synthesized once, decoded by PocketSphinx per request.
#include "workloads/sphinx.h"

#include <pocketsphinx.h>

#include <chrono>
#include <cstring>
#include <random>

#include "workloads/dataset_dir.h"

namespace ream {
namespace {

// Common English words the en-us dictionary and language model know, so the decoder does
// real work on plausible sentences (the seed's sphinx decodes read speech).
constexpr const char* kWords[] = {
    "the",    "people", "would",  "like",    "to",      "know",   "what",    "time",   "it",
    "is",     "in",     "new",    "york",    "and",     "how",    "much",    "the",    "weather",
    "will",   "change", "over",   "next",    "week",    "we",     "should",  "call",   "our",
    "friends", "before", "dinner", "tonight", "please", "open",   "window",  "because", "room",
    "feels",  "warm",   "after",  "long",    "day",     "work",   "she",     "said",   "that",
    "train",  "leaves", "station", "at",     "seven",   "thirty", "every",   "morning", "they",
    "bought", "house",  "near",   "river",   "last",    "year",   "children", "play",  "game",
    "park",   "city",   "council", "met",    "discuss", "budget", "for",     "school", "water",
    "price",  "oil",    "market", "rose",    "sharply", "report", "show",    "company", "sales",
    "grew",   "three",  "percent", "quarter", "music",  "began",  "hall",    "filled", "quickly"};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

constexpr auto kToolTimeout = std::chrono::seconds(60);

std::string UtterancePath(const SphinxOptions& o, uint64_t i) {
  return o.cache_dir + "/utt-s" + std::to_string(o.seed) + "-w" + std::to_string(o.words) + "-" +
         std::to_string(i) + ".raw";
}

Status RunTool(Platform& p, const std::vector<std::string>& argv, const char* package) {
  auto r = p.Run(argv, kToolTimeout);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) {
      return NotFound("sphinx: '" + argv[0] + "' is not installed (Debian package " + package +
                      "; scripts/install-deps installs it)");
    }
    return r.status();
  }
  if (r->exit_code != 0) {
    return IoError("sphinx: '" + argv[0] + "' failed synthesizing an utterance: " + r->Describe());
  }
  return Status::Ok();
}

// Synthesizes one utterance into `path`: espeak-ng writes a WAV at its own rate (22 kHz), sox
// resamples it to the 16 kHz mono signed 16-bit raw samples the en-us model expects. Goes
// through temporary files renamed at the end, so a failure leaves nothing in the cache.
Status Synthesize(Platform& p, const std::string& text, const std::string& path) {
  std::string wav = path + ".tmp.wav", raw = path + ".tmp";
  Status s = RunTool(p, {"espeak-ng", "-v", "en-us", "-w", wav, text}, "espeak-ng");
  if (s.ok()) {
    s = RunTool(p, {"sox", wav, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw},
                "sox");
  }
  if (s.ok()) s = p.RenameFile(raw, path);
  if (p.Exists(wav)) (void)p.RemoveFile(wav);
  if (p.Exists(raw)) (void)p.RemoveFile(raw);
  return s;
}

uint64_t KeyIndex(std::string_view key) {
  uint64_t n = 0;
  bool digits = false;
  for (char c : key) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
    }
  }
  if (digits) return n;
  return std::hash<std::string_view>()(key);
}

struct ConfigDeleter {
  void operator()(cmd_ln_t* c) const { cmd_ln_free_r(c); }
};
struct DecoderDeleter {
  void operator()(ps_decoder_t* d) const { ps_free(d); }
};
using Config = std::unique_ptr<cmd_ln_t, ConfigDeleter>;
using Decoder = std::unique_ptr<ps_decoder_t, DecoderDeleter>;

Config MakeConfig(const SphinxOptions& o) {
  std::string hmm = o.model_dir + "/en-us", lm = o.model_dir + "/en-us.lm.bin",
              dict = o.model_dir + "/cmudict-en-us.dict";
  // -logfn /dev/null: PocketSphinx logs every decode at length on stderr otherwise.
  // -cmn batch: cepstral mean normalization over the whole utterance (batch), not carried
  // over from the previous one ("live", the default), so an utterance decodes the same way
  // whatever was decoded before it on this worker; -remove_noise no for the same reason (its
  // noise estimate adapts across utterances).
  return Config(cmd_ln_init(nullptr, ps_args(), TRUE, "-hmm", hmm.c_str(), "-lm", lm.c_str(), "-dict",
                            dict.c_str(), "-cmn", "batch", "-remove_noise", "no", "-logfn", "/dev/null", nullptr));
}

class SphinxHandler : public RequestHandler {
 public:
  SphinxHandler(Decoder decoder, std::shared_ptr<const std::vector<Utterance>> utterances)
      : decoder_(std::move(decoder)), utterances_(std::move(utterances)) {}

  frame::ResponseStatus Handle(const frame::RequestFrame& r, std::string* payload) override {
    if (!decoder_) {
      payload->assign("sphinx: this worker's decoder did not load");
      return frame::ResponseStatus::kError;
    }
    const Utterance& u = (*utterances_)[KeyIndex(r.key) % utterances_->size()];
    if (ps_start_utt(decoder_.get()) < 0 ||
        ps_process_raw(decoder_.get(), u.samples.data(), u.samples.size(), FALSE, TRUE) < 0 ||
        ps_end_utt(decoder_.get()) < 0) {
      payload->assign("sphinx: decoding failed");
      return frame::ResponseStatus::kError;
    }
    int32 score = 0;
    const char* hyp = ps_get_hyp(decoder_.get(), &score);
    if (hyp) payload->assign(hyp);
    return frame::ResponseStatus::kOk;
  }

 private:
  Decoder decoder_;
  std::shared_ptr<const std::vector<Utterance>> utterances_;
};

}  // namespace

std::string SphinxUtteranceText(uint64_t seed, uint64_t index, uint64_t words) {
  std::mt19937_64 rng(seed * 1000003 + index);
  std::string text;
  for (uint64_t w = 0; w < words; ++w) {
    if (w) text += ' ';
    text += kWords[rng() % kWordCount];
  }
  return text;
}

Result<std::vector<Utterance>> PrepareSphinxUtterances(Platform& p, const SphinxOptions& o) {
  if (o.utterances == 0) return InvalidArgument("--utterances must be at least 1");
  if (o.words == 0) return InvalidArgument("--words must be at least 1");
  std::string created;
  REAM_RETURN_IF_ERROR(MakeDirs(p, o.cache_dir, &created));
  std::vector<Utterance> out;
  std::vector<std::string> made;  // synthesized by this call, removed again on failure
  for (uint64_t i = 0; i < o.utterances; ++i) {
    Utterance u;
    u.text = SphinxUtteranceText(o.seed, i, o.words);
    std::string path = UtterancePath(o, i);
    Status s = Status::Ok();
    if (!p.Exists(path)) {
      s = Synthesize(p, u.text, path);
      if (s.ok()) made.push_back(path);
    }
    Result<std::string> bytes = s.ok() ? p.ReadFile(path) : Result<std::string>(s);
    if (bytes.ok() && bytes->size() < 2 * 1600) {
      bytes = IoError("sphinx: utterance " + path + " holds less than 0.1 s of audio");
    }
    if (!bytes.ok()) {
      for (const auto& m : made) (void)p.RemoveFile(m);
      if (!created.empty()) (void)RemoveTree(p, created);
      return bytes.status();
    }
    u.samples.resize(bytes->size() / 2);
    std::memcpy(u.samples.data(), bytes->data(), u.samples.size() * 2);
    out.push_back(std::move(u));
  }
  return out;
}

Result<HandlerFactory> MakeSphinxHandlers(Platform& p, std::shared_ptr<const std::vector<Utterance>> utterances,
                                          const SphinxOptions& o) {
  for (const char* f : {"/en-us/mdef", "/en-us.lm.bin", "/cmudict-en-us.dict"}) {
    if (!p.Exists(o.model_dir + f)) {
      return NotFound("sphinx: the acoustic/language model is missing (" + o.model_dir + f +
                                "); install Debian's pocketsphinx-en-us or pass --model");
    }
  }
  if (!utterances || utterances->empty()) return InvalidArgument("sphinx: no utterances to decode");
  // Loading a decoder reads ~40 MB of models: done once here to refuse a bad model at
  // start-up, then once per further worker (a decoder is not thread-safe).
  Config config = MakeConfig(o);
  if (!config) return InvalidArgument("sphinx: PocketSphinx rejected its configuration for " + o.model_dir);
  Decoder first(ps_init(config.get()));
  if (!first) return NotFound("sphinx: PocketSphinx could not load the model in " + o.model_dir);
  auto spare = std::make_shared<Decoder>(std::move(first));
  auto shared_config = std::shared_ptr<cmd_ln_t>(config.release(), ConfigDeleter());
  return HandlerFactory([spare, shared_config, utterances](int) -> std::unique_ptr<RequestHandler> {
    Decoder d = spare->get() ? std::move(*spare) : Decoder(ps_init(shared_config.get()));
    return std::make_unique<SphinxHandler>(std::move(d), utterances);
  });
}

}  // namespace ream
