#include "module_index_codec.hpp"

#include <unistd.h>

#include <cstring>
#include <type_traits>
#include <unordered_map>

#include "sprof/core/byte_reader.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::symbolicator::detail {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'R', 'O', 'F', 'I', 'D', 'X'};
constexpr size_t kHeaderSize = sizeof kMagic + 2 * sizeof(uint32_t) + 3 * sizeof(uint64_t);
constexpr uint32_t kNoParent = UINT32_MAX;  // a scope's parent as stored when it has none

// FNV-1a over 8-byte words in four interleaved lanes (then the tail bytewise), folded into one:
// a check against truncation and damage, fast enough to run over a large module's index on
// every load (four independent multiply chains run about four times faster than one). Not a
// defence against a deliberate forgery; the bounds checks in `decode` are.
uint64_t checksum(std::span<const uint8_t> bytes) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  constexpr uint64_t kBasis = 0xcbf29ce484222325ULL;
  uint64_t lanes[4] = {kBasis, kBasis + 1, kBasis + 2, kBasis + 3};
  size_t i = 0;
  for (; i + 32 <= bytes.size(); i += 32) {
    for (size_t lane = 0; lane < 4; ++lane) {
      uint64_t word;
      std::memcpy(&word, bytes.data() + i + 8 * lane, 8);
      lanes[lane] = (lanes[lane] ^ word) * kPrime;
    }
  }
  uint64_t hash = kBasis;
  for (const uint64_t lane : lanes) hash = (hash ^ lane) * kPrime;
  for (; i < bytes.size(); ++i) hash = (hash ^ bytes[i]) * kPrime;
  return hash;
}

// An index file's header (module_index_codec.hpp, "Layout"), before any check beyond its magic.
struct Header {
  uint32_t version = 0;
  uint32_t key_size = 0;
  uint64_t prelude_size = 0;
  uint64_t prelude_sum = 0;
  uint64_t units_size = 0;
};

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void count(size_t n) { put(static_cast<uint32_t>(n)); }
  void append(std::string_view bytes) { out_.append(bytes); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// A ByteReader that also refuses counts the remaining bytes cannot hold, so that a hostile
// count never makes `decode` allocate more than the file's size.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : in_(bytes) {}
  template <typename T>
  T get() {
    T value{};
    in_.read(value);
    return value;
  }
  // A count of items of at least `item_bytes` each; 0 and failure when they cannot all be there.
  size_t count(size_t item_bytes) {
    const uint32_t n = get<uint32_t>();
    if (item_bytes != 0 && n > in_.remaining() / item_bytes) {
      in_.skip(SIZE_MAX);  // fails the reader
      return 0;
    }
    return n;
  }
  std::string_view text(size_t n) {
    const auto bytes = in_.bytes(n);
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  void skip(size_t n) { in_.skip(n); }
  size_t position() const { return in_.position(); }
  bool ok() const { return in_.ok(); }
  size_t remaining() const { return in_.remaining(); }
  bool at_end() const { return in_.ok() && in_.remaining() == 0; }

 private:
  ByteReader in_;
};

// The header at the start of `bytes`; nullopt when they are too short or lack the magic.
std::optional<Header> read_header(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  char magic[sizeof kMagic];
  for (char& c : magic) c = r.get<char>();
  Header h;
  h.version = r.get<uint32_t>();
  h.key_size = r.get<uint32_t>();
  h.prelude_size = r.get<uint64_t>();
  h.prelude_sum = r.get<uint64_t>();
  h.units_size = r.get<uint64_t>();
  if (!r.ok() || std::memcmp(magic, kMagic, sizeof kMagic) != 0) return std::nullopt;
  return h;
}

}  // namespace

// One friend of the index classes, so that their members stay private to everyone else.
struct ModuleIndexCodec {
  // ---- writing ----

