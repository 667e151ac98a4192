// sprof/profile/profile.hpp
//
// The profile model: what sprof recorded, in the shape of the Firefox Profiler's Gecko format
// (version 36) but as plain C++ values. The recorder fills it; gecko_writer.hpp serialises it as
// Gecko JSON, processed_writer.hpp as a self-contained profile with symbols, and
// profile_reader.hpp reads a Gecko file back into it. It knows nothing of perf, ELF or symbols.
//
// Times are milliseconds relative to `Meta::start_time_ms` (one origin for every process, so the
// Gecko sub-profiles all share the top-level startTime). Each `Thread` interns its own strings,
// frames and stacks, as the Gecko format requires per-thread tables.
//
// Allocations (`NativeAllocation`) and memory counters (`Counter`) follow the Firefox Profiler's
// native-allocations table and counter tracks (docs/heap.md, "In the profile").
//
// Not thread-safe: one converter builds it, then one writer reads it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sprof/core/pair_index.hpp"
#include "sprof/profile/sample_list.hpp"
#include "sprof/profile/string_table.hpp"

namespace sprof::profile {

// Indexes into `Meta::categories`; the defaults below match `default_categories()`.
enum class Category : uint8_t { kOther = 0, kIdle = 1, kUser = 2, kKernel = 3, kJit = 4 };

struct CategoryInfo {
  std::string name;
  std::string color;
  std::vector<std::string> subcategories;  // at least one; [0] is the category itself
};
std::vector<CategoryInfo> default_categories();

// One executable mapping of a module in a process (docs/firefox-profiler-format.md, "libs").
struct Library {
  uint64_t start = 0;      // first AVMA, inclusive
  uint64_t end = 0;        // exclusive
  uint64_t offset = 0;     // relative address of `start`: relative = avma - (start - offset)
  std::string name;        // basename shown in the UI
  std::string path;        // full path on disk
  std::string debug_name;  // sent to the symbol server; no '/'
  std::string debug_path;
  std::string breakpad_id;  // 33 uppercase hex characters
  std::string code_id;      // full build-id, lowercase hex (may be empty)
  std::string arch = "x86_64";
};

// A marker payload field value. `UniqueString` is written as an index into the thread's string
// table (schema format "unique-string").
struct UniqueString {
  std::string text;
};
using FieldValue = std::variant<int64_t, double, std::string, bool, UniqueString>;

struct MarkerField {
  std::string key;
  FieldValue value;
};

enum class MarkerPhase : uint8_t {
  kInstant = 0,
  kInterval = 1,
  kIntervalStart = 2,
  kIntervalEnd = 3
};

struct Marker {
  std::string name;
  std::optional<double> start_ms;
  std::optional<double> end_ms;
  MarkerPhase phase = MarkerPhase::kInstant;
  Category category = Category::kOther;
  // Empty `type` means a null payload; otherwise the payload is {"type": type, fields...}.
  std::string type;
  std::vector<MarkerField> fields;
};

// A field of a marker schema: dynamic ({key, label, format}) or static ({label, value}).
struct MarkerSchemaField {
  std::string key;  // empty for a static field
  std::string label;
  std::string format;  // dynamic fields only
  std::string value;   // static fields only
  bool searchable = false;
};

struct MarkerSchema {
  std::string name;  // matches Marker::type
  std::vector<std::string> display;
  std::string tooltip_label, table_label, chart_label;  // optional templates
  std::vector<MarkerSchemaField> data;
};

// One allocation (`bytes` > 0) or free (`bytes` < 0) in a thread's native-allocations table.
// The table is "balanced": the front end pairs a free with the latest earlier allocation of the
// same `memory_address` in the same table, so a block's free goes into the table of the thread
// that allocated it (`thread_id` says which thread freed it). Rows are in time order.
struct NativeAllocation {
  double time_ms = 0;
  int64_t bytes = 0;              // sampled allocations: the bytes the sample stands for
  std::optional<uint32_t> stack;  // index into the thread's stack table; frees have none
  uint64_t memory_address = 0;
  int64_t thread_id = 0;
};

// A counter track of a process (`counters`, docs/firefox-profiler-format.md, "native allocations"),
// e.g. its live heap bytes. Each sample holds the change since the previous one (`count`) and how
// many events made it (`number`).
struct CounterSample {
  double time_ms = 0;
  int64_t count = 0;
  int64_t number = 0;
};

struct Counter {
  std::string name;      // "malloc"
  std::string category;  // "Memory" makes the front end draw a memory track
  std::string description;
  std::vector<CounterSample> samples;  // in time order
};

struct FrameEntry {
  uint32_t location;  // string index
  Category category;
};

struct StackEntry {
  std::optional<uint32_t> prefix;
  uint32_t frame;
};

class Thread {
 public:
  std::string name;
  // Empty `process_name` / `process_type` and `pid` 0 mean "the owning `Process`'s" (the writer
  // fills them in); set them only to override.
  std::string process_name;
  std::string process_type;
  int64_t pid = 0;
  int64_t tid = 0;
  double register_time_ms = 0;
  std::optional<double> unregister_time_ms;

