// The key naming shared by the load generator and the built-in kv server, so that keys the
// generator draws (index 0..N-1) are exactly the records `ream serve kv --records N` preloads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ream {

inline constexpr size_t kKeyBytes = 16;

// Writes "key" followed by the index in 13 zero-padded decimal digits (16 bytes, no NUL) into
// `out`, which must hold kKeyBytes. Indices at or above 10^13 wrap.
inline void FormatKey(uint64_t index, char* out) {
  out[0] = 'k';
  out[1] = 'e';
  out[2] = 'y';
  for (int i = static_cast<int>(kKeyBytes) - 1; i >= 3; --i) {
    out[i] = static_cast<char>('0' + index % 10);
    index /= 10;
  }
}

// Writes the key of `index` in `bytes` bytes (at least 3 + the index's digits): "key" and the
// index zero-padded to fill them, so FormatKey is the 16-byte case. Used when key sizes vary.
inline void FormatSizedKey(uint64_t index, size_t bytes, char* out) {
  out[0] = 'k';
  out[1] = 'e';
  out[2] = 'y';
  for (size_t i = bytes; i-- > 3;) {
    out[i] = static_cast<char>('0' + index % 10);
    index /= 10;
  }
}

inline std::string KeyString(uint64_t index) {
  std::string s(kKeyBytes, '\0');
  FormatKey(index, s.data());
  return s;
}

}  // namespace ream
