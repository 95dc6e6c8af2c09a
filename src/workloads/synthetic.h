// `ream serve synthetic`: every request costs a CPU-busy service time drawn from a known
// distribution, so measured latency can be checked against queueing theory.
#pragma once

#include <cstdint>
#include <memory>

#include "workloads/server.h"
#include "workloads/service_time.h"

namespace ream {

// A handler factory for the server runtime: worker i draws from `service` with its own
// generator seeded from `seed` and i. Requests of any operation are answered kOk with an
// empty payload after spinning on the CPU for the drawn time.
HandlerFactory MakeSyntheticHandlers(const ServiceTime& service, uint64_t seed);

}  // namespace ream