  // Every string the index names, once; items refer to them by index.
  struct Strings {
    std::unordered_map<std::string_view, uint32_t> index;
    std::vector<std::string_view> list;
    uint32_t of(std::string_view s) {
      auto [it, added] = index.try_emplace(s, static_cast<uint32_t>(list.size()));
      if (added) list.push_back(s);
      return it->second;
    }
  };

  static void put(Writer& w, const ScopeIndex& index) {
    w.count(index.starts_.size());
    for (const uint64_t s : index.starts_) w.put(s);
    for (const uint32_t v : index.values_) w.put(v);
  }

  static void put(Writer& w, const LineTable& lines) {
    w.count(lines.addresses_.size());
    for (const uint64_t a : lines.addresses_) w.put(a);
    for (const LineTable::Location& l : lines.locations_) {
      w.put(l.file);
      w.put(l.line);
    }
  }

  static void put(Writer& w, Strings& strings, const DwarfLookup::Tree& tree) {
    w.count(tree.scopes.size());
    for (const DwarfLookup::Tree::Scope& s : tree.scopes) {
      w.put(strings.of(s.name->spelled()));
      w.put(s.call_file);
      w.put(s.call_line);
      w.put(s.parent < 0 ? kNoParent : static_cast<uint32_t>(s.parent));
      w.put(static_cast<uint8_t>(s.inlined));
    }
    put(w, tree.index);
  }

