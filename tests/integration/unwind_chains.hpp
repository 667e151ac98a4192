// tests/integration/unwind_chains.hpp
//
// How well the stacks of it_unwind's "calc-N" threads (tests/targets/integration/it_unwind.cpp)
// were unwound: how many reach the thread entry, and how many samples in libm_heavy and in the
// std::sort comparator have the exact caller chain. Used by the recording and the import tests,
// which must agree.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "profile_symbols.hpp"
#include "recorded_profile.hpp"

namespace sprof::test {

struct ChainStats {
  size_t samples = 0;
  size_t reach_entry = 0;    // root frame is the thread entry (clone3)
  size_t in_libm_heavy = 0;  // samples inside libm_heavy or below it
  size_t libm_exact = 0;     // ... with the exact caller chain
  size_t in_sort_heavy = 0;  // samples inside sort_heavy or below it
  size_t in_compare = 0;     // samples in the comparator called back from std::sort
  size_t compare_exact = 0;
  // The same split by CPU time: each sample weighted by its threadCPUDelta (the CPU time since
  // the thread's previous sample; perf's period, which `perf report` weights by). Only when every
  // calc-thread sample has one (`cpu_weighted`).
  bool cpu_weighted = true;
  uint64_t cpu_ns = 0;
  uint64_t cpu_ns_libm_heavy = 0;
  uint64_t cpu_ns_sort_heavy = 0;
};

// The chains of `process`'s calc threads, named by `symbols` (made for that process).
ChainStats chain_stats(const ProcessView& process, ProfileSymbols& symbols);

// The CPU split it_unwind measured itself (run with ROUNDS, it prints it): percent of its calc
// threads' CPU time spent in libm_heavy and in sort_heavy. nullopt when `output` lacks the line.
struct ProgramSplit {
  double libm_heavy_percent = 0;
  double sort_heavy_percent = 0;
};
std::optional<ProgramSplit> it_unwind_split(const std::string& output);

// Checks (doctest) that the profile's share of CPU time in libm_heavy and in sort_heavy (samples
// weighted by their CPU time, or counted where a sample has none) is within 2 points of what the
// program measured of its own run. Counting alone is not enough: in frequency mode (`perf record
// -F`) the kernel keeps changing the period, and on a loaded machine it changes it with the
// scheduling, so equal counts are not equal CPU time.
void check_split(const ChainStats& st, const ProgramSplit& truth);

// Checks (doctest) that at least `min_samples` were taken and that >= 99 % of them reach the
// thread entry, and of those in libm_heavy and in the comparator, have the exact caller chain:
// every caller once, adjacent where no library code lies between (no leaf repeated under itself).
void check_exact_chains(const ChainStats& st, size_t min_samples);

}  // namespace sprof::test
