// sprof/recorder/options.hpp
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sprof::recorder {

enum class UnwindMode { kDwarf, kFramePointer };

struct RecordOptions {
  std::vector<std::string> command;  // argv of the program to launch
  int frequency_hz = 1000;
  UnwindMode unwind = UnwindMode::kDwarf;
  // Bytes of user stack copied per sample for DWARF unwinding (PERF_SAMPLE_STACK_USER).
  uint32_t stack_size = 16384;
};

}  // namespace sprof::recorder