  // Units go after the prelude, one after another; the prelude's table holds each one's DIE
  // offset, size and checksum, so that a load reads and checks only the units its lookups need
  // (read_unit). A unit not read yet (or lost) is left out: size 0. Then whether all is there.
  static void put(Writer& w, Strings& strings, DwarfLookup& dwarf, std::string& units) {
    put(w, dwarf.unit_index_);
    w.count(dwarf.units_.size());
    bool whole = true;
    for (DwarfLookup::Unit& unit : dwarf.units_) {
      w.put(unit.offset);
      if (!unit.unit_read.load(std::memory_order_acquire) || unit.lost) {
        w.put(uint64_t{0});
        w.put(uint64_t{0});
        whole = false;
        continue;
      }
      Writer unit_bytes;
      whole &= put(unit_bytes, strings, dwarf, unit);
      const std::string bytes = unit_bytes.take();
      w.put(static_cast<uint64_t>(bytes.size()));
      w.put(checksum({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
      units += bytes;
    }
    w.put(static_cast<uint8_t>(whole));
  }

  // Whether every function's tree went in.
  static bool put(Writer& w, Strings& strings, DwarfLookup& dwarf, DwarfLookup::Unit& unit) {
    w.count(unit.files.size());
    for (const std::string* file : unit.files) w.put(strings.of(*file));
    put(w, unit.lines);
    w.count(unit.function_ranges.size());
    for (const elf::DwarfRange& r : unit.function_ranges) {
      w.put(r.begin);
      w.put(r.end);
    }
    put(w, unit.function_index);
    w.count(unit.functions.size());
    bool all_trees = true;
    for (DwarfLookup::Function& f : unit.functions) {
      w.put(f.offset);
      w.put(f.first_range);
      w.put(f.range_count);
      // A tree this map's cache file had is kept, decoded now if no lookup needed it.
      if (f.cached_tree != DwarfLookup::kNoCachedTree) dwarf.read_tree(unit, f);
      const bool has_tree = f.tree_read.load(std::memory_order_acquire) && f.tree;
      w.put(static_cast<uint8_t>(has_tree));
      if (has_tree) put(w, strings, *f.tree);
      all_trees &= has_tree;
    }
    return all_trees;
  }

  static std::string encode(const ModuleSymbolMap& map, std::string_view key) {
    Strings strings;
    Writer body;  // everything after the strings, which it fills
    put(body, strings, map.symbols_);
    body.count(map.fde_functions_.size());
    for (const elf::FunctionRange& f : map.fde_functions_) {
      body.put(f.begin);
      body.put(f.end);
    }
    body.put(static_cast<uint8_t>(map.dwarf_ != nullptr));
    std::string units;
    if (map.dwarf_) put(body, strings, *map.dwarf_, units);
    return module_index_file(key, with_strings(strings, body), units);
  }

  static std::string encode(const KernelSymbolMap& map, std::string_view key) {
    Strings strings;
    Writer body;
    put(body, strings, map.symbols_);
    return module_index_file(key, with_strings(strings, body));
  }

  // The payload: the string table, then `body`, whose items refer to it.
  static std::string with_strings(const Strings& strings, Writer& body) {
    Writer payload;
    payload.count(strings.list.size());
    std::string bytes = payload.take();
    for (const std::string_view s : strings.list) {
      const auto size = static_cast<uint32_t>(s.size());
      bytes.append(reinterpret_cast<const char*>(&size), sizeof size);
      bytes.append(s);
    }
    bytes += body.take();
    return bytes;
  }

  static void put(Writer& w, Strings& strings, const SymbolTable& table) {
    w.count(table.entries_.size());
    for (const SymbolTable::Entry& e : table.entries_) {
      w.put(e.start);
      w.put(e.size);
      w.put(strings.of(table.names_[e.name]));
    }
  }

  // ---- reading: every check that keeps a lookup inside the arrays ----

  static bool get(Reader& r, ScopeIndex& index, size_t value_limit) {
    const size_t n = r.count(sizeof(uint64_t) + sizeof(uint32_t));
    index.starts_.resize(n);
    index.values_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      index.starts_[i] = r.get<uint64_t>();
      if (i > 0 && index.starts_[i] <= index.starts_[i - 1]) return false;
    }
    for (uint32_t& v : index.values_) {
      v = r.get<uint32_t>();
      if (v != ScopeIndex::kGap && v >= value_limit) return false;
    }
    return r.ok();
  }

  static bool get(Reader& r, LineTable& lines) {
    const size_t n = r.count(sizeof(uint64_t) + 2 * sizeof(uint32_t));
    lines.addresses_.resize(n);
    lines.locations_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      lines.addresses_[i] = r.get<uint64_t>();
      if (i > 0 && lines.addresses_[i] <= lines.addresses_[i - 1]) return false;
    }
    // Any file index is safe: DwarfLookup::compose names only those below the unit's count.
    for (LineTable::Location& l : lines.locations_) {
      l.file = r.get<uint32_t>();
      l.line = r.get<uint32_t>();
    }
    return r.ok();
  }

  // Scope names are pooled once per string: a large module's inline trees name a few thousand
  // functions a million times, too often to hash each time.
  static const PooledName* pooled_name(const CachedUnits& cached, uint32_t i,
                                       DemangledNamePool& pool) {
    const PooledName* name = cached.pooled[i].load(std::memory_order_acquire);
    if (name) return name;
    name = pool.intern(cached.strings[i]);  // the pool hands out one per spelling
    cached.pooled[i].store(name, std::memory_order_release);
    return name;
  }

  static bool get(Reader& r, const CachedUnits& cached, DwarfLookup& dwarf,
                  DwarfLookup::Tree& tree) {
    const size_t n = r.count(4 * sizeof(uint32_t) + 1);
    tree.scopes.resize(n);
    for (size_t i = 0; i < n; ++i) {
      DwarfLookup::Tree::Scope& s = tree.scopes[i];
      const uint32_t name = r.get<uint32_t>();
      s.call_file = r.get<uint32_t>();
      s.call_line = r.get<uint32_t>();
      const uint32_t parent = r.get<uint32_t>();
      s.inlined = r.get<uint8_t>() != 0;
      if (!r.ok() || name >= cached.strings.size()) return false;
      // Parents come before their children, so walking outwards always ends.
      if (parent != kNoParent && parent >= i) return false;
      s.name = pooled_name(cached, name, dwarf.names_);
      s.parent = parent == kNoParent ? -1 : static_cast<int32_t>(parent);
    }
    return get(r, tree.index, n);
  }

  static bool get(Reader& r, const CachedUnits& cached, DwarfLookup& dwarf,
                  DwarfLookup::Unit& unit) {
    const size_t files = r.count(sizeof(uint32_t));
    for (size_t i = 0; i < files; ++i) {
      const uint32_t name = r.get<uint32_t>();
      if (!r.ok() || name >= cached.strings.size()) return false;
      const std::lock_guard lock(dwarf.files_mutex_);
      unit.files.push_back(&*dwarf.file_names_.emplace(cached.strings[name]).first);
    }
    if (!get(r, unit.lines)) return false;
    const size_t ranges = r.count(2 * sizeof(uint64_t));
    unit.function_ranges.resize(ranges);
    for (elf::DwarfRange& range : unit.function_ranges) {
      range.begin = r.get<uint64_t>();
      range.end = r.get<uint64_t>();
    }
    // The index comes before the function count it is checked against.
    ScopeIndex function_index;
    if (!get(r, function_index, SIZE_MAX)) return false;
    const size_t functions = r.count(sizeof(uint64_t) + 2 * sizeof(uint32_t) + 1);
    for (const uint32_t v : function_index.values_) {
      if (v != ScopeIndex::kGap && v >= functions) return false;
    }
    unit.function_index = std::move(function_index);
    unit.functions = std::vector<DwarfLookup::Function>(functions);
    for (DwarfLookup::Function& f : unit.functions) {
      f.offset = r.get<uint64_t>();
      f.first_range = r.get<uint32_t>();
      f.range_count = r.get<uint32_t>();
      const bool has_tree = r.get<uint8_t>() != 0;
      if (uint64_t{f.first_range} + f.range_count > unit.function_ranges.size()) return false;
      if (!has_tree) continue;  // read from the module's DWARF when a lookup needs it
      // The tree is decoded when a lookup first lands in the function (read_tree): here only
      // its place is kept, and its counts are checked against the unit's bytes.
      f.cached_tree = r.position();
      if (!skip_tree(r)) return false;
    }
    return r.at_end();
  }

  // Steps over a tree as get(Reader&, ..., Tree&) would read it: its scopes, then its index.
  static bool skip_tree(Reader& r) {
    constexpr size_t kScopeBytes = 4 * sizeof(uint32_t) + 1;
    constexpr size_t kIndexEntryBytes = sizeof(uint64_t) + sizeof(uint32_t);
    r.skip(r.count(kScopeBytes) * kScopeBytes);
    r.skip(r.count(kIndexEntryBytes) * kIndexEntryBytes);
    return r.ok();
  }

  static bool read_tree(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t unit_index,
                        uint32_t function_index) {
    const DwarfLookup::Unit& unit = dwarf.units_[unit_index];
    DwarfLookup::Function& function = dwarf.units_[unit_index].functions[function_index];
    const std::span<const uint8_t> bytes(unit.cached_bytes);
    auto tree = std::make_unique<DwarfLookup::Tree>();
    if (function.cached_tree <= bytes.size()) {
      Reader r(bytes.subspan(function.cached_tree));
      if (get(r, cached, dwarf, *tree)) {
        function.tree = std::move(tree);
        return true;
      }
    }
    log::warn("symbol cache: " + cached.path +
              ": an inline tree is damaged; it is read from the module's DWARF if it can be, "
              "and the file is rebuilt next time");
    if (!cached.path.empty()) ::unlink(cached.path.c_str());
    return false;
  }

  // Called once per unit the file holds, from DwarfLookup::read_unit. A unit that cannot be
  // read, fails its checksum or does not decode is left empty and the file is removed, so that
  // the next run rebuilds it.
  static bool read_unit(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t index) {
    DwarfLookup::Unit& unit = dwarf.units_[index];
    const CachedUnits::Unit& where = cached.units[index];
    std::vector<uint8_t> bytes(where.size);
    if (read_untrusted_at(cached.file, where.offset, bytes) &&
        (!cached.check_units || checksum(bytes) == where.sum)) {
      Reader r(bytes);
      if (get(r, cached, dwarf, unit)) {
        unit.cached_bytes = std::move(bytes);  // the function trees, read when looked up
        return true;
      }
    }
    log::warn("symbol cache: " + cached.path + ": unit " + std::to_string(index) +
              " is damaged; it is read from the module's DWARF if it can be (else its frames "
              "are named from the symbol table), and the file is rebuilt next time");
    if (!cached.path.empty()) ::unlink(cached.path.c_str());
    unit.files.clear();
    unit.lines = LineTable();
    unit.function_ranges.clear();
    unit.function_index = ScopeIndex();
    unit.functions.clear();
    unit.file_slots.clear();
    return false;
  }

  // The unit index and where each unit's bytes are; the units are decoded when first needed.
  // `whole` says whether the file holds every unit and tree (module_index_codec.hpp).
  static std::unique_ptr<DwarfLookup> get_dwarf(Reader& r, std::shared_ptr<CachedUnits> cached,
                                                const ModuleIndexOrigin& origin, bool& whole) {
    std::unique_ptr<DwarfLookup> dwarf(new DwarfLookup(nullptr, origin.base, 1));
    ScopeIndex unit_index;
    if (!get(r, unit_index, SIZE_MAX)) return nullptr;
    const size_t units = r.count(3 * sizeof(uint64_t));
    for (const uint32_t v : unit_index.values_) {
      if (v != ScopeIndex::kGap && v >= units) return nullptr;
    }
    cached->units.resize(units);
    dwarf->units_ = std::vector<DwarfLookup::Unit>(units);
    uint64_t offset = cached->units_offset;
    for (size_t u = 0; u < units; ++u) {
      CachedUnits::Unit& unit = cached->units[u];
      dwarf->units_[u].offset = r.get<uint64_t>();
      unit.size = r.get<uint64_t>();
      unit.sum = r.get<uint64_t>();
      if (!r.ok()) return nullptr;
      dwarf->units_[u].in_cache = unit.size != 0;
      // A unit the file holds has at least its counts: files, lines, ranges, index and
      // functions; and all of them lie within the file.
      if (unit.size != 0 &&
          (unit.size < 5 * sizeof(uint32_t) || unit.size > cached->units_end - offset)) {
        return nullptr;
      }
      unit.offset = offset;
      offset += unit.size;
    }
    if (offset != cached->units_end) return nullptr;  // bytes no unit claims
    whole = r.get<uint8_t>() != 0;
    if (!r.ok()) return nullptr;
    dwarf->unit_index_ = std::move(unit_index);
    dwarf->cached_ = std::move(cached);
    dwarf->dwarf_file_ = origin.debug;
    return dwarf;
  }

  static bool get_symbols(Reader& r, const std::shared_ptr<const CachedUnits>& cached,
                          SymbolTable& table) {
    const size_t n = r.count(2 * sizeof(uint64_t) + sizeof(uint32_t));
    table.entries_.resize(n);
    table.names_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      SymbolTable::Entry& e = table.entries_[i];
      e.start = r.get<uint64_t>();
      e.size = r.get<uint64_t>();
      const uint32_t name = r.get<uint32_t>();
      if (!r.ok() || name >= cached->strings.size()) return false;
      if (i > 0 && e.start <= table.entries_[i - 1].start) return false;
      e.name = static_cast<uint32_t>(i);
      table.names_[i] = cached->strings[name];
    }
    table.owner_ = cached;
    return true;
  }

