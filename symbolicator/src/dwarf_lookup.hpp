// dwarf_lookup.hpp (private)
//
// What a module's DWARF says about an address, reading the DWARF as addresses ask for it
// (elf::DwarfReader): at open only which unit claims which addresses; on the first address in a
// unit, that unit's functions and line table; on the first address in a function, its inline
// tree. A profile's addresses touch a small part of a large module's DWARF, and reading all of it
// up front cost more than answering every address (docs/benchmarks.md). `prepare` reads what a
// batch of addresses needs on several threads at once.
//
// The lookup of one address A (docs/firefox-profiler-format.md, "symbolication API
// /symbolicate/v5": inlines innermost first):
//   unit             = the unit whose ranges hold A
//   function         = the deepest of the unit's functions whose ranges hold A
//   scope chain at A = innermost inlined subroutine ... outermost inlined subroutine, function
//   inlines[0].line  = the unit's line table's line at A
//   inlines[i].line  = call_line of inlines[i-1]'s scope (where it was called from inlines[i])
//   outer line       = call_line of the outermost inlined scope, or the line table's if none.
//
// A map from the symbol cache may hold only part of the module's DWARF: the units and inline
// trees that earlier runs read (the cache's index grows by what lookups read, instead of being
// built whole the first time). What it lacks is read from the module's DWARF when a lookup first
// needs it, as for a map built from the files.
//
// Threading: all methods may run on several threads at once. Each unit and each function is read
// once (std::call_once) and never changes afterwards, so lookups take no lock once what they
// need has been read.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "demangled_name_pool.hpp"
#include "line_table.hpp"
#include "scope_index.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/dwarf_reader.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;
struct CachedUnits;

class DwarfLookup {
 public:
  struct OuterFunction {
    std::string_view name;  // as DWARF spells it: the mangled linkage name, or DW_AT_name
    const std::string* demangled = nullptr;
    uint64_t range_begin = 0;  // the function's range that holds the address
    uint64_t range_end = 0;
  };
  struct Location {
    std::vector<InlineFrame> inlines;  // innermost first
    std::string file;                  // of the outer function at the address
    uint32_t line = 0;
    std::optional<OuterFunction> function;  // when a function holds the address
  };

  // `base` is subtracted from every address (v0: relative = SVMA - v0); what lies below is
  // dropped. kNotFound / kMalformed as DwarfReader::open.
  static Result<std::unique_ptr<DwarfLookup>> open(elf::SharedElfFile file, uint64_t base);
  ~DwarfLookup();

  // nullopt when no unit claims `address` (relative). Views in the result stay valid while the
  // DwarfLookup lives.
  std::optional<Location> find(uint64_t address);
  // Reads what `find` will need for these addresses, a unit per thread on up to
  // `concurrency()` threads.
  void prepare(std::span<const uint64_t> addresses);
  // Reads every unit and every function's inline tree (on up to `concurrency()` threads), so
  // that the whole index can be saved to the symbol cache. Stops between units once `stop` is
  // set (the command is ending); returns whether everything was read.
  bool read_all(const std::atomic<bool>& stop);
  // A source file of a unit read so far: every `find` reads the unit that holds its address, so
  // a file a lookup returned is always named.
  bool names_source_file(const std::string& path);
  bool empty() const { return units_.empty(); }
  size_t concurrency() const { return concurrency_; }
  // Whether everything was read: every unit and every function's inline tree. A cache file
  // written then is whole; one written before is partial (module_index_codec.hpp).
  bool whole() const;
  // How many units and trees were read from the module's DWARF by this map so far: a map from a
  // partial cache file that read nothing new need not be saved again.
  size_t read_from_dwarf() const { return read_from_dwarf_.load(std::memory_order_relaxed); }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  struct Tree {
    struct Scope {
      const PooledName* name = nullptr;   // in names_
      uint32_t call_file = elf::kNoFile;  // index into the unit's files
      uint32_t call_line = 0;
      int32_t parent = -1;  // index into scopes
      bool inlined = false;
    };
    std::vector<Scope> scopes;  // scopes[0] is the function
    ScopeIndex index;           // values: indexes into scopes
  };
  static constexpr uint64_t kNoCachedTree = UINT64_MAX;
  struct Function {
    uint64_t offset = 0;  // of its DIE in its unit's DWARF
    // From a cache file: where its tree is in Unit::cached_bytes; kNoCachedTree when the file
    // lacks it (read from DWARF then).
    uint64_t cached_tree = kNoCachedTree;
    uint32_t first_range = 0;  // into Unit::function_ranges
    uint32_t range_count = 0;
    std::once_flag read;
    std::atomic<bool> tree_read{false};  // `tree` is final (what a cache file may take)
    std::unique_ptr<const Tree> tree;
  };
  struct Unit {
    uint64_t offset = 0;    // of its DIE
    bool in_cache = false;  // its bytes are in the cache file (else read from DWARF)
    bool lost = false;      // neither the cache file nor the module's DWARF could give it
    std::once_flag read;
    std::atomic<bool> unit_read{false};  // what follows is final (what a cache file may take)
    std::vector<Function> functions;     // sized once, never moved (once_flag)
    std::vector<elf::DwarfRange> function_ranges;  // relative
    ScopeIndex function_index;                     // values: indexes into functions
    LineTable lines;                               // file: indexes into files
    std::vector<const std::string*> files;         // distinct names, interned in file_names_
    std::vector<uint32_t> file_slots;              // the unit's file table -> index into files
    // From a cache file: the unit's bytes, whose function trees are decoded when first looked up
    // (read_cached_tree), since a large unit holds thousands and a lookup needs one.
    std::vector<uint8_t> cached_bytes;
  };

  DwarfLookup(std::unique_ptr<elf::DwarfReader> reader, uint64_t base, size_t concurrency);

  // Runs task(0) .. task(count - 1), each once, on up to `concurrency_` threads.
  void run_shared_out(size_t count, const std::function<void(size_t)>& task) const;
  Unit& read_unit(uint32_t index);
  const Tree* read_tree(const Unit& unit, Function& function);
  void read_unit_now(Unit& unit);
  void read_unit_from_dwarf(Unit& unit);
  void read_tree_now(const Unit& unit, Function& function);
  void read_tree_from_dwarf(const Unit& unit, Function& function);
  // The module's DWARF: for a map from a partial cache file, opened when first needed (null
  // when it cannot be, or its units are not the ones the file was written from).
  elf::DwarfReader* reader();
  Location compose(const Unit& unit, const Function* function, const Tree* tree,
                   uint64_t address) const;

  std::unique_ptr<elf::DwarfReader> reader_;  // null for a map from the symbol cache ...
  elf::SharedElfFile dwarf_file_;             // ... until reader() opens this one's
  std::once_flag reader_opened_;
  std::shared_ptr<const CachedUnits> cached_;  // the symbol cache's file, for such a map
  std::atomic<size_t> read_from_dwarf_{0};
  uint64_t base_;
  size_t concurrency_;
  std::vector<Unit> units_;  // sized once at open
  ScopeIndex unit_index_;    // values: indexes into units_

  DemangledNamePool names_;  // of the trees' scopes

  std::mutex files_mutex_;
  std::unordered_set<std::string> file_names_;  // nodes never move: units point at them
};

}  // namespace sprof::symbolicator::detail
