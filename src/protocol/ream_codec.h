// The client codec for ream's own protocol: responses are matched by id and carry the server's
// service and queue times.
#pragma once

#include <memory>

#include "protocol/codec.h"

namespace ream {

std::unique_ptr<ClientCodec> MakeReamCodec();

}  // namespace ream
