// One thread of a self-contained (processed, version 42) profile, as column tables built from a
// Gecko-shaped `Thread` and the symbols of its process's libs. Frame addresses, inline
// expansion, funcs, resources and native symbols follow what the Firefox Profiler's own
// processing and symbolication build (processed_writer.hpp); the tables are written by
// `write_processed_thread`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sprof/core/json_writer.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/profile/string_table.hpp"

namespace sprof::profile::detail {

// A process's libs as the writer sees them.
struct ProcessLibs {
  std::vector<Library> libs;                  // normalize_libs(process.libs)
  std::vector<uint32_t> global_index;         // per lib: index into the profile-level libs
  std::vector<const ModuleSymbols*> symbols;  // per lib: nullptr when the module was not found
};

struct ProcessedThread {
  StringTable strings;

  // frameTable (address -1: not in a lib)
  std::vector<int64_t> frame_address;
  std::vector<uint32_t> frame_inline_depth;
  std::vector<uint8_t> frame_category;
  std::vector<uint32_t> frame_func;
  std::vector<std::optional<uint32_t>> frame_native_symbol;
  std::vector<std::optional<uint32_t>> frame_line;

  // funcTable (resource -1: none)
  std::vector<uint32_t> func_name;
  std::vector<int64_t> func_resource;
  std::vector<std::optional<uint32_t>> func_file;

  // resourceTable: all of type "library"; `lib` is null for a library known only by name
  std::vector<std::optional<uint32_t>> resource_lib;
  std::vector<uint32_t> resource_name;

  // nativeSymbols
  std::vector<uint32_t> symbol_lib;
  std::vector<uint64_t> symbol_address;
  std::vector<uint32_t> symbol_name;
  std::vector<std::optional<uint64_t>> symbol_size;

  // stackTable
  std::vector<uint32_t> stack_frame;
  std::vector<uint8_t> stack_category;
  std::vector<std::optional<uint32_t>> stack_prefix;

  // samples, in time order
  std::vector<std::optional<uint32_t>> sample_stack;
  std::vector<double> sample_time;
  std::vector<std::optional<uint64_t>> sample_cpu_delta;

  // markers: indexes into `Thread::markers()` in the order the front end sorts them
  std::vector<uint32_t> marker_order;

  // nativeAllocations: the stack of each of `Thread::native_allocations()`, in this table
  std::vector<std::optional<uint32_t>> allocation_stack;
};

ProcessedThread build_processed_thread(const Thread& thread, const ProcessLibs& libs);

// Writes the thread object; `process` supplies what the thread inherits.
void write_processed_thread(JsonWriter& w, const Thread& thread, const Process& process,
                            const ProcessedThread& tables);

}  // namespace sprof::profile::detail
