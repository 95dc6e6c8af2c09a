// The fuzzing entry points of what ream reads back from its own other half: a stored histogram
// blob (Histogram::Decode), the generator's `ream load --json` output as the runner decodes it
// (ExtractGeneratorJson + FillFromGenerator), and one line of the agent protocol at both ends
// (LoadOptionsFromJson on the agent, MergeAgentResults on the coordinator). libFuzzer drives
// them in histogram_fuzzer, generator_json_fuzzer and agent_fuzzer (-DREAM_FUZZ=ON); the
// regular suite replays fuzz/corpus/{histogram,generator_json,agent}/ through the same functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ream::fuzz {

// Decodes `data` as a stored histogram. Checks: a refusal is Corrupt and says why; a histogram
// that decodes has 0 <= min <= max when not empty, bucket counts adding up to its count
// without wrapping, overflow <= count, a finite non-negative mean, quantiles non-decreasing
// and within [min, max]; and it re-encodes to a text that decodes to the same encoding.
// "" when every check held, else the broken one.
std::string HistogramBlob(const uint8_t* data, size_t size);

// Reads `data` as the captured stdout of `ream load --json /dev/stdout` the way the runner
// does. Checks: a refusal is Corrupt and says why; nothing throws; a document that reads fills
// the point without its histograms in the stored generator JSON, which renders; every
// histogram taken is consistent (as above); lost requests are >= 0.
std::string GeneratorOutput(const uint8_t* data, size_t size);

// Reads `data` as one protocol line, at both ends. Agent: its "options" through
// LoadOptionsFromJson: a refusal is InvalidArgument naming the run options; options that read
// are valid (ValidateLoadOptions) and round-trip through LoadOptionsToJson. Coordinator: the
// line as an agent's "result" through MergeAgentResults: nothing throws, a refusal is Corrupt
// naming the agent, a merge that succeeds is an object naming its one agent that renders.
std::string AgentLine(const uint8_t* data, size_t size);

// Whether the last call's input was accepted (decoded / read / options or merge accepted),
// for the replay test's check that a corpus holds valid inputs. Per thread.
bool LastDecoded();

}  // namespace ream::fuzz