  static Error malformed(const char* what) {
    return Error{Errc::kMalformed, std::string("symbol cache file: ") + what};
  }

  // Reads and checks the header, key and prelude, and the prelude's string table. The prelude's
  // body (what follows the strings) starts at `body` in cached->prelude.
  static Result<std::shared_ptr<CachedUnits>> open(ModuleIndexFile source, std::string_view key,
                                                   size_t& body) {
    uint8_t header[kHeaderSize];
    if (source.file.size_bytes < kHeaderSize ||
        !read_untrusted_at(source.file, 0, std::span(header))) {
      return malformed("no header");
    }
    const std::optional<Header> h = read_header(header);
    if (!h) return malformed("no header");
    const auto [version, key_size, prelude_size, prelude_sum, units_size] = *h;
    if (version != kModuleIndexVersion) return malformed("another format version");
    if (key_size != key.size()) return malformed("another module's key");
    // The sizes must add up to the file's: a file cut short, or grown, is refused at once.
    const uint64_t size = source.file.size_bytes;
    if (prelude_size > size || units_size > size ||
        kHeaderSize + key_size + prelude_size + units_size != size) {
      return malformed("truncated or overlong");
    }
    std::string stored_key(key_size, '\0');
    if (!read_untrusted_at(source.file, kHeaderSize,
                           {reinterpret_cast<uint8_t*>(stored_key.data()), key_size}) ||
        stored_key != key) {
      return malformed("another module's key");
    }
    auto cached = std::make_shared<CachedUnits>();
    cached->prelude.resize(prelude_size);
    const uint64_t prelude_offset = kHeaderSize + key_size;
    if (!read_untrusted_at(source.file, prelude_offset,
                           {reinterpret_cast<uint8_t*>(cached->prelude.data()), prelude_size})) {
      return malformed("truncated or overlong");
    }
    const std::span<const uint8_t> prelude(reinterpret_cast<const uint8_t*>(cached->prelude.data()),
                                           prelude_size);
    if (checksum(prelude) != prelude_sum) return malformed("checksum mismatch");

    Reader r(prelude);
    cached->strings.resize(r.count(sizeof(uint32_t)));
    for (std::string_view& s : cached->strings) s = r.text(r.get<uint32_t>());
    if (!r.ok()) return malformed("bad string table");
    body = prelude_size - r.remaining();
    cached->pooled = std::make_unique<std::atomic<const PooledName*>[]>(cached->strings.size());
    cached->units_offset = prelude_offset + prelude_size;
    cached->units_end = size;
    cached->path = std::move(source.path);
    cached->check_units = source.check_units;
    cached->file = std::move(source.file);
    return cached;
  }

