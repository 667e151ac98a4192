#include "sprof/convert/source_description.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "sprof/heap/heap_analysis.hpp"
#include "sprof/perf/event_attr.hpp"
#include "sprof/unwind/cfi_unwinder.hpp"

namespace sprof::convert {

namespace {

const perf_event_attr& sampling_attr(const SourceDescription& source) {
  assert(!source.events.empty() && "a source has at least its sampling event");
  return source.events.front().attr;
}

// The heap settings and what came of them, under meta.sprof (heap*).
void describe_heap(profile::Meta& meta, const HeapDescription& heap, const HeapStats& s) {
  auto add = [&](const char* key, uint64_t value) {
    meta.extra.emplace_back(key, static_cast<int64_t>(value));
  };
  meta.extra.emplace_back("heap", std::string(heap.sample_interval_bytes == 0 ? "all" : "sampled"));
  add("heapIntervalBytes", heap.sample_interval_bytes);
  add("heapStackCopyBytes", heap.stack_copy_bytes);
  add("heapFreeStacks", heap.free_stacks ? 1 : 0);
  meta.extra.emplace_back("heapStacks", std::string(heap.copy_stacks ? "copy" : "walk"));
  add("heapCalls", s.calls);
  add("heapCallBytes", s.call_bytes);
  add("heapAllocations", s.allocations);
  add("heapFrees", s.frees);
  add("heapStackedFrees", s.stacked_frees);
  add("heapDroppedRecords", s.dropped_records);
  add("heapDroppedContended", s.dropped_contended);
  add("heapDroppedReaderGone", s.dropped_reader_gone);
  add("heapUntrackedSamples", s.untracked_samples);
  add("heapMalformedRecords", s.ring_malformed);
  add("heapWalkedStacks", s.walked_stacks);
  add("heapWalkFallbacks", s.walk_fallbacks);
  add("heapAttachedProcesses", s.attached_processes);
  add("heapHookSamples", s.hook_samples);
  // Attached to running programs (-p): allocations before the attach are unknown.
  add("heapAttachedRunning", s.running_attaches);
  add("heapUnmatchedFrees", s.unmatched_frees);
  // Executables whose allocations bypassed the interposer, one per line; absent when none.
  auto add_names = [&](const char* key, const std::vector<std::string>& names) {
    if (names.empty()) return;
    std::string joined;
    for (const std::string& name : names) joined += (joined.empty() ? "" : "\n") + name;
    meta.extra.emplace_back(key, joined);
  };
  add_names("heapMallocBypassed", s.malloc_bypassed_programs);
  add_names("heapOperatorNewBypassed", s.foreign_operator_new_programs);
  meta.extra.emplace_back("heapPeakLiveBytes", s.peak_live_bytes);
  meta.extra.emplace_back("heapPeakTimeMs", s.peak_time_ms);
  meta.extra.emplace_back("heapLiveAtExitBytes", s.live_at_exit_bytes);
  // The analyses of every record, before rows were folded (docs/heap.md, "Heap analysis"):
  // exact with --heap=all, estimates when sampled; `sprof report --heap` prefers them to what
  // it can compute from the rows.
  add("heapLiveAtExitBlocks", s.live_at_exit_blocks);
  add("heapTemporary", static_cast<uint64_t>(std::llround(s.temporary)));
  add("heapFreedBlocks", static_cast<uint64_t>(std::llround(s.freed_blocks)));
  meta.extra.emplace_back("heapMeanLifetimeMs", s.mean_lifetime_ms);
  add("heapShortLived", static_cast<uint64_t>(std::llround(s.short_lived)));
  meta.extra.emplace_back("heapShortLivedMs", heap::kShortLivedMs);
  meta.extra.emplace_back("heapSizeHistogram", heap::format_size_histogram(s.sizes));
  // Long record-everything runs fold short-lived blocks (native_allocations.hpp): how many, and
  // from when, so that a reader knows which rows stand for more than one block.
  add("heapFoldedBlocks", s.folded_blocks);
  meta.extra.emplace_back("heapFoldedBytes", s.folded_bytes);
  if (s.folding_from_ms >= 0) {
    meta.extra.emplace_back("heapFoldingFromMs", s.folding_from_ms);
    meta.extra.emplace_back("heapFoldingBucketMs", s.folding_bucket_ms);
  }
}

}  // namespace

bool unwinds_user_stacks(const SourceDescription& source) {
  return std::any_of(source.events.begin(), source.events.end(),
                     [](const perf::EventSpec& e) { return perf::samples_user_stacks(e.attr); });
}

std::unique_ptr<unwind::Unwinder> make_unwinder(const SourceDescription& source, HostFiles& files) {
  if (!unwinds_user_stacks(source) && !source.heap) return nullptr;
  return std::make_unique<unwind::CfiUnwinder>(files);
}

ConverterOptions converter_options(const SourceDescription& source, ProcAccess proc,
                                   unwind::Unwinder* unwinder) {
  const perf_event_attr& attr = sampling_attr(source);
  ConverterOptions o;
  o.event_name = perf::event_name(attr);
  o.origin_monotonic_ns = source.origin_monotonic_ns;
  o.origin_wall_ms = source.origin_wall_ms;
  if (const double rate = perf::sample_rate_hz(attr); rate > 0) o.interval_ms = 1000.0 / rate;
  o.product = source.product;
  o.root_pid = source.root_pid;
  o.period_is_cpu_ns = perf::period_is_cpu_ns(attr);
  o.switch_records = std::any_of(source.events.begin(), source.events.end(),
                                 [](const perf::EventSpec& e) { return e.attr.context_switch; });
  o.ticks_in_kernel = attr.exclude_kernel == 0;
  o.switch_side_band = std::any_of(
      source.events.begin(), source.events.end(),
      [](const perf::EventSpec& e) { return e.role == perf::EventRole::kSwitchSideBand; });
  o.unwinder = unwinds_user_stacks(source) ? unwinder : nullptr;
  o.proc = std::move(proc);
  if (source.heap) {
    // Allocation stacks are always unwound with CFI: the interposer captured registers and a
    // stack copy whatever the CPU samples use.
    o.heap =
        HeapOptions{source.heap->sample_interval_bytes, source.heap->interposer_name, unwinder};
  }
  return o;
}

namespace {

// A rate as a JSON integer. An attr read from a file can claim any sample_freq (up to 2^64 - 1),
// which does not fit an int64_t: such a rate is written as 0, "unknown".
int64_t whole_hz(double hz) { return hz >= 0 && hz < 9.2e18 ? static_cast<int64_t>(hz) : 0; }

}  // namespace

void describe_recording(profile::Meta& meta, const SourceDescription& source,
                        const RecordingStats& stats) {
  meta.logical_cpus = source.logical_cpus;
  meta.physical_cpus = meta.logical_cpus;
  if (!source.oscpu.empty()) meta.oscpu = source.oscpu;
  meta.extra = {
      {"event", stats.event_name},
      {"frequencyHz", whole_hz(perf::sample_rate_hz(sampling_attr(source)))},
      {"unwind", std::string(unwinds_user_stacks(source) ? "dwarf" : "fp")},
      {"lostRecords", static_cast<int64_t>(stats.lost_records)},
      {"lostSamples", static_cast<int64_t>(stats.lost_samples)},
      {"throttleEvents", static_cast<int64_t>(stats.throttle_events)},
      {"cpuStalls", static_cast<int64_t>(stats.cpu_stalls)},
      {"cpuStalledMs", static_cast<double>(stats.cpu_stalled_ns) / 1e6},
      {"cpuStallCreditedMs", static_cast<double>(stats.cpu_stall_credited_ns) / 1e6},
      {"cpuSwitchIns", static_cast<int64_t>(stats.cpu_switch_ins)},
      {"cpuSwitchInsWithoutPick", static_cast<int64_t>(stats.cpu_switch_ins_without_pick)},
      {"cpuCounts", static_cast<int64_t>(stats.cpu_counts)},
      {"cpuCountRemovedMs", static_cast<double>(stats.cpu_count_removed_ns) / 1e6},
      {"cpuCountAddedMs", static_cast<double>(stats.cpu_count_added_ns) / 1e6},
      {"malformedRecords", static_cast<int64_t>(stats.malformed_records)},
  };
  meta.extra.emplace_back("offCpuSamples", static_cast<int64_t>(stats.off_cpu_samples));
  if (source.heap) describe_heap(meta, *source.heap, stats.heap);
  if (stats.unwound_samples) {
    meta.extra.emplace_back("unwoundSamples", static_cast<int64_t>(stats.unwound_samples));
    meta.extra.emplace_back("framePointerFallbackSamples",
                            static_cast<int64_t>(stats.frame_pointer_fallback_samples));
    meta.extra.emplace_back("stitchedSamples", static_cast<int64_t>(stats.stitched_samples));
    for (size_t i = 0; i < stats.unwind_stops.size(); ++i) {
      const char* name = unwind::unwind_stop_name(static_cast<unwind::UnwindStop>(i));
      meta.extra.emplace_back(std::string("unwindStop.") + name,
                              static_cast<int64_t>(stats.unwind_stops[i]));
    }
  }
}

}  // namespace sprof::convert
