// Recovers the symbols a self-contained file was written with (processed_thread_builder.cpp
// writes them): the frames of one lib-relative address, ordered by inline depth, give the
// function (depth 0, with its native symbol's start and size), its file and line, and the
// inlined calls.
#include <map>
#include <string>

#include "frame_addresses.hpp"
#include "json_dom.hpp"
#include "profile_format.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::profile {

namespace {

using detail::array;
using detail::element;
using Column = std::vector<std::optional<uint64_t>>;

Unexpected malformed_symbols(const std::string& where, std::string_view what) {
  return fail(Errc::kMalformed, "self-contained profile: " + where + " " + std::string(what));
}

// A column of non-negative integers or nulls (-1 reads as null: "no address").
Result<Column> read_column(element table, std::string_view key, const std::string& where) {
  auto values = detail::array_member(table, key);
  if (!values) return malformed_symbols(where + "." + std::string(key), "is not an array");
  Column out;
  out.reserve(values->size());
  for (element v : *values) out.push_back(detail::as_uint(v));
  return out;
}

Result<element> table(element thread, std::string_view name, const std::string& where) {
  auto t = detail::member(thread, name);
  if (!t) return malformed_symbols(where, "has no " + std::string(name));
  return *t;
}

// What the frames at one address say, by inline depth.
struct FrameInfo {
  std::string_view function;
  std::string_view file;
  uint32_t line = 0;
};
struct AddressFrames {
  std::optional<uint64_t> symbol;  // nativeSymbols index of the outer frame
  std::map<uint32_t, FrameInfo> by_depth;
};

class ThreadSymbols {
 public:
  ThreadSymbols(element thread, std::string where) : thread_(thread), where_(std::move(where)) {}

  // Adds what this thread knows to `out` (per global lib index, per address).
  Result<void> read(std::map<uint64_t, std::map<uint64_t, AddressSymbol>>& out) {
    auto strings = detail::array_member(thread_, "stringArray");
    if (!strings) return malformed_symbols(where_, "has no stringArray");
    for (element s : *strings) strings_.push_back(detail::as_string(s).value_or(""));
    SPROF_TRY(element frames, table(thread_, "frameTable", where_));
    SPROF_TRY(element funcs, table(thread_, "funcTable", where_));
    SPROF_TRY(element symbols, table(thread_, "nativeSymbols", where_));
    const std::string at = where_ + ".frameTable";
    SPROF_TRY(const Column address, read_column(frames, "address", at));
    SPROF_TRY(const Column depth, read_column(frames, "inlineDepth", at));
    SPROF_TRY(const Column func, read_column(frames, "func", at));
    SPROF_TRY(const Column native, read_column(frames, "nativeSymbol", at));
    SPROF_TRY(const Column line, read_column(frames, "line", at));
    SPROF_TRY(func_name_, read_column(funcs, "name", where_ + ".funcTable"));
    SPROF_TRY(func_file_, read_column(funcs, "fileName", where_ + ".funcTable"));
    SPROF_TRY(symbol_lib_, read_column(symbols, "libIndex", where_ + ".nativeSymbols"));
    SPROF_TRY(symbol_address_, read_column(symbols, "address", where_ + ".nativeSymbols"));
    SPROF_TRY(symbol_size_, read_column(symbols, "functionSize", where_ + ".nativeSymbols"));
    // symbol_of reads a symbol's address and size by the index its libIndex was checked against.
    if (symbol_address_.size() != symbol_lib_.size() || symbol_size_.size() != symbol_lib_.size()) {
      return malformed_symbols(where_ + ".nativeSymbols", "has columns of different lengths");
    }

    // (lib, address) -> frames
    std::map<std::pair<uint64_t, uint64_t>, AddressFrames> grouped;
    for (size_t i = 0; i < address.size(); ++i) {
      if (!address[i] || i >= native.size() || !native[i] || *native[i] >= symbol_lib_.size()) {
        continue;  // no address, or its lib was not found when the file was written
      }
      const auto lib = symbol_lib_[*native[i]];
      if (!lib || i >= func.size() || !func[i] || i >= depth.size() || !depth[i]) {
        return malformed_symbols(at + "[" + std::to_string(i) + "]",
                                 "lacks its lib, func or depth");
      }
      AddressFrames& frames_here = grouped[{*lib, *address[i]}];
      FrameInfo info;
      SPROF_TRY(info.function, string_of(func_name_, *func[i], "funcTable.name"));
      if (*func[i] < func_file_.size() && func_file_[*func[i]]) {
        SPROF_TRY(info.file, string_of(func_file_, *func[i], "funcTable.fileName"));
      }
      info.line = i < line.size() && line[i] ? static_cast<uint32_t>(*line[i]) : 0;
      if (*depth[i] == 0) frames_here.symbol = *native[i];
      frames_here.by_depth.emplace(static_cast<uint32_t>(*depth[i]), info);
    }
    for (const auto& [key, frames_here] : grouped) {
      if (!frames_here.symbol || !frames_here.by_depth.contains(0)) continue;
      out[key.first].emplace(key.second, symbol_of(key.second, frames_here));
    }
    return ok();
  }