  // The prelude's body, after its strings.
  static Reader body_of(const CachedUnits& cached, size_t body) {
    return Reader(
        std::span(reinterpret_cast<const uint8_t*>(cached.prelude.data()), cached.prelude.size())
            .subspan(body));
  }

  static Result<std::shared_ptr<const ModuleSymbolMap>> decode(ModuleIndexFile source,
                                                               std::string_view key,
                                                               ModuleIndexOrigin origin) {
    size_t body = 0;
    SPROF_TRY(std::shared_ptr<CachedUnits> cached, open(std::move(source), key, body));
    Reader r = body_of(*cached, body);
    auto map = std::make_shared<ModuleSymbolMap>();
    // Its names go to the map; get_dwarf below takes only its debug file and base.
    map->module_name_ = std::move(origin.module_name);
    map->debug_file_ = std::move(origin.debug_file);
    map->binary_file_ = std::move(origin.binary_file);
    map->from_cache_ = true;
    if (!get_symbols(r, cached, map->symbols_)) return malformed("bad symbol table");
    const size_t fdes = r.count(2 * sizeof(uint64_t));
    map->fde_functions_.resize(fdes);
    for (size_t i = 0; i < fdes; ++i) {
      elf::FunctionRange& f = map->fde_functions_[i];
      f.begin = r.get<uint64_t>();
      f.end = r.get<uint64_t>();
      if (i > 0 && f.begin < map->fde_functions_[i - 1].begin) return malformed("bad ranges");
    }
    const bool has_dwarf = r.get<uint8_t>() != 0;
    if (!r.ok()) return malformed("bad ranges");
    if (!has_dwarf && cached->units_end != cached->units_offset) {
      return malformed("bytes after the index");
    }
    map->cache_file_whole_ = true;
    if (has_dwarf) {
      map->dwarf_ = get_dwarf(r, std::move(cached), origin, map->cache_file_whole_);
      if (!map->dwarf_) return malformed("bad DWARF index");
    }
    if (!r.at_end()) return malformed("bytes after the index");
    map->demangled_symbol_names_ = DemangledNames(map->symbols_.name_count());
    return std::shared_ptr<const ModuleSymbolMap>(std::move(map));
  }

