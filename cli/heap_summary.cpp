#include "heap_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sprof/heap/heap_analysis.hpp"
#include "sprof/presymbolicate/stack_names.hpp"
#include "summary.hpp"

namespace sprof::cli {

namespace {

// Frames of a path shown, from the allocating function outwards.
constexpr size_t kPathFrames = 6;

std::string signed_bytes(int64_t bytes) {
  return bytes < 0 ? "-" + human_bytes(static_cast<uint64_t>(-bytes))
                   : human_bytes(static_cast<uint64_t>(bytes));
}

std::string join_path(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kPathFrames; ++i) {
    if (i > 0) out += " < ";
    out += names[i];
  }
  if (names.size() > kPathFrames) out += " < ...";
  return out.empty() ? std::string("(no stack)") : out;
}

}  // namespace

std::vector<RetainedPath> retained_paths(const profile::Profile& profile,
                                         const convert::HeapStats& heap,
                                         symbolicator::Symbolicator& symbolicator, size_t limit) {
  std::map<std::string, RetainedPath> by_path;
  // The sites are sorted largest first: naming a few more than shown is enough unless many
  // stacks share a path, which only merges them further.
  const size_t named = std::min(heap.retained.size(), limit * 8);
  for (size_t i = 0; i < named; ++i) {
    const convert::RetainedSite& site = heap.retained[i];
    if (site.image >= profile.processes.size()) continue;
    const profile::Process& process = profile.processes[site.image];
    if (site.thread >= process.threads.size()) continue;
    const std::string path =
        site.stack ? join_path(presymbolicate::allocation_stack_names(
                         process, process.threads[site.thread], *site.stack, symbolicator))
                   : join_path({});
    RetainedPath& p = by_path[path];
    p.path = path;
    p.bytes += site.bytes;
    p.blocks += site.blocks;
  }
  std::vector<RetainedPath> out;
  out.reserve(by_path.size());
  for (auto& [path, p] : by_path) out.push_back(std::move(p));
  std::stable_sort(out.begin(), out.end(),
                   [](const RetainedPath& a, const RetainedPath& b) { return a.bytes > b.bytes; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

namespace {

// How many records are missing and why, in the interposers' own words (their drop counters).
std::string dropped_records_line(const convert::HeapStats& heap) {
  const uint64_t full =
      heap.dropped_records -
      std::min(heap.dropped_records, heap.dropped_contended + heap.dropped_reader_gone);
  std::string causes;
  const auto cause = [&](uint64_t n, const std::string& why) {
    if (n == 0) return;
    causes += (causes.empty() ? "" : "; ") + grouped(n) + " " + why;
  };
  cause(full, "found the ring full (sampled mode never makes the program wait)");
  cause(heap.dropped_contended, "gave up on a contended ring (sampled mode)");
  cause(heap.dropped_reader_gone, "came after sprof had stopped reading the ring");
  return "sprof: heap: " + grouped(heap.dropped_records) +
         " records were dropped, allocations and frees are missing: " + causes;
}

std::string percent_of(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

// "16-31 B": the sizes of a histogram bucket.
std::string bucket_sizes(size_t bucket) {
  const uint64_t low = heap::bucket_lower_bound(bucket);
  if (bucket <= 1) return std::to_string(low) + " B";
  const uint64_t high = 2 * low - 1;
  return low < 1024 ? std::to_string(low) + "-" + std::to_string(high) + " B"
                    : human_bytes(low) + "-" + human_bytes(high + 1);
}

// heaptrack's and DHAT's totals in one line: temporary and short-lived blocks, lifetimes and the
// most common size (docs/heap.md, "Heap analysis").
std::string analysis_line(const convert::HeapStats& heap, uint64_t calls) {
  double counted = 0;
  size_t common = 0;
  for (size_t b = 0; b < heap.sizes.size(); ++b) {
    counted += heap.sizes[b];
    if (heap.sizes[b] > heap.sizes[common]) common = b;
  }
  const auto whole = static_cast<double>(calls);
  const auto round = [](double n) { return grouped(static_cast<uint64_t>(std::llround(n))); };
  char lifetime[32];
  std::snprintf(lifetime, sizeof lifetime, "%.3g ms", heap.mean_lifetime_ms);
  return "sprof: heap: " + std::string(heap.sample_interval_bytes == 0 ? "" : "about ") +
         round(heap.temporary) + " temporary allocations (" + percent_of(heap.temporary, whole) +
         "), " + round(heap.short_lived) + " blocks freed within " +
         std::to_string(static_cast<int>(heap::kShortLivedMs)) + " ms, mean lifetime " + lifetime +
         "; most often " + bucket_sizes(common) + " (" + percent_of(heap.sizes[common], counted) +
         ")";
}

}  // namespace

std::vector<std::string> heap_summary_lines(const convert::HeapStats& heap,
                                            const std::vector<RetainedPath>& paths) {
  std::vector<std::string> lines;
  if (!heap.enabled) return lines;
  if (heap.attached_processes == 0) {
    lines.push_back(
        "sprof: heap: no allocations recorded: the command did not load libsprof-heap.so (a "
        "static or setuid program, or one that clears its environment); the CPU profile is "
        "unaffected");
    return lines;
  }
  std::string line = "sprof: heap: ";
  // The interposers add their call counts in batches; a process that ends by _exit or exec
  // loses its last batch, so the records can outnumber the counted calls.
  const uint64_t calls = std::max(heap.calls, heap.allocations);
  if (heap.sample_interval_bytes == 0) {
    line += grouped(heap.allocations) + " of " + grouped(calls) + " allocations recorded";
  } else {
    line += grouped(heap.allocations) + " of " + grouped(calls) + " allocations sampled (one per " +
            human_bytes(heap.sample_interval_bytes) + ")";
  }
  if (heap.stacked_frees != 0) line += ", " + grouped(heap.stacked_frees) + " frees with stacks";
  char peak_time[32];
  std::snprintf(peak_time, sizeof peak_time, "%.3f s", heap.peak_time_ms / 1000);
  line += ", " + human_bytes(heap.call_bytes) + " allocated; peak " +
          signed_bytes(heap.peak_live_bytes) + " live at " + peak_time + "; " +
          signed_bytes(heap.live_at_exit_bytes) + " still live at exit";
  lines.push_back(line);
  for (const RetainedPath& p : paths) {
    lines.push_back("sprof: heap:   " + signed_bytes(p.bytes) + " in " + grouped(p.blocks) +
                    (p.blocks == 1 ? " block" : " blocks") + " from " + p.path);
  }
  if (heap.running_attaches > 0) {
    // Sampled mode never records the free of a block it did not sample, so it cannot count them.
    lines.push_back("sprof: heap: attached to " + grouped(heap.running_attaches) +
                    (heap.running_attaches == 1 ? " running program" : " running programs") +
                    ": allocations before the attach are unknown; " +
                    (heap.sample_interval_bytes == 0
                         ? grouped(heap.unmatched_frees) + " frees of earlier blocks ignored"
                         : std::string("their frees are not recorded")));
  }
  if (heap.allocations > 0) lines.push_back(analysis_line(heap, calls));
  if (heap.dropped_records > 0) lines.push_back(dropped_records_line(heap));
  if (heap.sample_interval_bytes == 0 && heap.dropped_records == 0 && heap.running_attaches == 0 &&
      calls > heap.allocations) {
    // Record-all mode records every call it can: what it counted but could not record came
    // before the interposer attached (the dynamic loader's, before libc's start: Rust programs
    // make two) or from inside the hook (libc calling back), which passes straight through.
    const uint64_t unrecorded = calls - heap.allocations;
    lines.push_back("sprof: heap: " + grouped(unrecorded) +
                    (unrecorded == 1 ? " allocation was" : " allocations were") +
                    " counted but not recorded: made before the interposer could attach (by the "
                    "dynamic loader, before libc started) or from inside its hook");
  }
  if (heap.folding_from_ms >= 0) {
    char from[32];
    std::snprintf(from, sizeof from, "%.3f s", heap.folding_from_ms / 1000);
    lines.push_back("sprof: heap: from " + std::string(from) + " on, " +
                    grouped(heap.folded_blocks) + " blocks (" + signed_bytes(heap.folded_bytes) +
                    ") allocated and freed within " +
                    std::to_string(static_cast<int>(heap.folding_bucket_ms)) +
                    " ms were folded into one pair of rows per call path, to keep the profile "
                    "small; bytes per call path, retained memory and the memory track are exact");
  }
  if (heap.untracked_samples > 0) {
    lines.push_back("sprof: heap: " + grouped(heap.untracked_samples) +
                    " sampled blocks were too many to follow: their frees were not recorded");
  }
  if (!heap.unhooked_programs.empty()) {
    std::string names;
    for (const std::string& name : heap.unhooked_programs) {
      names += (names.empty() ? "" : ", ") + name;
    }
    lines.push_back("sprof: heap: " + grouped(heap.unhooked_programs.size()) + " of " +
                    grouped(heap.programs) +
                    (heap.dropped_attaches > 0
                         ? " programs wrote no attach record (" + grouped(heap.dropped_attaches) +
                               " attach records were dropped, so some may have loaded "
                               "libsprof-heap.so; the others are static, setuid, or had a "
                               "cleared environment): "
                         : " programs did not load libsprof-heap.so (static, setuid, or a "
                           "cleared environment), their allocations are missing: ") +
                    names);
  }
  // Programs that loaded the interposer but whose allocations bypass it (docs/heap.md, "Other
  // allocators"): the profile would otherwise look empty or partial without a word.
  for (const std::string& name : heap.malloc_bypassed_programs) {
    lines.push_back("sprof: heap: " + name +
                    " defines its own malloc: its allocations are not recorded");
  }
  for (const std::string& name : heap.foreign_operator_new_programs) {
    lines.push_back("sprof: heap: " + name +
                    " links an allocator whose operator new does not call malloc: blocks from "
                    "new are not recorded");
  }
  return lines;
}

}  // namespace sprof::cli
