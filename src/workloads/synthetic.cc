// The synthetic handler: spin for a drawn service time.
#include "workloads/synthetic.h"

#include "platform/clock.h"

namespace ream {
namespace {

class SyntheticHandler : public RequestHandler {
 public:
  SyntheticHandler(const ServiceTime& service, uint64_t seed) : service_(service), rng_(seed) {}

  frame::ResponseStatus Handle(const frame::RequestFrame&, std::string*) override {
    int64_t start = MonotonicNowNs();
    int64_t busy = service_.Sample(rng_);
    // Busy on the CPU (not sleeping): the server's CPU time per request is the service time,
    // which is what the M/G/1 calibration assumes.
    while (MonotonicNowNs() - start < busy) {
    }
    return frame::ResponseStatus::kOk;
  }

 private:
  ServiceTime service_;
  std::mt19937_64 rng_;
};

}  // namespace

HandlerFactory MakeSyntheticHandlers(const ServiceTime& service, uint64_t seed) {
  return [service, seed](int worker) {
    return std::make_unique<SyntheticHandler>(service, seed * 1000003 + static_cast<uint64_t>(worker));
  };
}

}  // namespace ream