  static Result<std::shared_ptr<const KernelSymbolMap>> decode_kernel(ModuleIndexFile source,
                                                                      std::string_view key,
                                                                      std::string source_path) {
    size_t body = 0;
    SPROF_TRY(std::shared_ptr<CachedUnits> cached, open(std::move(source), key, body));
    if (cached->units_end != cached->units_offset) return malformed("bytes after the index");
    Reader r = body_of(*cached, body);
    auto map = std::make_shared<KernelSymbolMap>();
    if (!get_symbols(r, cached, map->symbols_)) return malformed("bad symbol table");
    if (!r.at_end()) return malformed("bytes after the index");
    map->demangled_names_ = DemangledNames(map->symbols_.name_count());
    map->source_path_ = std::move(source_path);
    map->from_cache_ = true;
    return std::shared_ptr<const KernelSymbolMap>(std::move(map));
  }
};

std::string module_index_file(std::string_view key, std::string_view prelude,
                              std::string_view units) {
  Writer header;
  for (const char c : kMagic) header.put(c);
  header.put(kModuleIndexVersion);
  header.put(static_cast<uint32_t>(key.size()));
  header.put(static_cast<uint64_t>(prelude.size()));
  header.put(checksum({reinterpret_cast<const uint8_t*>(prelude.data()), prelude.size()}));
  header.put(static_cast<uint64_t>(units.size()));
  std::string file = header.take();
  file.append(key);
  file.append(prelude);
  file.append(units);
  return file;
}

