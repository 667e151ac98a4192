#include "summary.hpp"

#include <algorithm>
#include <cstdio>

#include "sprof/unwind/unwinder.hpp"

namespace sprof::cli {

std::string count_of(uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string human_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024ULL * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  } else if (bytes < 1024ULL * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024 * 1024 * 1024));
  }
  return buf;
}

std::string grouped(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

RecordingFacts facts_from(const convert::RecordingStats& stats, const std::string& command,
                          double duration_s, const std::string& output_path,
                          uint64_t output_bytes) {
  RecordingFacts f;
  f.command = command;
  f.duration_s = duration_s;
  f.processes = stats.processes;
  f.threads = stats.threads;
  f.samples = stats.samples;
  f.lost = stats.lost_records + stats.lost_samples;
  f.output_path = output_path;
  f.output_bytes = output_bytes;
  return f;
}

RecordingFacts facts_from(const recorder::Recording& recording, const std::string& command,
                          const std::string& output_path, uint64_t output_bytes) {
  return facts_from(recording.stats, command, recording.duration_s, output_path, output_bytes);
}

std::string summary_line(const RecordingFacts& f) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.2f s", f.duration_s);
  return std::string("sprof: ") + duration + ", " + count_of(f.processes, "process", "processes") +
         ", " + count_of(f.threads, "thread", "threads") + ", " +
         count_of(f.samples, "sample", "samples") + ", " + std::to_string(f.lost) + " lost -> " +
         f.output_path + " (" + human_bytes(f.output_bytes) + ")";
}

std::string stack_size_hint(const convert::RecordingStats& s, uint32_t stack_size) {
  // perf_event_open's largest user stack copy: a u16 size rounded down to 8 bytes.
  constexpr uint32_t kMaxStackSize = 65528;
  const uint64_t truncated =
      s.unwind_stops[static_cast<size_t>(sprof::unwind::UnwindStop::kStackTruncated)];
  if (stack_size >= kMaxStackSize || s.unwound_samples == 0 ||
      truncated * 20 <= s.unwound_samples) {
    return {};
  }
  char hint[256];
  std::snprintf(hint, sizeof hint,
                "sprof: %.0f%% of stacks were deeper than the %u bytes copied per sample; "
                "--stack-size %u copies the most the kernel allows",
                100.0 * static_cast<double>(truncated) / static_cast<double>(s.unwound_samples),
                stack_size, kMaxStackSize);
  return hint;
}

std::string heap_hook_line(const convert::RecordingStats& s) {
  const uint64_t cpu_samples = s.samples - std::min(s.off_cpu_samples, s.samples);
  if (s.heap.hook_samples == 0 || cpu_samples == 0) return {};
  char share[32];
  std::snprintf(
      share, sizeof share, "%.1f%%",
      100.0 * static_cast<double>(s.heap.hook_samples) / static_cast<double>(cpu_samples));
  return "sprof: heap hooks: " + count_of(s.heap.hook_samples, "sample", "samples") + " (" + share +
         " of CPU samples) were spent in sprof's allocation hook";
}

std::string details_line(const convert::RecordingStats& s, int frequency_hz) {
  // --no-cpu opens only a side-band event, which takes no samples.
  std::string line = s.event_name == "dummy" ? std::string("sprof: no CPU samples (--no-cpu)")
                                             : "sprof: event " + s.event_name + " at " +
                                                   std::to_string(frequency_hz) + " Hz";
  if (s.throttle_events) line += ", throttled " + std::to_string(s.throttle_events) + " times";
  if (s.cpu_counts) {
    // The scheduler's counts decide thread CPU; stalls the bound saw are settled by them.
    char counts[160];
    std::snprintf(counts, sizeof counts,
                  ", thread CPU from the scheduler's counts (%.1f ms taken out, %.1f ms added "
                  "to the switch records' times)",
                  static_cast<double>(s.cpu_count_removed_ns) / 1e6,
                  static_cast<double>(s.cpu_count_added_ns) / 1e6);
    line += counts;
  } else if (s.cpu_stalls) {
    char stalls[128];
    std::snprintf(stalls, sizeof stalls,
                  ", CPUs stalled %llu times for %.1f ms (left out of thread CPU: see README)",
                  static_cast<unsigned long long>(s.cpu_stalls),
                  static_cast<double>(s.cpu_stalled_ns) / 1e6);
    line += stalls;
  }
  if (!s.cpu_counts && s.cpu_switch_ins_without_pick) {
    // Each such switch-in starts at its own record, written after the switch: the thread's CPU
    // reads low by that lateness (docs/design.md, "CPU deltas"). Said, so that a thread which
    // switches often is not taken to have used exactly what the profile shows.
    line += ", " + std::to_string(s.cpu_switch_ins_without_pick) + " of " +
            std::to_string(s.cpu_switch_ins) +
            " switch-ins without a CPU-wide record of the pick (thread CPU reads ~15 us low "
            "for each)";
  }
  if (s.malformed_records)
    line += ", " + std::to_string(s.malformed_records) + " malformed records skipped";
  if (s.unwound_samples) {
    char pct[32];
    std::snprintf(
        pct, sizeof pct, "%.1f%%",
        100.0 * static_cast<double>(s.unwind_stops[0]) / static_cast<double>(s.unwound_samples));
    line += std::string(", ") + pct + " of stacks unwound to the thread entry";
    if (const auto stops = convert::describe_incomplete_unwinds(s); !stops.empty()) {
      line += " (stopped early: " + stops + ")";
    }
    if (s.stitched_samples) {
      line += ", " + std::to_string(s.stitched_samples) +
              " deeper than the copied stack completed from the thread's earlier stacks";
    }
    if (s.frame_pointer_fallback_samples) {
      line += ", " + std::to_string(s.frame_pointer_fallback_samples) +
              " through frame pointers where code had no CFI";
    }
  }
  // The reader unwinds allocations as it does samples: its CPU goes to both.
  if (const uint64_t records = s.samples + s.heap.allocations; records > 0) {
    char per[64];
    std::snprintf(per, sizeof per, ", %.2f us CPU per %s",
                  static_cast<double>(s.reader_cpu_ns) / 1e3 / static_cast<double>(records),
                  s.heap.allocations > 0 ? "sample or allocation" : "sample");
    line += per;
  }
  return line;
}

}  // namespace sprof::cli
