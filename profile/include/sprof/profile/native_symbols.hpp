// sprof/profile/native_symbols.hpp
//
// Symbols for the native frames of a `Profile`, as a self-contained profile embeds them
// (processed_writer.hpp). The profile layer says which addresses its frames need
// (`native_addresses`) and how the Firefox Profiler turns the answers into frames; it does not
// know where answers come from. The presymbolication pass (sprof/presymbolicate) asks the
// symbolicator and fills a `ProfileSymbols`; reading a self-contained file back
// (`read_embedded_symbols`, processed_reader.hpp) gives the same `ProfileSymbols`.
//
// Addresses here are lib-relative and are the addresses the Firefox Profiler looks up: a caller
// frame's return address already moved back by one byte into its call instruction, a sample's
// leaf (instruction pointer) unchanged.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sprof/profile/profile.hpp"

namespace sprof::profile {

struct InlinedCall {
  std::string function;  // empty if unknown
  std::string file;      // empty if unknown
  uint32_t line = 0;     // 0 if unknown
  bool operator==(const InlinedCall&) const = default;
};

// What symbolication says about one address, in the terms of the /symbolicate/v5 answer.
struct AddressSymbol {
  std::string function;         // demangled; empty: no function covers the address
  uint64_t function_start = 0;  // relative address of the function's first byte
  std::optional<uint64_t> function_size;
  std::string file;                  // of the outermost function at this address; empty if unknown
  uint32_t line = 0;                 // 0 if unknown
  std::vector<InlinedCall> inlines;  // innermost first
  bool operator==(const AddressSymbol&) const = default;

  // The Firefox Profiler counts an address as symbolicated only with a function name and an
  // offset into it; anything else is shown as "<unknown at 0x...>".
  bool names(uint64_t address) const { return !function.empty() && address >= function_start; }
};

// A module as the Firefox Profiler names it.
struct ModuleKey {
  std::string debug_name;
  std::string breakpad_id;
  auto operator<=>(const ModuleKey&) const = default;
};

// One module's symbols at the addresses a profile uses, sorted by address.
class ModuleSymbols {
 public:
  ModuleSymbols() = default;
  // `entries` in any order; a repeated address keeps its first entry.
  explicit ModuleSymbols(std::vector<std::pair<uint64_t, AddressSymbol>> entries);

  // The entry for exactly `address`, or nullptr.
  const AddressSymbol* find(uint64_t address) const;
  // `find`, else the function (name, start and size only) of an entry whose function range
  // holds `address`: what a self-contained file can still say about addresses it never sampled.
  std::optional<AddressSymbol> lookup(uint64_t address) const;

  const std::vector<std::pair<uint64_t, AddressSymbol>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<uint64_t, AddressSymbol>> entries_;
};

// The symbols of every module that was found. A module without an entry was not found: its
// frames stay unsymbolicated, as the Firefox Profiler leaves them when its symbol server has no
// symbols for a lib.
class ProfileSymbols {
 public:
  void add_module(ModuleKey key, ModuleSymbols symbols);
  const ModuleSymbols* find_module(const ModuleKey& key) const;
  const std::map<ModuleKey, ModuleSymbols>& modules() const { return modules_; }

 private:
  std::map<ModuleKey, ModuleSymbols> modules_;
};

// The lookup addresses of one module over the whole profile, sorted and unique, with the paths
// its libs were mapped from (where to look for its files).
struct ModuleAddresses {
  ModuleKey module;
  std::vector<std::string> paths;
  std::vector<uint64_t> addresses;
};

// Every native frame of `profile` whose address falls in one of its process's libs, grouped by
// module, in the order modules first appear.
std::vector<ModuleAddresses> native_addresses(const Profile& profile);

// What the Firefox Profiler looks up for one frame: the module and lookup address of a frame in
// a lib (none for a frame outside every lib), and the name it shows when symbolication does not
// name the frame ("<unknown at 0x...>" in a lib, the location string outside any).
struct FrameLookup {
  std::optional<ModuleKey> module;
  uint64_t address = 0;
  std::string unnamed;
};

// The lookups of an allocation stack's frames, leaf first. Every frame of such a stack holds a
// return address, its leaf included (the front end treats it as a stack walk).
std::vector<FrameLookup> allocation_stack_lookups(const Process& process, const Thread& thread,
                                                  uint32_t stack);

}  // namespace sprof::profile