std::string encode_module_index(const ModuleSymbolMap& map, std::string_view key) {
  return ModuleIndexCodec::encode(map, key);
}

Result<std::shared_ptr<const ModuleSymbolMap>> decode_module_index(ModuleIndexFile file,
                                                                   std::string_view key,
                                                                   ModuleIndexOrigin origin) {
  return ModuleIndexCodec::decode(std::move(file), key, std::move(origin));
}

bool read_cached_unit(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t index) {
  return ModuleIndexCodec::read_unit(cached, dwarf, index);
}

bool read_cached_tree(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t unit,
                      uint32_t function) {
  return ModuleIndexCodec::read_tree(cached, dwarf, unit, function);
}

std::optional<ModuleIndexLayout> module_index_layout(std::span<const uint8_t> head) {
  const std::optional<Header> h = read_header(head);
  if (!h || h->version != kModuleIndexVersion || head.size() - kHeaderSize < h->key_size) {
    return std::nullopt;
  }
  const uint64_t prelude = kHeaderSize + h->key_size;
  return ModuleIndexLayout{
      std::string(reinterpret_cast<const char*>(head.data()) + kHeaderSize, h->key_size), prelude,
      h->prelude_size, prelude + h->prelude_size};
}

std::string encode_kernel_index(const KernelSymbolMap& map, std::string_view key) {
  return ModuleIndexCodec::encode(map, key);
}

Result<std::shared_ptr<const KernelSymbolMap>> decode_kernel_index(ModuleIndexFile file,
                                                                   std::string_view key,
                                                                   std::string source_path) {
  return ModuleIndexCodec::decode_kernel(std::move(file), key, std::move(source_path));
}

}  // namespace sprof::symbolicator::detail
