// cli/heap_summary.hpp: the allocation lines of the end-of-recording summary (`record --heap`).
#pragma once

#include <string>
#include <vector>

#include "sprof/convert/stats.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::cli {

// How many call paths of the memory still allocated at exit the summary names.
inline constexpr size_t kRetainedPathsShown = 3;

struct RetainedPath {
  std::string path;  // function names, leaf first: "leak_site < main < __libc_start_call_main"
  int64_t bytes = 0;
  uint64_t blocks = 0;
};

// The call paths of `heap.retained`, named by `symbolicator` and merged by name (one function
// path may have several stacks: threads, processes), largest first, at most `limit`.
std::vector<RetainedPath> retained_paths(const profile::Profile& profile,
                                         const convert::HeapStats& heap,
                                         symbolicator::Symbolicator& symbolicator, size_t limit);

// "sprof: heap: ..." lines: what was sampled, allocated, the peak and what was left at exit
// with its top `paths`; notes for records the ring dropped and programs that did not load the
// interposer.
std::vector<std::string> heap_summary_lines(const convert::HeapStats& heap,
                                            const std::vector<RetainedPath>& paths);

}  // namespace sprof::cli
