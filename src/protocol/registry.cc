// Every client codec ream knows, listed explicitly.
#include "protocol/registry.h"

#include "protocol/http_codec.h"
#include "protocol/memcached_binary_codec.h"
#include "protocol/memcached_codec.h"
#include "protocol/ream_codec.h"
#include "protocol/redis_codec.h"

namespace ream {
namespace {

// One entry per protocol. Factories return a Result: options such as the HTTP path or method
// can be wrong, and the user should read why.
struct Entry {
  const char* name;
  Result<std::unique_ptr<ClientCodec>> (*make)(const CodecOptions&);
};

const Entry kCodecs[] = {
    {"ream", [](const CodecOptions&) -> Result<std::unique_ptr<ClientCodec>> { return MakeReamCodec(); }},
    {"memcached", MakeMemcachedCodec},
    {"memcached-binary", MakeMemcachedBinaryCodec},
    {"redis", MakeRedisCodec},
    {"http", MakeHttpCodec},
};

}  // namespace

Result<std::unique_ptr<ClientCodec>> MakeClientCodec(const std::string& name,
                                                     const CodecOptions& options) {
  for (const auto& e : kCodecs) {
    if (name == e.name) return e.make(options);
  }
  std::string known;
  for (const auto& n : ClientCodecNames()) known += (known.empty() ? "" : ", ") + n;
  return InvalidArgument("unknown protocol '" + name + "' (known: " + known + ")");
}

std::vector<std::string> ClientCodecNames() {
  std::vector<std::string> names;
  for (const auto& e : kCodecs) names.push_back(e.name);
  return names;
}

}  // namespace ream