 private:
  Result<std::string_view> string_of(const Column& column, uint64_t row,
                                     std::string_view name) const {
    if (row >= column.size() || !column[row] || *column[row] >= strings_.size()) {
      return malformed_symbols(where_ + "." + std::string(name), "holds an invalid string index");
    }
    return strings_[*column[row]];
  }

  AddressSymbol symbol_of(uint64_t address, const AddressFrames& frames) const {
    AddressSymbol s;
    const FrameInfo& outer = frames.by_depth.at(0);
    // The writer names an address without a function "<unknown at 0x...>".
    if (outer.function != detail::unknown_function_name(address)) {
      s.function = outer.function;
      s.function_start = symbol_address_[*frames.symbol].value_or(address);
      s.function_size = symbol_size_[*frames.symbol];
      s.file = outer.file;
      s.line = outer.line;
    }
    const auto depths = static_cast<uint32_t>(frames.by_depth.size() - 1);
    for (uint32_t d = depths; d >= 1; --d) {
      auto it = frames.by_depth.find(d);
      if (it == frames.by_depth.end()) continue;
      InlinedCall call;
      if (it->second.function != detail::unknown_inline_name(address, d)) {
        call.function = it->second.function;
      }
      call.file = it->second.file;
      call.line = it->second.line;
      s.inlines.push_back(std::move(call));
    }
    return s;
  }

  element thread_;
  std::string where_;
  std::vector<std::string_view> strings_;
  Column func_name_, func_file_, symbol_lib_, symbol_address_, symbol_size_;
};

}  // namespace

Result<ProfileSymbols> read_embedded_symbols(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return detail::json_parse_error("self-contained profile", error);
  }
  if (detail::format_of(root) != ProfileFormat::kProcessed) {
    return fail(Errc::kUnsupported, "not a self-contained profile (no preprocessedProfileVersion)");
  }
  const auto version =
      detail::as_int(detail::member(*detail::member(root, "meta"), "preprocessedProfileVersion"));
  if (version != kProcessedProfileVersion) {
    return fail(Errc::kUnsupported, "processed profile version " +
                                        std::to_string(version.value_or(-1)) +
                                        " was not written by sprof (it writes " +
                                        std::to_string(kProcessedProfileVersion) + ")");
  }
  std::vector<ModuleKey> libs;
  if (auto list = detail::array_member(root, "libs")) {
    for (element lib : *list) {
      libs.push_back(
          {std::string(detail::as_string(detail::member(lib, "debugName")).value_or("")),
           std::string(detail::as_string(detail::member(lib, "breakpadId")).value_or(""))});
    }
  }
  auto threads = detail::array_member(root, "threads");
  if (!threads) return malformed_symbols("top", "has no threads array");
  std::map<uint64_t, std::map<uint64_t, AddressSymbol>> by_lib;
  size_t i = 0;
  for (element thread : *threads) {
    SPROF_TRY_VOID(ThreadSymbols(thread, "threads[" + std::to_string(i++) + "]").read(by_lib));
  }
  ProfileSymbols symbols;
  for (auto& [lib, entries] : by_lib) {
    if (lib >= libs.size())
      return malformed_symbols("nativeSymbols", "names a lib that is not in libs");
    std::vector<std::pair<uint64_t, AddressSymbol>> list(std::make_move_iterator(entries.begin()),
                                                         std::make_move_iterator(entries.end()));
    symbols.add_module(libs[lib], ModuleSymbols(std::move(list)));
  }
  return symbols;
}

}  // namespace sprof::profile
