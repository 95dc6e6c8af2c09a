// The fuzzing entry points of the experiment spec: TOML -> ExperimentSpec, and each value
// parser a spec (or a `ream exec` flag) goes through. libFuzzer drives them in spec_fuzzer
// (-DREAM_FUZZ=ON); the regular suite replays fuzz/corpus/spec/ and fuzz/corpus/values/
// through the very same functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ream::fuzz {

// Parses `data` as a spec file and checks the contract: an error is InvalidArgument (or
// NotFound for a file it names) with a message naming the spec; a spec that parses renders to
// JSON (what is stored) and plans. "" when every check held, else the broken one.
std::string SpecToml(const uint8_t* data, size_t size);

// data[0] picks a value parser (durations, sizes, rates, percentages, CPU lists and
// placements, service-time, key and arrival distributions), the rest is its text. Checks: an
// error has a message; a value that parses is in its range (durations and sizes >= 0, a
// fraction in [0, 1], a CPU list that formats and parses back to itself, a distribution with a
// finite non-negative mean and samples). "" when every check held.
std::string SpecValue(const uint8_t* data, size_t size);

// How many parsers SpecValue chooses among (data[0] % this).
int SpecValueParsers();

// What spec_fuzzer and the replay of fuzz/corpus/spec/ call: data[0] even -> SpecToml of the
// rest, odd -> SpecValue of the rest.
std::string SpecInput(const uint8_t* data, size_t size);

// Whether the last SpecToml / SpecValue call accepted its input (for the replay test's check
// that a corpus holds valid inputs, not only garbage). Per thread.
bool LastAccepted();

}  // namespace ream::fuzz
