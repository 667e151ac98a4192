// Reads a Gecko profile as sprof writes it (gecko_writer.cpp) back into the model. Tables are
// read through their schemas, as the front end reads them; string, frame and stack indexes of
// the file are mapped to the model's (which interns, so a file with repeated strings still
// reads correctly).
#include <map>
#include <set>
#include <string>

#include "json_dom.hpp"
#include "profile_format.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::profile {

namespace {

using detail::array;
using detail::element;

Unexpected malformed_gecko(const std::string& where, std::string_view what) {
  return fail(Errc::kMalformed, "Gecko profile: " + where + " " + std::string(what));
}

std::string string_or_empty(std::optional<element> e) {
  return std::string(detail::as_string(e).value_or(""));
}

// A Gecko table `{schema: {column: index}, data: [[...], ...]}`.
class Table {
 public:
  static Result<Table> read(element owner, std::string_view name, const std::string& where) {
    Table t;
    auto table = detail::member(owner, name);
    simdjson::dom::object schema;
    auto rows = table ? detail::array_member(*table, "data") : std::nullopt;
    if (!table || table->at_key("schema").get_object().get(schema) != simdjson::SUCCESS || !rows) {
      return malformed_gecko(where + "." + std::string(name),
                             "has no schema object and data array");
    }
    for (auto [key, value] : schema) {
      if (auto index = detail::as_uint(value)) t.columns_.emplace(std::string(key), *index);
    }
    t.rows_ = *rows;
    return t;
  }

  array rows() const { return rows_; }
  // The cell of `column` in `row`; nullopt when the column is not in the schema, the row is
  // shorter, or the cell is null.
  std::optional<element> cell(element row, std::string_view column) const {
    auto it = columns_.find(column);
    array cells;
    if (it == columns_.end() || row.get_array().get(cells) != simdjson::SUCCESS)
      return std::nullopt;
    auto v = detail::at(cells, it->second);
    if (!v || v->is_null()) return std::nullopt;
    return v;
  }

