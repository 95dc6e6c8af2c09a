// The dnn workload: the network's weights, its evaluation with OpenBLAS, and the handler.
#include "workloads/dnn.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>

namespace ream {
namespace {

// SplitMix64: fast, seedable, the same stream everywhere; used for weights and inputs.
struct SplitMix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  float Unit() { return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f); }
};

uint64_t HashKey(std::string_view key, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

Result<DnnOptions> DnnPreset(const std::string& name) {
  DnnOptions o;
  if (name == "small") {
    o.width = 512, o.depth = 3, o.batch = 4;
  } else if (name == "medium") {
    o.width = 1024, o.depth = 4, o.batch = 48;
  } else if (name == "large") {
    o.width = 2048, o.depth = 6, o.batch = 128;
  } else {
    return InvalidArgument("--size '" + name + "' is not a preset (small, medium, large)");
  }
  return o;
}

uint64_t DnnNetwork::weight_bytes() const {
  uint64_t n = 0;
  for (const auto& l : layers_) n += (l.in + 1) * l.out;
  return n * sizeof(float);
}

uint64_t DnnNetwork::flops_per_request() const {
  uint64_t n = 0;
  for (const auto& l : layers_) n += l.in * l.out;
  return 2 * n * options_.batch;
}

Result<std::shared_ptr<const DnnNetwork>> DnnNetwork::Make(const DnnOptions& o) {
  if (o.inputs == 0) return InvalidArgument("--inputs must be >= 1");
  if (o.width == 0) return InvalidArgument("--width must be >= 1");
  if (o.depth == 0) return InvalidArgument("--depth must be >= 1");
  if (o.batch == 0) return InvalidArgument("--batch must be >= 1");
  if (o.classes == 0) return InvalidArgument("--classes must be >= 1");
  const uint64_t kDim = 1u << 20;  // beyond this a product below could overflow
  if (o.inputs > kDim || o.width > kDim || o.classes > kDim || o.depth > 1024 || o.batch > 65536) {
    return InvalidArgument("the network's shape is too large (--inputs, --width, --classes <= 1048576, "
                           "--depth <= 1024, --batch <= 65536)");
  }
  // The weights' size, checked before allocating anything.
  uint64_t floats = (o.inputs + 1) * o.width + (o.depth - 1) * (o.width + 1) * o.width +
                    (o.width + 1) * o.classes;
  uint64_t bytes = floats * sizeof(float);
  if (bytes > o.max_weight_bytes) {
    return InvalidArgument("the network's weights take " + Mib(bytes) + ", more than --max-weight-bytes (" +
                           Mib(o.max_weight_bytes) + "); choose a smaller --width or --depth");
  }
  std::shared_ptr<DnnNetwork> net(new DnnNetwork(o));
  try {
    SplitMix rng{o.seed};
    uint64_t in = o.inputs;
    for (uint64_t l = 0; l <= o.depth; ++l) {
      uint64_t out = l == o.depth ? o.classes : o.width;
      Layer layer{in, out, std::vector<float>(in * out), std::vector<float>(out)};
      // Uniform in ±sqrt(6 / (in + out)) (Glorot), so activations stay in range through depth.
      float scale = std::sqrt(6.0f / static_cast<float>(in + out));
      for (float& w : layer.w) w = (2 * rng.Unit() - 1) * scale;
      for (float& b : layer.bias) b = (2 * rng.Unit() - 1) * 0.01f;
      net->layers_.push_back(std::move(layer));
      in = out;
    }
  } catch (const std::bad_alloc&) {
    return Unavailable("cannot allocate the network's " + Mib(bytes) +
                       " of weights: not enough memory; choose a smaller --width or --depth");
  }
  return std::shared_ptr<const DnnNetwork>(std::move(net));
}

DnnNetwork::Scratch DnnNetwork::MakeScratch() const {
  uint64_t widest = options_.inputs;
  for (const auto& l : layers_) widest = std::max(widest, l.out);
  return Scratch{std::vector<float>(widest * options_.batch), std::vector<float>(widest * options_.batch)};
}

float DnnNetwork::Classify(const float* input, Scratch& s, std::vector<uint32_t>* classes) const {
  const int batch = static_cast<int>(options_.batch);
  const float* x = input;
  float* y = s.a.data();
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    const int in = static_cast<int>(L.in), out = static_cast<int>(L.out);
    // y = x W^T + bias: the bias first, then accumulate (beta = 1).
    for (int i = 0; i < batch; ++i) std::copy(L.bias.begin(), L.bias.end(), y + static_cast<size_t>(i) * out);
    if (batch == 1) {
      cblas_sgemv(CblasRowMajor, CblasNoTrans, out, in, 1.0f, L.w.data(), in, x, 1, 1.0f, y, 1);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, out, in, 1.0f, x, in, L.w.data(), in,
                  1.0f, y, out);
    }
    if (l + 1 < layers_.size()) {
      for (size_t i = 0; i < static_cast<size_t>(batch) * out; ++i) y[i] = std::max(y[i], 0.0f);
    }
    x = y;
    y = (y == s.a.data()) ? s.b.data() : s.a.data();
  }
  // x holds batch x classes logits: the softmax's argmax per item and the first's probability.
  const size_t c = options_.classes;
  float first_p = 0;
  for (int i = 0; i < batch; ++i) {
    const float* row = x + static_cast<size_t>(i) * c;
    size_t best = static_cast<size_t>(std::max_element(row, row + c) - row);
    classes->push_back(static_cast<uint32_t>(best));
    if (i == 0) {
      double sum = 0;
      for (size_t j = 0; j < c; ++j) sum += std::exp(static_cast<double>(row[j] - row[best]));
      first_p = static_cast<float>(1.0 / sum);
    }
  }
  return first_p;
}

namespace {

class DnnHandler : public RequestHandler {
 public:
  explicit DnnHandler(std::shared_ptr<const DnnNetwork> net)
      : net_(std::move(net)),
        scratch_(net_->MakeScratch()),
        input_(net_->options().inputs * net_->options().batch) {}

  frame::ResponseStatus Handle(const frame::RequestFrame& r, std::string* payload) override {
    SplitMix rng{HashKey(r.key, net_->options().seed)};
    for (float& v : input_) v = rng.Unit();
    classes_.clear();
    float p = net_->Classify(input_.data(), scratch_, &classes_);
    payload->append("classes=");
    for (size_t i = 0; i < classes_.size(); ++i) {
      if (i) payload->push_back(',');
      payload->append(std::to_string(classes_[i]));
    }
    char tail[32];
    int n = std::snprintf(tail, sizeof tail, " p=%.6f", p);
    payload->append(tail, static_cast<size_t>(n));
    return frame::ResponseStatus::kOk;
  }

 private:
  std::shared_ptr<const DnnNetwork> net_;
  DnnNetwork::Scratch scratch_;
  std::vector<float> input_;
  std::vector<uint32_t> classes_;
};

}  // namespace

HandlerFactory MakeDnnHandlers(std::shared_ptr<const DnnNetwork> net) {
  return [net](int) { return std::make_unique<DnnHandler>(net); };
}

}  // namespace ream
