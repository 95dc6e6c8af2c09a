// Which client codecs exist and how to make one. Registration is explicit: registry.cc lists
// every protocol; there are no static constructors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/codec.h"

namespace ream {

struct CodecOptions {
  size_t value_bytes = 64;          // payload size of set requests
  std::string http_path = "/";      // HTTP path template; "{key}" is replaced by the key
  // "auto" (gets as GET, sets as POST with value_bytes of body), or GET / POST for every request
  std::string http_method = "auto";
  std::string http_host = "localhost";
};

// InvalidArgument naming the known protocols when `name` is not one of them.
Result<std::unique_ptr<ClientCodec>> MakeClientCodec(const std::string& name,
                                                     const CodecOptions& options);
std::vector<std::string> ClientCodecNames();

}  // namespace ream