 private:
  std::map<std::string, size_t, std::less<>> columns_;
  array rows_;
};

// Payload keys that hold string-table indexes, per marker type (from the marker schemas).
using StringFields = std::map<std::string, std::set<std::string, std::less<>>, std::less<>>;

Result<std::vector<CategoryInfo>> read_categories(element meta) {
  std::vector<CategoryInfo> out;
  auto categories = detail::array_member(meta, "categories");
  if (!categories) return out;
  for (element c : *categories) {
    CategoryInfo info{string_or_empty(detail::member(c, "name")),
                      string_or_empty(detail::member(c, "color")),
                      {}};
    if (auto subs = detail::array_member(c, "subcategories")) {
      for (element s : *subs) info.subcategories.push_back(string_or_empty(s));
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<MarkerSchema> read_marker_schema(element meta, StringFields& string_fields) {
  std::vector<MarkerSchema> out;
  auto schemas = detail::array_member(meta, "markerSchema");
  if (!schemas) return out;
  for (element s : *schemas) {
    MarkerSchema schema;
    schema.name = string_or_empty(detail::member(s, "name"));
    if (auto display = detail::array_member(s, "display")) {
      for (element d : *display) schema.display.push_back(string_or_empty(d));
    }
    schema.tooltip_label = string_or_empty(detail::member(s, "tooltipLabel"));
    schema.table_label = string_or_empty(detail::member(s, "tableLabel"));
    schema.chart_label = string_or_empty(detail::member(s, "chartLabel"));
    if (auto fields = detail::array_member(s, "data")) {
      for (element f : *fields) {
        MarkerSchemaField field;
        field.key = string_or_empty(detail::member(f, "key"));
        field.label = string_or_empty(detail::member(f, "label"));
        field.format = string_or_empty(detail::member(f, "format"));
        field.value = string_or_empty(detail::member(f, "value"));
        field.searchable = detail::as_bool(detail::member(f, "searchable")).value_or(false);
        if (field.format == "unique-string" || field.format == "flow-id" ||
            field.format == "terminating-flow-id") {
          string_fields[schema.name].insert(field.key);
        }
        schema.data.push_back(std::move(field));
      }
    }
    out.push_back(std::move(schema));
  }
  return out;
}

Meta read_meta(element meta, StringFields& string_fields) {
  Meta m;
  m.start_time_ms = detail::as_double(detail::member(meta, "startTime")).value_or(0);
  m.start_time_monotonic_ns =
      detail::as_uint(detail::member(meta, "startTimeAsClockMonotonicNanosecondsSinceBoot"))
          .value_or(0);
  m.interval_ms = detail::as_double(detail::member(meta, "interval")).value_or(1);
  m.profiling_start_ms = detail::as_double(detail::member(meta, "profilingStartTime"));
  m.profiling_end_ms = detail::as_double(detail::member(meta, "profilingEndTime"));
  m.product = string_or_empty(detail::member(meta, "product"));
  if (auto oscpu = detail::as_string(detail::member(meta, "oscpu"))) m.oscpu = *oscpu;
  if (auto abi = detail::as_string(detail::member(meta, "abi"))) m.abi = *abi;
  m.cpu_name = string_or_empty(detail::member(meta, "CPUName"));
  m.logical_cpus =
      static_cast<int>(detail::as_int(detail::member(meta, "logicalCPUs")).value_or(0));
  m.physical_cpus =
      static_cast<int>(detail::as_int(detail::member(meta, "physicalCPUs")).value_or(0));
  m.has_cpu_deltas = detail::member(meta, "sampleUnits").has_value();
  if (auto categories = read_categories(meta); categories && !categories->empty()) {
    m.categories = std::move(*categories);
  }
  m.marker_schema = read_marker_schema(meta, string_fields);
  simdjson::dom::object facts;
  if (meta.at_key("sprof").get_object().get(facts) == simdjson::SUCCESS) {
    for (auto [key, value] : facts) {
      if (auto s = detail::as_string(value)) {
        m.extra.emplace_back(std::string(key), std::string(*s));
      } else if (detail::is_integer(value)) {
        m.extra.emplace_back(std::string(key), detail::as_int(value).value_or(0));
      } else if (auto d = detail::as_double(value)) {
        m.extra.emplace_back(std::string(key), *d);
      }
    }
  }
  return m;
}

// A lib's names, paths and ids name files; none can be longer than a path (PATH_MAX), so a
// longer one is a broken or hostile file, refused rather than carried into every copy.
constexpr size_t kMaxLibFieldBytes = 4096;

Result<std::string> lib_field(element lib, std::string_view key, const std::string& where) {
  std::string value = string_or_empty(detail::member(lib, key));
  if (value.size() > kMaxLibFieldBytes) {
    return malformed_gecko(where, std::string(key) + " is " + std::to_string(value.size()) +
                                      " bytes, longer than a file path can be (" +
                                      std::to_string(kMaxLibFieldBytes) + ")");
  }
  return value;
}

Result<Library> read_lib(element lib, const std::string& where) {
  Library out;
  out.start = detail::as_uint(detail::member(lib, "start")).value_or(0);
  out.end = detail::as_uint(detail::member(lib, "end")).value_or(0);
  out.offset = detail::as_uint(detail::member(lib, "offset")).value_or(0);
  SPROF_TRY(out.name, lib_field(lib, "name", where));
  SPROF_TRY(out.path, lib_field(lib, "path", where));
  SPROF_TRY(out.debug_name, lib_field(lib, "debugName", where));
  SPROF_TRY(out.debug_path, lib_field(lib, "debugPath", where));
  SPROF_TRY(out.breakpad_id, lib_field(lib, "breakpadId", where));
  SPROF_TRY(out.code_id, lib_field(lib, "codeId", where));
  if (auto arch = detail::as_string(detail::member(lib, "arch"))) out.arch = *arch;
  return out;
}

Category category_of(std::optional<element> cell) {
  return static_cast<Category>(detail::as_uint(cell).value_or(0));
}

// Reads one thread's tables into `t`, mapping the file's indexes to the model's.
class ThreadReader {
 public:
  ThreadReader(element thread, std::string where, const StringFields& string_fields, Thread& t)
      : thread_(thread), where_(std::move(where)), string_fields_(string_fields), t_(t) {}

  Result<void> read() {
    SPROF_TRY_VOID(read_strings());
    SPROF_TRY_VOID(read_frames());
    SPROF_TRY_VOID(read_stacks());
    SPROF_TRY_VOID(read_samples());
    return read_markers();
  }

 private:
  Result<void> read_strings() {
    auto strings = detail::array_member(thread_, "stringTable");
    if (!strings) return malformed_gecko(where_, "has no stringTable array");
    for (element s : *strings) {
      auto text = detail::as_string(s);
      if (!text) return malformed_gecko(where_ + ".stringTable", "holds a non-string");
      texts_.emplace_back(*text);
      t_.intern_string(*text);  // keeps the file's string order
    }
    return ok();
  }

  Result<std::string_view> text(std::optional<element> cell, const std::string& at) const {
    auto index = detail::as_uint(cell);
    if (!index || *index >= texts_.size())
      return malformed_gecko(at, "is not a valid string index");
    return std::string_view(texts_[*index]);
  }

  Result<void> read_frames() {
    SPROF_TRY(const Table table, Table::read(thread_, "frameTable", where_));
    size_t i = 0;
    for (element row : table.rows()) {
      const std::string at = where_ + ".frameTable.data[" + std::to_string(i++) + "]";
      SPROF_TRY(const std::string_view location, text(table.cell(row, "location"), at));
      frame_map_.push_back(t_.intern_frame(location, category_of(table.cell(row, "category"))));
    }
    return ok();
  }

  Result<void> read_stacks() {
    SPROF_TRY(const Table table, Table::read(thread_, "stackTable", where_));
    size_t i = 0;
    for (element row : table.rows()) {
      const std::string at = where_ + ".stackTable.data[" + std::to_string(i) + "]";
      auto frame = detail::as_uint(table.cell(row, "frame"));
      if (!frame || *frame >= frame_map_.size()) return malformed_gecko(at, "has an invalid frame");
      std::optional<uint32_t> prefix;
      if (auto p = table.cell(row, "prefix")) {
        auto index = detail::as_uint(p);
        if (!index || *index >= i) return malformed_gecko(at, "has a prefix that is not before it");
        prefix = stack_map_[*index];
      }
      stack_map_.push_back(t_.intern_stack(prefix, frame_map_[*frame]));
      ++i;
    }
    return ok();
  }

  Result<void> read_samples() {
    SPROF_TRY(const Table table, Table::read(thread_, "samples", where_));
    size_t i = 0;
    for (element row : table.rows()) {
      const std::string at = where_ + ".samples.data[" + std::to_string(i++) + "]";
      Sample s;
      if (auto stack = table.cell(row, "stack")) {
        auto index = detail::as_uint(stack);
        if (!index || *index >= stack_map_.size())
          return malformed_gecko(at, "has an invalid stack");
        s.stack = stack_map_[*index];
      }
      auto time = detail::as_double(table.cell(row, "time"));
      if (!time) return malformed_gecko(at, "has no time");
      s.time_ms = *time;
      s.cpu_delta_ns = detail::as_uint(table.cell(row, "threadCPUDelta"));
      t_.add_sample(s);
    }
    return ok();
  }

  Result<void> read_payload(element payload, const std::string& at, Marker& m) const {
    m.type = string_or_empty(detail::member(payload, "type"));
    const auto fields = string_fields_.find(m.type);
    simdjson::dom::object object;
    if (payload.get_object().get(object) != simdjson::SUCCESS) return ok();
    for (auto [key, value] : object) {
      if (key == "type") continue;
      MarkerField field{std::string(key), int64_t{0}};
      if (fields != string_fields_.end() && fields->second.contains(key)) {
        SPROF_TRY(const std::string_view s, text(value, at + ".data." + std::string(key)));
        field.value = UniqueString{std::string(s)};
      } else if (auto s = detail::as_string(value)) {
        field.value = std::string(*s);
      } else if (auto b = detail::as_bool(value)) {
        field.value = *b;
      } else if (detail::is_integer(value) && detail::as_int(value)) {
        field.value = *detail::as_int(value);
      } else if (auto d = detail::as_double(value)) {
        field.value = *d;
      } else {
        continue;  // null, objects and arrays: sprof writes none
      }
      m.fields.push_back(std::move(field));
    }
    return ok();
  }

  // A "Native allocation" marker's payload (docs/firefox-profiler-format.md, "native allocations"):
  // its stack is the first sample of the payload's `stack` object, an index into this thread's
  // stack table.
  Result<void> read_native_allocation(element payload, std::optional<double> time,
                                      const std::string& at) {
    NativeAllocation a;
    if (!time) return malformed_gecko(at, "is an allocation without a startTime");
    a.time_ms = *time;
    auto size = detail::as_int(detail::member(payload, "size"));
    auto address = detail::as_uint(detail::member(payload, "memoryAddress"));
    if (!size || !address)
      return malformed_gecko(at, "is an allocation without size and memoryAddress");
    a.bytes = *size;
    a.memory_address = *address;
    a.thread_id = detail::as_int(detail::member(payload, "threadId")).value_or(t_.tid);
    if (auto stack = detail::member(payload, "stack")) {
      SPROF_TRY(const Table samples, Table::read(*stack, "samples", at + ".data.stack"));
      auto first = detail::at(samples.rows(), 0);
      if (auto index = first ? samples.cell(*first, "stack") : std::nullopt) {
        auto s = detail::as_uint(index);
        if (!s || *s >= stack_map_.size())
          return malformed_gecko(at, "has an invalid allocation stack");
        a.stack = stack_map_[*s];
      }
    }
    t_.add_native_allocation(a);
    return ok();
  }

  Result<void> read_markers() {
    SPROF_TRY(const Table table, Table::read(thread_, "markers", where_));
    size_t i = 0;
    for (element row : table.rows()) {
      const std::string at = where_ + ".markers.data[" + std::to_string(i++) + "]";
      const auto payload = table.cell(row, "data");
      if (payload &&
          detail::as_string(detail::member(*payload, "type")) == kNativeAllocationMarker) {
        SPROF_TRY_VOID(
            read_native_allocation(*payload, detail::as_double(table.cell(row, "startTime")), at));
        continue;
      }
      Marker m;
      SPROF_TRY(const std::string_view name, text(table.cell(row, "name"), at + ".name"));
      m.name = name;
      m.start_ms = detail::as_double(table.cell(row, "startTime"));
      m.end_ms = detail::as_double(table.cell(row, "endTime"));
      const auto phase = detail::as_uint(table.cell(row, "phase")).value_or(0);
      if (phase > 3) return malformed_gecko(at, "has a phase outside 0..3");
      m.phase = static_cast<MarkerPhase>(phase);
      m.category = category_of(table.cell(row, "category"));
      if (payload) SPROF_TRY_VOID(read_payload(*payload, at, m));
      t_.add_marker(std::move(m));
    }
    return ok();
  }

  element thread_;
  std::string where_;
  const StringFields& string_fields_;
  Thread& t_;
  std::vector<std::string> texts_;
  std::vector<uint32_t> frame_map_;
  std::vector<uint32_t> stack_map_;
};

Result<std::vector<Counter>> read_counters(element profile, const std::string& where) {
  std::vector<Counter> out;
  auto counters = detail::array_member(profile, "counters");
  if (!counters) return out;
  size_t i = 0;
  for (element c : *counters) {
    const std::string at = where + ".counters[" + std::to_string(i++) + "]";
    Counter counter;
    counter.name = string_or_empty(detail::member(c, "name"));
    counter.category = string_or_empty(detail::member(c, "category"));
    counter.description = string_or_empty(detail::member(c, "description"));
    SPROF_TRY(const Table samples, Table::read(c, "samples", at));
    size_t j = 0;
    for (element row : samples.rows()) {
      auto time = detail::as_double(samples.cell(row, "time"));
      auto count = detail::as_int(samples.cell(row, "count"));
      if (!time || !count) {
        return malformed_gecko(at + ".samples.data[" + std::to_string(j) + "]",
                               "has no time and count");
      }
      counter.samples.push_back(
          {*time, *count, detail::as_int(samples.cell(row, "number")).value_or(0)});
      ++j;
    }
    out.push_back(std::move(counter));
  }
  return out;
}

Result<Process> read_process(element profile, const std::string& where,
                             const StringFields& string_fields) {
  Process process;
  if (auto meta = detail::member(profile, "meta")) {
    process.shutdown_time_ms = detail::as_double(detail::member(*meta, "shutdownTime"));
  }
  if (auto libs = detail::array_member(profile, "libs")) {
    for (element lib : *libs) {
      const std::string at = where + ".libs[" + std::to_string(process.libs.size()) + "]";
      SPROF_TRY(Library read, read_lib(lib, at));
      process.libs.push_back(std::move(read));
    }
  }
  auto threads = detail::array_member(profile, "threads");
  if (!threads) return malformed_gecko(where, "has no threads array");
  size_t i = 0;
  for (element thread : *threads) {
    const std::string at = where + ".threads[" + std::to_string(i) + "]";
    Thread t;
    t.name = string_or_empty(detail::member(thread, "name"));
    t.process_name = string_or_empty(detail::member(thread, "processName"));
    t.process_type = string_or_empty(detail::member(thread, "processType"));
    t.pid = detail::as_int(detail::member(thread, "pid")).value_or(0);
    t.tid = detail::as_int(detail::member(thread, "tid")).value_or(0);
    t.register_time_ms = detail::as_double(detail::member(thread, "registerTime")).value_or(0);
    t.unregister_time_ms = detail::as_double(detail::member(thread, "unregisterTime"));
    SPROF_TRY_VOID(ThreadReader(thread, at, string_fields, t).read());
    // The first thread names the process; later threads override only where they differ.
    if (i == 0) {
      process.pid = t.pid;
      process.name = t.process_name;
      if (!t.process_type.empty()) process.process_type = t.process_type;
    }
    if (t.process_name == process.name) t.process_name.clear();
    if (t.process_type == process.process_type) t.process_type.clear();
    if (t.pid == process.pid) t.pid = 0;
    process.threads.push_back(std::move(t));
    ++i;
  }
  SPROF_TRY(process.counters, read_counters(profile, where));
  return process;
}

}  // namespace

Result<Profile> read_gecko_json(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return detail::json_parse_error("Gecko profile", error);
  }
  if (detail::format_of(root) != ProfileFormat::kGecko) {
    return fail(Errc::kUnsupported, "not a Gecko profile (no meta.version, or a processed one)");
  }
  Profile profile;
  StringFields string_fields;
  profile.meta = read_meta(*detail::member(root, "meta"), string_fields);
  SPROF_TRY(Process top, read_process(root, "top", string_fields));
  profile.processes.push_back(std::move(top));
  if (auto processes = detail::array_member(root, "processes")) {
    size_t i = 0;
    for (element sub : *processes) {
      SPROF_TRY(Process p,
                read_process(sub, "processes[" + std::to_string(i++) + "]", string_fields));
      profile.processes.push_back(std::move(p));
    }
  }
  return profile;
}

}  // namespace sprof::profile
