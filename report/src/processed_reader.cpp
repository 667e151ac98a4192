// Reads the tables of a processed profile that a report needs: per thread the stack, frame,
// func and resource tables, the string array and the samples; the header facts from meta.
// Every index is checked against the table it points into, and every stack's prefix must come
// before it, so the reports can walk stacks without checks of their own.
#include <simdjson.h>

#include <unordered_map>

#include "malformed_profile.hpp"
#include "native_allocations_reader.hpp"
#include "sprof/report/report_profile.hpp"

namespace sprof::report {

namespace {

using simdjson::dom::element;
using Column = std::vector<int64_t>;  // -1: null

constexpr int64_t kNull = -1;

std::optional<element> member(element e, std::string_view key) {
  element v;
  if (e.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

std::optional<double> number(std::optional<element> e) {
  double d = 0;
  if (!e || e->get_double().get(d) != simdjson::SUCCESS) return std::nullopt;
  return d;
}

std::string_view text(std::optional<element> e) {
  std::string_view s;
  if (!e || e->get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}

// The processed format writes pids and tids as strings since version 48; sprof as numbers.
int64_t id_of(std::optional<element> e) {
  int64_t v = 0;
  if (e && e->get_int64().get(v) == simdjson::SUCCESS) return v;
  const std::string_view s = text(e);
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

// A column of indexes or nulls; `required` columns must exist. Negative numbers and non-integers
// read as null, which the callers reject where a value is required.
Result<Column> read_column(element table, std::string_view key, const std::string& where,
                           bool required = true) {
  simdjson::dom::array values;
  if (table.at_key(key).get_array().get(values) != simdjson::SUCCESS) {
    if (!required) return Column{};
    return malformed_profile(where + "." + std::string(key), "is not an array");
  }
  Column out;
  out.reserve(values.size());
  for (element v : values) {
    int64_t i = kNull;
    if (v.get_int64().get(i) != simdjson::SUCCESS || i < 0) i = kNull;
    out.push_back(i);
  }
  return out;
}

Result<element> table(element thread, std::string_view name, const std::string& where) {
  auto t = member(thread, name);
  if (!t || !t->is_object())
    return malformed_profile(where + "." + std::string(name), "is missing");
  return *t;
}

Result<uint32_t> index_into(const Column& column, size_t row, size_t size,
                            const std::string& where) {
  if (row >= column.size() || column[row] == kNull || static_cast<uint64_t>(column[row]) >= size) {
    return malformed_profile(where + "[" + std::to_string(row) + "]", "points outside its table");
  }
  return static_cast<uint32_t>(column[row]);
}

// Interns functions across threads by (name, module).
class FunctionInterner {
 public:
  explicit FunctionInterner(std::vector<Function>& functions) : functions_(functions) {}

  uint32_t intern(std::string_view name, std::string_view module, std::string_view file) {
    std::string key;
    key.reserve(name.size() + module.size() + 1);
    key.append(name).push_back('\0');
    key.append(module);
    auto [it, added] = ids_.try_emplace(std::move(key), static_cast<uint32_t>(functions_.size()));
    if (added) functions_.push_back({std::string(name), std::string(module), std::string(file)});
    return it->second;
  }

 private:
  std::vector<Function>& functions_;
  std::unordered_map<std::string, uint32_t> ids_;
};

class ThreadReader {
 public:
  // `idle_category`: the index of the "Idle" category, whose samples are skipped; none: keep all.
  // `categories`: meta.categories as FrameCategory, by index.
  ThreadReader(element thread, std::string where, FunctionInterner& functions,
               std::optional<int64_t> idle_category, size_t libs,
               const std::vector<FrameCategory>& categories)
      : thread_(thread),
        where_(std::move(where)),
        functions_(functions),
        idle_category_(idle_category),
        libs_(libs),
        categories_(categories) {}

  Result<ReportThread> read() {
    ReportThread out;
    out.name = std::string(text(member(thread_, "name")));
    out.process_name = std::string(text(member(thread_, "processName")));
    out.pid = id_of(member(thread_, "pid"));
    out.tid = id_of(member(thread_, "tid"));
    SPROF_TRY(const std::vector<std::string_view> strings, read_strings());
    SPROF_TRY(const std::vector<FuncInfo> funcs, read_functions(strings));
    SPROF_TRY_VOID(read_frames(funcs, out));
    SPROF_TRY_VOID(read_stacks(out));
    SPROF_TRY_VOID(read_samples(out));
    SPROF_TRY(out.allocations, read_native_allocations(thread_, where_, out.stacks.size()));
    return out;
  }

 private:
  Result<std::vector<std::string_view>> read_strings() {
    simdjson::dom::array array;
    if (thread_.at_key("stringArray").get_array().get(array) != simdjson::SUCCESS) {
      return malformed_profile(where_ + ".stringArray", "is not an array");
    }
    std::vector<std::string_view> strings;
    strings.reserve(array.size());
    for (element s : array) strings.push_back(text(s));
    return strings;
  }

  // Per func: its function id and lib.
  struct FuncInfo {
    uint32_t function;
    std::optional<uint32_t> lib;
  };

  Result<std::vector<FuncInfo>> read_functions(const std::vector<std::string_view>& strings) {
    const std::string funcs_at = where_ + ".funcTable";
    const std::string resources_at = where_ + ".resourceTable";
    SPROF_TRY(element funcs, table(thread_, "funcTable", where_));
    SPROF_TRY(element resources, table(thread_, "resourceTable", where_));
    SPROF_TRY(const Column name, read_column(funcs, "name", funcs_at));
    SPROF_TRY(const Column resource, read_column(funcs, "resource", funcs_at));
    SPROF_TRY(const Column file, read_column(funcs, "fileName", funcs_at, /*required=*/false));
    SPROF_TRY(const Column resource_name, read_column(resources, "name", resources_at));
    SPROF_TRY(const Column resource_lib, read_column(resources, "lib", resources_at, false));
    std::vector<FuncInfo> out;
    out.reserve(name.size());
    for (size_t f = 0; f < name.size(); ++f) {
      SPROF_TRY(const uint32_t name_index, index_into(name, f, strings.size(), funcs_at + ".name"));
      std::string_view module, file_name;
      std::optional<uint32_t> lib;
      if (f < resource.size() && resource[f] != kNull) {
        SPROF_TRY(const uint32_t r,
                  index_into(resource, f, resource_name.size(), funcs_at + ".resource"));
        SPROF_TRY(const uint32_t module_index,
                  index_into(resource_name, r, strings.size(), resources_at + ".name"));
        module = strings[module_index];
        if (r < resource_lib.size() && resource_lib[r] != kNull) {
          SPROF_TRY(lib, index_into(resource_lib, r, libs_, resources_at + ".lib"));
        }
      }
      if (f < file.size() && file[f] != kNull) {
        SPROF_TRY(const uint32_t file_index,
                  index_into(file, f, strings.size(), funcs_at + ".fileName"));
        file_name = strings[file_index];
      }
      out.push_back({functions_.intern(strings[name_index], module, file_name), lib});
    }
    return out;
  }

  Result<void> read_frames(const std::vector<FuncInfo>& funcs, ReportThread& out) {
    const std::string at = where_ + ".frameTable";
    SPROF_TRY(element frames, table(thread_, "frameTable", where_));
    SPROF_TRY(const Column func, read_column(frames, "func", at));
    SPROF_TRY(const Column address, read_column(frames, "address", at, /*required=*/false));
    SPROF_TRY(const Column depth, read_column(frames, "inlineDepth", at, false));
    SPROF_TRY(const Column line, read_column(frames, "line", at, false));
    SPROF_TRY(const Column category, read_column(frames, "category", at, false));
    const auto optional_at = [](const Column& c, size_t i) {
      return i < c.size() && c[i] != kNull ? std::optional<uint64_t>(c[i]) : std::nullopt;
    };
    out.frames.reserve(func.size());
    for (size_t i = 0; i < func.size(); ++i) {
      SPROF_TRY(const uint32_t f, index_into(func, i, funcs.size(), at + ".func"));
      Frame frame;
      frame.function = funcs[f].function;
      frame.lib = funcs[f].lib;
      frame.address = optional_at(address, i);
      frame.inline_depth = static_cast<uint32_t>(optional_at(depth, i).value_or(0));
      frame.line = static_cast<uint32_t>(optional_at(line, i).value_or(0));
      // An index outside meta.categories is only a colour lost, not a malformed file.
      if (const auto c = optional_at(category, i); c && *c < categories_.size()) {
        frame.category = categories_[*c];
      }
      out.frames.push_back(frame);
    }
    return ok();
  }

  Result<void> read_stacks(ReportThread& out) {
    const std::string at = where_ + ".stackTable";
    SPROF_TRY(element stacks, table(thread_, "stackTable", where_));
    SPROF_TRY(const Column frame, read_column(stacks, "frame", at));
    SPROF_TRY(const Column prefix, read_column(stacks, "prefix", at));
    if (idle_category_) {
      SPROF_TRY(stack_category_, read_column(stacks, "category", at, /*required=*/false));
    }
    out.stacks.reserve(frame.size());
    for (size_t i = 0; i < frame.size(); ++i) {
      SPROF_TRY(const uint32_t f, index_into(frame, i, out.frames.size(), at + ".frame"));
      StackNode node{std::nullopt, out.frames[f].function, f};
      if (i < prefix.size() && prefix[i] != kNull) {
        // A prefix before its stack keeps every walk to the root finite.
        SPROF_TRY(node.prefix, index_into(prefix, i, i, at + ".prefix"));
      }
      out.stacks.push_back(node);
    }
    out.stack_weight.assign(out.stacks.size(), 0);
    out.stack_cpu_ns.assign(out.stacks.size(), 0);
    return ok();
  }

  Result<void> read_samples(ReportThread& out) {
    const std::string at = where_ + ".samples";
    SPROF_TRY(element samples, table(thread_, "samples", where_));
    SPROF_TRY(const Column stack, read_column(samples, "stack", at));
    // weight is null for "one per sample"; threadCPUDelta is absent without CPU deltas.
    SPROF_TRY(const Column weight, read_column(samples, "weight", at, /*required=*/false));
    SPROF_TRY(const Column cpu_delta, read_column(samples, "threadCPUDelta", at, false));
    if (!weight.empty() && weight.size() != stack.size()) {
      return malformed_profile(at + ".weight", "has a different length than samples.stack");
    }
    out.samples = stack.size();
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i] == kNull) {
        ++out.samples_without_stack;
        continue;
      }
      SPROF_TRY(const uint32_t s, index_into(stack, i, out.stacks.size(), at + ".stack"));
      if (idle_category_ && s < stack_category_.size() && stack_category_[s] == *idle_category_) {
        ++out.idle_samples;
        continue;
      }
      out.stack_weight[s] +=
          weight.empty() ? 1 : static_cast<uint64_t>(std::max<int64_t>(weight[i], 0));
      if (i < cpu_delta.size() && cpu_delta[i] != kNull) {
        out.stack_cpu_ns[s] += static_cast<uint64_t>(cpu_delta[i]);
      }
    }
    read_sample_times(samples, out);
    return ok();
  }

  static void read_sample_times(element samples, ReportThread& out) {
    simdjson::dom::array times;
    if (samples.at_key("time").get_array().get(times) != simdjson::SUCCESS || times.size() == 0) {
      return;
    }
    out.first_sample_ms = number(*times.begin());
    out.last_sample_ms = number(times.at(times.size() - 1).value_unsafe());
  }

  element thread_;
  std::string where_;
  FunctionInterner& functions_;
  std::optional<int64_t> idle_category_;
  size_t libs_;
  const std::vector<FrameCategory>& categories_;
  Column stack_category_;
};

std::vector<Library> read_libs(element root) {
  std::vector<Library> libs;
  simdjson::dom::array list;
  if (root.at_key("libs").get_array().get(list) != simdjson::SUCCESS) return libs;
  for (element lib : list) {
    libs.push_back({std::string(text(member(lib, "name"))), std::string(text(member(lib, "path"))),
                    std::string(text(member(lib, "breakpadId"))),
                    std::string(text(member(lib, "codeId")))});
  }
  return libs;
}

// The index of meta.categories' "Idle" entry.
std::optional<int64_t> idle_category(element meta) {
  simdjson::dom::array categories;
  if (meta.at_key("categories").get_array().get(categories) != simdjson::SUCCESS) return {};
  int64_t index = 0;
  for (element c : categories) {
    if (text(member(c, "name")) == "Idle") return index;
    ++index;
  }
  return std::nullopt;
}

// meta.categories by name, as sprof writes them (profile::default_categories).
std::vector<FrameCategory> frame_categories(element meta) {
  std::vector<FrameCategory> out;
  simdjson::dom::array categories;
  if (meta.at_key("categories").get_array().get(categories) != simdjson::SUCCESS) return out;
  for (element c : categories) {
    const std::string_view name = text(member(c, "name"));
    out.push_back(name == "User"     ? FrameCategory::kUser
                  : name == "Kernel" ? FrameCategory::kKernel
                  : name == "JIT"    ? FrameCategory::kJit
                                     : FrameCategory::kOther);
  }
  return out;
}

ReportMeta read_meta(element meta) {
  ReportMeta out;
  out.product = std::string(text(member(meta, "product")));
  out.interval_ms = number(member(meta, "interval")).value_or(0);
  out.start_time_ms = number(member(meta, "startTime")).value_or(0);
  out.profiling_start_ms = number(member(meta, "profilingStartTime"));
  out.profiling_end_ms = number(member(meta, "profilingEndTime"));
  bool symbolicated = false;
  if (auto s = member(meta, "symbolicated");
      s && s->get_bool().get(symbolicated) == simdjson::SUCCESS) {
    out.symbolicated = symbolicated;
  }
  simdjson::dom::object sprof;
  if (meta.at_key("sprof").get_object().get(sprof) == simdjson::SUCCESS) {
    for (auto [key, value] : sprof) {
      int64_t i = 0;
      double d = 0;
      std::string_view s;
      if (value.is_int64() && value.get_int64().get(i) == simdjson::SUCCESS) {
        out.sprof.emplace_back(std::string(key), i);
      } else if (value.get_double().get(d) == simdjson::SUCCESS) {
        out.sprof.emplace_back(std::string(key), d);
      } else if (value.get_string().get(s) == simdjson::SUCCESS) {
        out.sprof.emplace_back(std::string(key), std::string(s));
      }
    }
  }
  return out;
}

}  // namespace

const MetaValue* ReportMeta::sprof_value(std::string_view key) const {
  for (const auto& [k, v] : sprof) {
    if (k == key) return &v;
  }
  return nullptr;
}

Result<ReportProfile> read_processed_profile(std::string_view json, const ReadOptions& options) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return fail(Errc::kMalformed,
                std::string("profile: not valid JSON: ") + simdjson::error_message(error));
  }
  auto meta = member(root, "meta");
  if (!meta || !meta->is_object() || !member(*meta, "preprocessedProfileVersion")) {
    return fail(Errc::kUnsupported,
                "profile: not a processed profile (no meta.preprocessedProfileVersion)");
  }
  simdjson::dom::array threads;
  if (root.at_key("threads").get_array().get(threads) != simdjson::SUCCESS) {
    return malformed_profile("top", "has no threads array");
  }
  ReportProfile profile;
  profile.meta = read_meta(*meta);
  profile.libs = read_libs(root);
  FunctionInterner functions(profile.functions);
  const std::optional<int64_t> idle = options.include_idle ? std::nullopt : idle_category(*meta);
  const std::vector<FrameCategory> categories = frame_categories(*meta);
  size_t i = 0;
  for (element thread : threads) {
    SPROF_TRY(ReportThread t, ThreadReader(thread, "threads[" + std::to_string(i++) + "]",
                                           functions, idle, profile.libs.size(), categories)
                                  .read());
    profile.threads.push_back(std::move(t));
  }
  return profile;
}

}  // namespace sprof::report
