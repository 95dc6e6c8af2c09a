// `ream serve dnn`: image-classification inference (the seed's img-dnn) — a fixed fully
// connected network (ReLU hidden layers, a softmax over the classes) with seeded generated
// weights, evaluated with OpenBLAS (sgemm, or sgemv for a batch of one) on a generated input
// per request. Real arithmetic: the service time is the network's floating-point work.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/status.h"
#include "workloads/server.h"

namespace ream {

struct DnnOptions {
  uint64_t inputs = 784;      // input features (a 28 x 28 image, as MNIST, img-dnn's data)
  uint64_t width = 512;       // units per hidden layer, >= 1
  uint64_t depth = 3;         // hidden layers, >= 1
  uint64_t batch = 4;         // inputs evaluated per request (image crops), >= 1
  uint64_t classes = 10;      // output classes, >= 1
  uint64_t seed = 1;          // seeds the weights and, with each request's key, its input
  uint64_t max_weight_bytes = 1ull << 30;  // a larger network is refused at start-up
};

// A preset's network: "small" (~0.5 ms per request here), "medium" (~10 ms), "large"
// (~100 ms); docs/workloads.md has the measured figures. InvalidArgument for another name.
Result<DnnOptions> DnnPreset(const std::string& name);

class DnnNetwork {
 public:
  // Allocates and fills the weights. InvalidArgument naming the option for a bad shape or a
  // network whose weights exceed max_weight_bytes; Unavailable when the allocation fails.
  static Result<std::shared_ptr<const DnnNetwork>> Make(const DnnOptions& options);

  const DnnOptions& options() const { return options_; }
  uint64_t weight_bytes() const;
  // Multiply-adds per request (batch x weights).
  uint64_t flops_per_request() const;

  // Per-worker buffers, so workers share the weights and nothing else.
  struct Scratch {
    std::vector<float> a, b;
  };
  Scratch MakeScratch() const;
  // Classifies the batch in `input` (batch x inputs, row-major): appends each item's class to
  // *classes and returns the first item's softmax probability of its class.
  float Classify(const float* input, Scratch& s, std::vector<uint32_t>* classes) const;

 private:
  explicit DnnNetwork(DnnOptions o) : options_(o) {}
  struct Layer {
    uint64_t in, out;
    std::vector<float> w;  // out x in, row-major
    std::vector<float> bias;
  };
  DnnOptions options_;
  std::vector<Layer> layers_;
};

// Handlers sharing `net`: each request's key (hashed with the seed) generates its input batch
// (pixel values in [0, 1)), so a key always gets the same answer; the payload is
// "classes=c1,c2,... p=0.123456".
HandlerFactory MakeDnnHandlers(std::shared_ptr<const DnnNetwork> net);

}  // namespace ream
