// sprof/report/report_profile.hpp
//
// A profile read for reports on the terminal (`sprof report`, `sprof export`): per thread, the
// stacks of named frames and the weight of samples on each, plus the facts of the header. Frames
// are what the Firefox Profiler shows: one per inline depth, named by the file's embedded symbols
// (a self-contained file) or by the symbolicator (a Gecko file), so a report agrees with the
// call tree in the browser.
//
// Functions are shared by every thread (one id per (name, module)), so threads merge by adding
// weights. Stack tables are topological (a prefix comes before its stack), as in the files.
// Reading is bounded by the input and never trusts it: a malformed file is an error naming where.
// Not thread-safe; immutable once read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::report {

struct Function {
  std::string name;
  std::string module;  // lib name ("libm.so.6"); empty when the frame is in no lib
  std::string file;    // source file where known (the first one met for this name and module)
};

// A module of the profile (its `libs`), for exports that keep addresses (pprof's mappings).
struct Library {
  std::string name;
  std::string path;
  std::string breakpad_id;
  std::string code_id;  // the build id, lowercase hex; may be empty
};

// The category the file gives a frame (meta.categories by name); the rest are kOther.
enum class FrameCategory : uint8_t { kOther, kUser, kKernel, kJit };

// A frame of a thread: one inline depth at one address.
struct Frame {
  std::optional<uint64_t> address;  // lib-relative; none outside every lib
  std::optional<uint32_t> lib;      // index into ReportProfile::libs
  uint32_t inline_depth = 0;        // 0: the function the code belongs to; n: inlined n deep
  uint32_t function = 0;
  uint32_t line = 0;  // 0 if unknown
  FrameCategory category = FrameCategory::kOther;
};

struct StackNode {
  std::optional<uint32_t> prefix;  // the caller's node; none at a root
  uint32_t function;               // index into ReportProfile::functions
  uint32_t frame = 0;              // index into ReportThread::frames
};

// A row of a thread's native-allocations table (`sprof record --heap`): an allocation, or with
// negative bytes the free of a block this thread allocated (docs/heap.md, "In the profile").
struct AllocationRow {
  double time_ms = 0;
  int64_t bytes = 0;
  std::optional<uint32_t> stack;  // allocations: index into ReportThread::stacks
  uint64_t address = 0;           // folded rows: above user space (docs/heap.md)
  int64_t thread_id = 0;          // the allocating thread, or for a free the freeing one

  // Frees have negative bytes; a free of an empty block has none, nor a stack, and reads as one
  // (an empty allocation keeps its stack).
  bool is_free() const { return bytes < 0 || (bytes == 0 && !stack); }
};

struct ReportThread {
  std::string name;
  std::string process_name;
  int64_t pid = 0;
  int64_t tid = 0;
  std::vector<Frame> frames;
  std::vector<StackNode> stacks;
  // Per stack node: the weight of the samples whose leaf it is, and their CPU time.
  std::vector<uint64_t> stack_weight;
  std::vector<uint64_t> stack_cpu_ns;
  uint64_t samples = 0;  // every sample row, with or without a stack
  uint64_t samples_without_stack = 0;
  uint64_t idle_samples = 0;  // left out of `stack_weight` (ReadOptions::include_idle)
  std::optional<double> first_sample_ms, last_sample_ms;
  std::vector<AllocationRow> allocations;  // in row (time) order
};

// A value of the profile's `meta.sprof` object (sprof's own recording facts).
using MetaValue = std::variant<int64_t, double, std::string>;

struct ReportMeta {
  std::string product;
  double interval_ms = 0;
  double start_time_ms = 0;  // wall clock, ms since the Unix epoch
  std::optional<double> profiling_start_ms, profiling_end_ms;
  bool symbolicated = false;  // names came from the file or a symbolicator
  std::vector<std::pair<std::string, MetaValue>> sprof;  // in file order

  const MetaValue* sprof_value(std::string_view key) const;
};

struct ReportProfile {
  ReportMeta meta;
  std::vector<Function> functions;
  std::vector<Library> libs;
  std::vector<ReportThread> threads;
};

struct ReadOptions {
  // Samples whose stack is in the "Idle" category (a thread off the CPU: sprof's off-CPU samples)
  // are left out unless asked for, as profiler-cli leaves them out: a CPU profile's percentages
  // are of the time on the CPU, as perf report's are.
  bool include_idle = false;
};

// Reads a processed profile (the self-contained files sprof writes, or another tool's processed
// profile with the same tables). kMalformed names the table and row that does not fit.
Result<ReportProfile> read_processed_profile(std::string_view json,
                                             const ReadOptions& options = {});

}  // namespace sprof::report
