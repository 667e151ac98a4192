#include "sprof/report/pprof_export.hpp"

#include <zlib.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "protobuf_writer.hpp"

namespace sprof::report {

namespace {

using detail::ProtobufWriter;

// Field numbers of profile.proto.
namespace field {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
                   kStringTable = 6, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11,
                   kPeriod = 12, kDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
constexpr uint32_t kLabelKey = 1, kLabelStr = 2, kLabelNum = 3;
constexpr uint32_t kMappingId = 1, kMappingMemoryStart = 2, kMappingMemoryLimit = 3,
                   kMappingFilename = 5, kMappingBuildId = 6, kMappingHasFunctions = 7,
                   kMappingHasFilenames = 8, kMappingHasLineNumbers = 9,
                   kMappingHasInlineFrames = 10;
constexpr uint32_t kLocationId = 1, kLocationMappingId = 2, kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3,
                   kFunctionFilename = 4;
}  // namespace field

class Strings {
 public:
  Strings() { index(""); }  // string_table[0] must be ""
  int64_t index(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<int64_t>(table_.size()));
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::vector<std::string> table_;
  std::unordered_map<std::string, int64_t> ids_;
};

// One location: a module address with its inline chain, or a frame outside every module.
struct LocationKey {
  uint32_t mapping = 0;  // 0: none
  uint64_t address = 0;
  std::vector<uint32_t> functions;  // innermost first
  std::vector<uint32_t> lines;
  auto operator<=>(const LocationKey&) const = default;
};

// What a profile's samples measure: their value types, in order, and which one pprof shows first;
// the period (one sample's worth) in the last.
struct SampleKinds {
  std::vector<std::pair<const char*, const char*>> types;  // (type, unit)
  const char* default_type = "";
  std::pair<const char*, const char*> period_type;
  int64_t period = 0;
};

// Per stack of a thread: its values, in the order of SampleKinds::types.
using StackValues = std::function<std::vector<uint64_t>(size_t stack)>;

class Builder {
 public:
  Builder(const ReportProfile& profile) : profile_(profile) {}

  void add_thread(const ReportThread& thread, const StackValues& values_of) {
    // Per stack node that starts an inline chain (its innermost frame): its location, and the
    // node above the chain.
    std::vector<int64_t> location_of(thread.stacks.size(), -1);
    std::vector<std::optional<uint32_t>> above(thread.stacks.size());
    for (size_t s = 0; s < thread.stacks.size(); ++s) {
      const std::vector<uint64_t> values = values_of(s);
      if (std::all_of(values.begin(), values.end(), [](uint64_t v) { return v == 0; })) continue;
      std::vector<uint64_t> locations;
      for (std::optional<uint32_t> node = static_cast<uint32_t>(s); node; node = above[*node]) {
        if (location_of[*node] < 0) chain_at(thread, *node, location_of, above);
        locations.push_back(static_cast<uint64_t>(location_of[*node]));
      }
      ProtobufWriter sample;
      sample.packed_field(field::kSampleLocationId, locations);
      sample.packed_field(field::kSampleValue, values);
      add_label(sample, "thread", thread.name);
      add_label(sample, "tid", thread.tid);
      add_label(sample, "pid", thread.pid);
      out_.message_field(field::kSample, sample);
    }
  }

