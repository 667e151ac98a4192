// cli/summary.hpp: the human-readable end-of-recording summary.
#pragma once

#include <cstdint>
#include <string>

#include "sprof/recorder/session.hpp"

namespace sprof::cli {

struct RecordingFacts {
  std::string command;
  double duration_s = 0;
  uint64_t processes = 0;
  uint64_t threads = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;
  std::string output_path;
  uint64_t output_bytes = 0;
};

// The facts of a conversion (live or imported) whose profile was written to `output_path`.
RecordingFacts facts_from(const convert::RecordingStats& stats, const std::string& command,
                          double duration_s, const std::string& output_path, uint64_t output_bytes);
RecordingFacts facts_from(const recorder::Recording& recording, const std::string& command,
                          const std::string& output_path, uint64_t output_bytes);

// "sprof: 2.01 s, 1 process, 4 threads, 3,964 samples, 0 lost -> profile.json.gz (123.4 KiB)"
std::string summary_line(const RecordingFacts& facts);
// Details worth a second line: event, throttling, malformed records, unwinding outcome.
std::string details_line(const convert::RecordingStats& stats, int frequency_hz);

// A hint when more than 5 % of the unwound stacks still ran past the stack copied per sample
// (after stitching), and a larger copy is possible: "" otherwise.
std::string stack_size_hint(const convert::RecordingStats& stats, uint32_t stack_size);

// With --heap and CPU samples, the samples taken in sprof's allocation hook (their stacks start
// at the program's frame that called malloc): "sprof: heap hooks: 12 samples (1.4% of CPU
// samples) were spent in sprof's allocation hook"; "" when there were none.
std::string heap_hook_line(const convert::RecordingStats& stats);

std::string human_bytes(uint64_t bytes);
// "1 thread", "3 threads"
std::string count_of(uint64_t n, const char* singular, const char* plural);
// "1,234"
std::string grouped(uint64_t n);

}  // namespace sprof::cli
