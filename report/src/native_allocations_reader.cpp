#include "native_allocations_reader.hpp"

#include "malformed_profile.hpp"

namespace sprof::report {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;

// A column of the table, as long as `time`; kMalformed otherwise.
Result<array> column(element table, std::string_view key, size_t rows, const std::string& where) {
  array values;
  if (table.at_key(key).get_array().get(values) != simdjson::SUCCESS) {
    return malformed_profile(where + "." + std::string(key), "is not an array");
  }
  if (values.size() != rows) {
    return malformed_profile(where + "." + std::string(key), "has a different length than time");
  }
  return values;
}

}  // namespace

Result<std::vector<AllocationRow>> read_native_allocations(element thread,
                                                           const std::string& thread_at,
                                                           size_t stacks) {
  std::vector<AllocationRow> rows;
  element table;
  if (thread.at_key("nativeAllocations").get(table) != simdjson::SUCCESS || !table.is_object()) {
    return rows;
  }
  const std::string where = thread_at + ".nativeAllocations";
  element addresses_present;
  if (table.at_key("memoryAddress").get(addresses_present) != simdjson::SUCCESS) return rows;
  array time;
  if (table.at_key("time").get_array().get(time) != simdjson::SUCCESS) {
    return malformed_profile(where + ".time", "is not an array");
  }
  const size_t n = time.size();
  SPROF_TRY(const array weight, column(table, "weight", n, where));
  SPROF_TRY(const array stack, column(table, "stack", n, where));
  SPROF_TRY(const array address, column(table, "memoryAddress", n, where));
  SPROF_TRY(const array thread_id, column(table, "threadId", n, where));
  rows.resize(n);
  size_t i = 0;
  for (element t : time) {
    if (t.get_double().get(rows[i++].time_ms) != simdjson::SUCCESS) {
      return malformed_profile(where + ".time[" + std::to_string(i - 1) + "]", "is not a number");
    }
  }
  i = 0;
  for (element w : weight) {
    if (w.get_int64().get(rows[i++].bytes) != simdjson::SUCCESS) {
      return malformed_profile(where + ".weight[" + std::to_string(i - 1) + "]",
                               "is not an integer");
    }
  }
  i = 0;
  for (element s : stack) {
    int64_t index = 0;
    if (!s.is_null()) {
      if (s.get_int64().get(index) != simdjson::SUCCESS || index < 0 ||
          static_cast<uint64_t>(index) >= stacks) {
        return malformed_profile(where + ".stack[" + std::to_string(i) + "]",
                                 "points outside its table");
      }
      rows[i].stack = static_cast<uint32_t>(index);
    }
    ++i;
  }
  i = 0;
  for (element a : address) {
    if (a.get_uint64().get(rows[i++].address) != simdjson::SUCCESS) {
      return malformed_profile(where + ".memoryAddress[" + std::to_string(i - 1) + "]",
                               "is not an address");
    }
  }
  i = 0;
  for (element t : thread_id) {
    if (t.get_int64().get(rows[i++].thread_id) != simdjson::SUCCESS) {
      return malformed_profile(where + ".threadId[" + std::to_string(i - 1) + "]",
                               "is not a thread id");
    }
  }
  return rows;
}

}  // namespace sprof::report