  std::string finish(const ReportSummary& summary, const SampleKinds& kinds) {
    ProtobufWriter head;
    const auto value_type = [&](uint32_t f, const char* type, const char* unit) {
      ProtobufWriter vt;
      vt.int64_field(field::kValueTypeType, strings_.index(type));
      vt.int64_field(field::kValueTypeUnit, strings_.index(unit));
      head.message_field(f, vt);
    };
    for (const auto& [type, unit] : kinds.types) value_type(field::kSampleType, type, unit);
    ProtobufWriter tail;
    for (uint32_t lib = 0; lib < mapping_limit_.size(); ++lib) {
      if (mapping_limit_[lib] == 0) continue;
      const Library& l = profile_.libs[lib];
      ProtobufWriter m;
      m.varint_field(field::kMappingId, lib + 1);
      m.varint_field(field::kMappingMemoryStart, 0);
      m.varint_field(field::kMappingMemoryLimit, mapping_limit_[lib]);
      m.int64_field(field::kMappingFilename, strings_.index(l.path.empty() ? l.name : l.path));
      m.int64_field(field::kMappingBuildId,
                    strings_.index(l.code_id.empty() ? l.breakpad_id : l.code_id));
      for (uint32_t f : {field::kMappingHasFunctions, field::kMappingHasFilenames,
                         field::kMappingHasLineNumbers, field::kMappingHasInlineFrames}) {
        m.varint_field(f, 1);
      }
      tail.message_field(field::kMapping, m);
    }
    for (const auto& [key, id] : locations_) {
      ProtobufWriter loc;
      loc.varint_field(field::kLocationId, id);
      if (key.mapping) loc.varint_field(field::kLocationMappingId, key.mapping);
      loc.varint_field(field::kLocationAddress, key.address);
      for (size_t i = 0; i < key.functions.size(); ++i) {
        ProtobufWriter line;
        line.varint_field(field::kLineFunctionId, key.functions[i] + 1);
        line.int64_field(field::kLineLine, key.lines[i]);
        loc.message_field(field::kLocationLine, line);
      }
      tail.message_field(field::kLocation, loc);
    }
    for (uint32_t f : used_functions_) {
      const Function& fn = profile_.functions[f];
      ProtobufWriter func;
      func.varint_field(field::kFunctionId, f + 1);
      func.int64_field(field::kFunctionName, strings_.index(fn.name));
      func.int64_field(field::kFunctionSystemName, strings_.index(fn.name));
      func.int64_field(field::kFunctionFilename, strings_.index(fn.file));
      tail.message_field(field::kFunction, func);
    }
    const ReportMeta& meta = profile_.meta;
    const double start_ms = meta.start_time_ms + meta.profiling_start_ms.value_or(0);
    tail.int64_field(field::kTimeNanos, static_cast<int64_t>(start_ms * 1e6));
    tail.int64_field(field::kDurationNanos, static_cast<int64_t>(summary.duration_ms * 1e6));
    ProtobufWriter period_type;
    period_type.int64_field(field::kValueTypeType, strings_.index(kinds.period_type.first));
    period_type.int64_field(field::kValueTypeUnit, strings_.index(kinds.period_type.second));
    tail.message_field(field::kPeriodType, period_type);
    tail.int64_field(field::kPeriod, kinds.period);
    tail.int64_field(field::kDefaultSampleType, strings_.index(kinds.default_type));
    // Every string is interned by now.
    for (const std::string& s : strings_.table()) tail.bytes_field(field::kStringTable, s);
    return head.take() + out_.take() + tail.take();
  }

 private:
  // The location of the inline chain whose innermost frame is `node`: the nodes above it with
  // the same address and depths down to 0 (a frame without an address is a chain of its own).
  void chain_at(const ReportThread& thread, uint32_t node, std::vector<int64_t>& location_of,
                std::vector<std::optional<uint32_t>>& above) {
    LocationKey key;
    const Frame& inner = thread.frames[thread.stacks[node].frame];
    std::optional<uint32_t> at = node;
    while (at) {
      const Frame& f = thread.frames[thread.stacks[*at].frame];
      if (at != node && (f.address != inner.address || f.lib != inner.lib)) break;
      key.functions.push_back(f.function);
      key.lines.push_back(f.line);
      at = thread.stacks[*at].prefix;
      if (!inner.address || f.inline_depth == 0) break;
    }
    if (inner.address && inner.lib && *inner.lib < profile_.libs.size()) {
      key.mapping = *inner.lib + 1;
      mapping_limit_.resize(profile_.libs.size(), 0);
      mapping_limit_[*inner.lib] = std::max(mapping_limit_[*inner.lib], *inner.address + 1);
    }
    key.address = inner.address.value_or(0);
    for (uint32_t f : key.functions) used_functions_.insert(f);
    const auto [it, added] =
        locations_.try_emplace(std::move(key), static_cast<uint64_t>(locations_.size() + 1));
    location_of[node] = static_cast<int64_t>(it->second);
    above[node] = at;
  }