  uint32_t intern_string(std::string_view s);
  // A native frame at `address` (written as "0x<hex>", symbolicated later through the libs).
  uint32_t intern_address_frame(uint64_t address, Category category);
  // A frame with a given location string, e.g. "schedule (in [kernel.kallsyms])".
  uint32_t intern_frame(std::string_view location, Category category);
  // `prefix` must be an index returned earlier, so the table stays topological (prefix < index).
  uint32_t intern_stack(std::optional<uint32_t> prefix, uint32_t frame);
  // Gives address frames the category `pick(address, category)` answers (nullopt: unchanged),
  // for facts learned only after the frames were interned: which addresses are JIT code is
  // known when the recording ends (the JIT writes its perf map or jitdump while it runs).
  // Stacks keep their frame indexes, so they follow; the intern indexes are rekeyed, so a
  // later intern of (address, new category) finds the moved frame.
  void recategorize_address_frames(
      const std::function<std::optional<Category>(uint64_t address, Category category)>& pick);
  // The index of an already interned string.
  std::optional<uint32_t> find_string(std::string_view s) const;

  void add_sample(const Sample& s) { samples_.push_back(s); }
  // Full blocks of this thread's samples go to `spill` from now on (SampleList).
  void spill_samples_to(std::shared_ptr<SampleSpill> spill) { samples_.spill_to(std::move(spill)); }
  // Also interns the marker's name and its `UniqueString` field values, which the Gecko format
  // stores as indexes into this thread's string table.
  void add_marker(Marker m);
  // Also interns the name of the markers the Gecko format stores allocations as.
  void add_native_allocation(const NativeAllocation& a);
  // What `drop_before` removed.
  struct Dropped {
    uint64_t samples = 0;
    uint64_t markers = 0;
    uint64_t allocations = 0;
  };
  // Removes the samples, allocation rows and markers that lie wholly before `time_ms` (the flight
  // recorder's window, convert/flight_window.hpp). The string, frame and stack tables stay: a
  // stack seen again later keeps its index.
  Dropped drop_before(double time_ms);

  const std::vector<std::string>& strings() const { return strings_.strings(); }
  const std::vector<FrameEntry>& frames() const { return frames_; }
  const std::vector<StackEntry>& stacks() const { return stacks_; }
  const SampleList& samples() const { return samples_; }
  const std::vector<Marker>& markers() const { return markers_; }
  const std::vector<NativeAllocation>& native_allocations() const { return native_allocations_; }

 private:
  StringTable strings_;
  std::vector<FrameEntry> frames_;
  // Flat tables, not std::unordered_map: they are looked up for each new frame of each sample.
  PairIndex frame_index_;          // (location, category) -> frame
  PairIndex address_frame_index_;  // (address, category) -> frame
  std::vector<StackEntry> stacks_;
  PairIndex stack_index_;  // (prefix+1, frame) -> stack
  SampleList samples_;
  std::vector<Marker> markers_;
  std::vector<NativeAllocation> native_allocations_;
};

// The marker name and payload type of an allocation in the Gecko format
// (docs/firefox-profiler-format.md, "native allocations").
inline constexpr std::string_view kNativeAllocationMarker = "Native allocation";

// One process image. An exec starts a new `Process` with the same pid
// (docs/firefox-profiler-format.md, "Several processes").
struct Process {
  int64_t pid = 0;
  std::string name;
  std::string process_type = "default";  // "default" for the root, "child" otherwise
  std::optional<double> shutdown_time_ms;
  std::vector<Library> libs;  // sorted by start, non-overlapping (the writer checks and fixes)
  std::vector<Thread> threads;
  // Drawn on the process's track: the front end attaches them to its "GeckoMain" thread.
  std::vector<Counter> counters;
};

struct Meta {
  double start_time_ms = 0;              // wall-clock ms since the Unix epoch at the origin
  uint64_t start_time_monotonic_ns = 0;  // CLOCK_MONOTONIC at the origin
  double interval_ms = 1;
  std::optional<double> profiling_start_ms;
  std::optional<double> profiling_end_ms;
  std::string product = "sprof";
  std::string oscpu = "Linux x86_64";
  std::string abi = "x86_64";
  std::string cpu_name;
  int logical_cpus = 0;
  int physical_cpus = 0;
  // Writes meta.sampleUnits (docs/firefox-profiler-format.md, "Gecko profile: meta").
  bool has_cpu_deltas = true;
  std::vector<CategoryInfo> categories = default_categories();
  std::vector<MarkerSchema> marker_schema;
  // sprof's own recording facts (event, lost samples, ...), written under meta.sprof.
  std::vector<std::pair<std::string, std::variant<int64_t, double, std::string>>> extra;
};

struct Profile {
  Meta meta;
  std::vector<Process> processes;  // [0] is the root process (top level of the Gecko JSON)
};

}  // namespace sprof::profile
