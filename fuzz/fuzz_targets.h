// The fuzzing entry points of the reply parsers, one per protocol. libFuzzer drives them in
// the *_fuzzer binaries (-DREAM_FUZZ=ON); the regular test suite replays every file of
// fuzz/corpus/<parser>/ through the very same functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ream::fuzz {

// Each parses `data` as a stream of replies and checks the parser's contract on it: it never
// consumes more than it was given, a complete reply parses the same when the bytes after it
// are absent, and a prefix of a reply is never a reply. Returns "" when every check held,
// else a description of the broken one. (Memory errors are for the sanitizers to catch.)
std::string MemcachedReplies(const uint8_t* data, size_t size);
std::string MemcachedBinaryReplies(const uint8_t* data, size_t size);
std::string RedisReplies(const uint8_t* data, size_t size);
std::string HttpReplies(const uint8_t* data, size_t size);

// How many complete replies the last call parsed before stopping (for the replay test's
// check that a corpus exercises real replies, not only garbage). Per thread.
size_t LastReplyCount();

}  // namespace ream::fuzz