  void add_label(ProtobufWriter& sample, const char* key, const std::string& value) {
    ProtobufWriter label;
    label.int64_field(field::kLabelKey, strings_.index(key));
    label.int64_field(field::kLabelStr, strings_.index(value));
    sample.message_field(field::kSampleLabel, label);
  }
  void add_label(ProtobufWriter& sample, const char* key, int64_t value) {
    ProtobufWriter label;
    label.int64_field(field::kLabelKey, strings_.index(key));
    label.int64_field(field::kLabelNum, value);
    sample.message_field(field::kSampleLabel, label);
  }

  const ReportProfile& profile_;
  Strings strings_;
  ProtobufWriter out_;  // the samples, in order
  std::map<LocationKey, uint64_t> locations_;
  std::vector<uint64_t> mapping_limit_;  // per lib: highest address + 1; 0: lib unused
  std::set<uint32_t> used_functions_;
};

}  // namespace

namespace {

// Samples: their count and CPU time (the samples' CPU deltas; without them, the count times the
// interval).
std::string cpu_message(const ReportProfile& profile, const ThreadSet& threads) {
  const auto interval_ns = static_cast<uint64_t>(profile.meta.interval_ms * 1e6);
  Builder builder(profile);
  for (const ReportThread* thread : threads) {
    bool has_cpu = false;
    for (uint64_t ns : thread->stack_cpu_ns) has_cpu = has_cpu || ns != 0;
    builder.add_thread(*thread, [&](size_t s) {
      const uint64_t weight = thread->stack_weight[s];
      return std::vector<uint64_t>{weight,
                                   has_cpu ? thread->stack_cpu_ns[s] : weight * interval_ns};
    });
  }
  return builder.finish(summarize(profile, threads),
                        {{{"samples", "count"}, {"cpu", "nanoseconds"}},
                         "cpu",
                         {"cpu", "nanoseconds"},
                         static_cast<int64_t>(interval_ns)});
}

// Allocations: go's heap profile types. Objects only where every block is a row of its own.
std::string memory_message(const ReportProfile& profile, const ThreadSet& threads,
                           HeapWeight default_type) {
  std::vector<ThreadMemory> memory;
  bool folded = false;
  for (const ReportThread* thread : threads) {
    memory.push_back(memory_per_stack(*thread));
    folded = folded || memory.back().folded;
  }
  Builder builder(profile);
  for (size_t t = 0; t < threads.size(); ++t) {
    builder.add_thread(*threads[t], [&](size_t s) {
      const StackMemory& m = memory[t].stacks[s];
      if (folded) return std::vector<uint64_t>{m.allocated_bytes, m.retained_bytes};
      return std::vector<uint64_t>{m.allocated_blocks, m.allocated_bytes, m.retained_blocks,
                                   m.retained_bytes};
    });
  }
  SampleKinds kinds;
  if (folded) {
    kinds.types = {{"alloc_space", "bytes"}, {"inuse_space", "bytes"}};
  } else {
    kinds.types = {{"alloc_objects", "count"},
                   {"alloc_space", "bytes"},
                   {"inuse_objects", "count"},
                   {"inuse_space", "bytes"}};
  }
  kinds.default_type = default_type == HeapWeight::kRetained ? "inuse_space" : "alloc_space";
  kinds.period_type = {"space", "bytes"};
  return builder.finish(summarize(profile, threads), kinds);
}

}  // namespace

std::string pprof_message(const ReportProfile& profile, const ThreadSet& threads,
                          const PprofOptions& options) {
  return options.memory ? memory_message(profile, threads, options.default_type)
                        : cpu_message(profile, threads);
}

Result<std::string> pprof_gzip(const ReportProfile& profile, const ThreadSet& threads,
                               const PprofOptions& options) {
  const std::string message = pprof_message(profile, threads, options);
  z_stream z{};
  // 16 + 15 window bits: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return fail(Errc::kInternal, "pprof: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, message.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
  z.avail_in = static_cast<uInt>(message.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END) return fail(Errc::kInternal, "pprof: deflate did not finish");
  return out;
}

}  // namespace sprof::report
