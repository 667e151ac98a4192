#include "dwarf_lookup.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <unordered_map>

#include "module_index_codec.hpp"
#include "sprof/core/log.hpp"

namespace sprof::symbolicator::detail {

namespace {

// Reading threads per module: the machine's, at most this many. Each has a libdw handle of its
// own, whose caches (abbreviations, units) cost a few MB for a large binary.
constexpr size_t kMaxReadingThreads = 8;

size_t reading_threads() {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, kMaxReadingThreads);
}

}  // namespace

DwarfLookup::DwarfLookup(std::unique_ptr<elf::DwarfReader> reader, uint64_t base,
                         size_t concurrency)
    : reader_(std::move(reader)), base_(base), concurrency_(concurrency) {}

DwarfLookup::~DwarfLookup() = default;

Result<std::unique_ptr<DwarfLookup>> DwarfLookup::open(elf::SharedElfFile file, uint64_t base) {
  const size_t concurrency = reading_threads();
  SPROF_TRY(auto reader, elf::DwarfReader::open(std::move(file), concurrency));
  std::unique_ptr<DwarfLookup> lookup(new DwarfLookup(std::move(reader), base, concurrency));
  const std::vector<elf::DwarfUnit> units = lookup->reader_->units();
  lookup->units_ = std::vector<Unit>(units.size());

  std::vector<ScopeIndex::Range> ranges;
  for (uint32_t u = 0; u < units.size(); ++u) {
    lookup->units_[u].offset = units[u].offset;
    if (!units[u].ranges.empty()) {
      for (const elf::DwarfRange& r : units[u].ranges) {
        if (r.begin >= base) ranges.push_back({r.begin - base, r.end - base, 0, u});
      }
      continue;
    }
    // A unit that states no ranges (a partial unit, or a producer that leaves them out) is
    // read now, and claims what its functions cover.
    for (const elf::DwarfRange& r : lookup->read_unit(u).function_ranges) {
      ranges.push_back({r.begin, r.end, 0, u});
    }
  }
  lookup->unit_index_ = ScopeIndex::build(std::move(ranges));
  lookup->reader_->release_file_pages();
  return lookup;
}

std::optional<DwarfLookup::Location> DwarfLookup::find(uint64_t address) {
  const auto unit_index = unit_index_.find(address);
  if (!unit_index) return std::nullopt;
  Unit& unit = read_unit(*unit_index);
  const auto function_index = unit.function_index.find(address);
  Function* function = function_index ? &unit.functions[*function_index] : nullptr;
  const Tree* tree = function ? read_tree(unit, *function) : nullptr;
  return compose(unit, function, tree, address);
}

void DwarfLookup::prepare(std::span<const uint64_t> addresses) {
  if (cached_) return;  // from the symbol cache: a unit decodes faster than threads start
  // Addresses grouped by unit; a unit is one piece of work (its functions, lines and trees).
  std::vector<std::pair<uint32_t, uint64_t>> by_unit;
  by_unit.reserve(addresses.size());
  for (const uint64_t address : addresses) {
    if (const auto unit = unit_index_.find(address)) by_unit.emplace_back(*unit, address);
  }
  std::sort(by_unit.begin(), by_unit.end());
  struct Work {
    size_t begin;
    size_t end;
  };
  std::vector<Work> work;
  for (size_t i = 0; i < by_unit.size();) {
    size_t j = i;
    while (j < by_unit.size() && by_unit[j].first == by_unit[i].first) ++j;
    work.push_back({i, j});
    i = j;
  }
  // Units with the most addresses first, so that the threads finish together.
  std::stable_sort(work.begin(), work.end(),
                   [](const Work& a, const Work& b) { return a.end - a.begin > b.end - b.begin; });

  run_shared_out(work.size(), [&](size_t w) {
    Unit& unit = read_unit(by_unit[work[w].begin].first);
    for (size_t i = work[w].begin; i < work[w].end; ++i) {
      if (const auto f = unit.function_index.find(by_unit[i].second)) {
        read_tree(unit, unit.functions[*f]);
      }
    }
  });
  // What the reading touched of the mapped file is not needed again soon.
  reader_->release_file_pages();
}

bool DwarfLookup::read_all(const std::atomic<bool>& stop) {
  if (cached_) {  // loaded from the symbol cache: decoded from its bytes, or what it lacks read
    for (uint32_t u = 0; u < units_.size() && !stop.load(std::memory_order_relaxed); ++u) {
      Unit& unit = read_unit(u);
      for (Function& function : unit.functions) read_tree(unit, function);
    }
    if (read_from_dwarf() > 0) reader()->release_file_pages();  // reader() opened it
    return !stop.load(std::memory_order_relaxed);
  }
  run_shared_out(units_.size(), [&](size_t u) {
    if (stop.load(std::memory_order_relaxed)) return;
    Unit& unit = read_unit(static_cast<uint32_t>(u));
    for (Function& function : unit.functions) read_tree(unit, function);
  });
  reader_->release_file_pages();
  return !stop.load(std::memory_order_relaxed);
}

void DwarfLookup::run_shared_out(size_t count, const std::function<void(size_t)>& task) const {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) task(i);
  };
  std::vector<std::jthread> helpers;
  for (size_t t = 1; t < std::min(concurrency_, count); ++t) helpers.emplace_back(run);
  run();
}

bool DwarfLookup::whole() const {
  for (const Unit& unit : units_) {
    if (!unit.unit_read.load(std::memory_order_acquire) || unit.lost) return false;
    for (const Function& function : unit.functions) {
      if (!function.tree_read.load(std::memory_order_acquire) || !function.tree) return false;
    }
  }
  return true;
}

elf::DwarfReader* DwarfLookup::reader() {
  if (!dwarf_file_) return reader_.get();
  std::call_once(reader_opened_, [&] {
    auto opened = elf::DwarfReader::open(dwarf_file_, 1);
    if (!opened) {
      log::debug("symbol cache: the DWARF its file lacks cannot be read: " +
                 opened.error().message);
      return;
    }
    // The cache's key names this build of the module, so its units are the file's; a file
    // that says otherwise (damaged, or a key that failed to tell two builds apart) lends it
    // nothing.
    const std::vector<elf::DwarfUnit> units = (*opened)->units();
    bool same = units.size() == units_.size();
    for (size_t u = 0; same && u < units.size(); ++u) same = units[u].offset == units_[u].offset;
    if (!same) {
      log::debug("symbol cache: its DWARF units are not the module's; what it lacks is not read");
      return;
    }
    reader_ = std::move(*opened);
  });
  return reader_.get();
}

bool DwarfLookup::names_source_file(const std::string& path) {
  std::lock_guard lock(files_mutex_);
  return file_names_.contains(path);
}

DwarfLookup::Unit& DwarfLookup::read_unit(uint32_t index) {
  Unit& unit = units_[index];
  std::call_once(unit.read, [&] {
    read_unit_now(unit);
    unit.unit_read.store(true, std::memory_order_release);
  });
  return unit;
}

const DwarfLookup::Tree* DwarfLookup::read_tree(const Unit& unit, Function& function) {
  std::call_once(function.read, [&] {
    read_tree_now(unit, function);
    function.tree_read.store(true, std::memory_order_release);
  });
  return function.tree.get();
}

void DwarfLookup::read_unit_now(Unit& unit) {
  // A unit the cache file holds comes from its bytes; one it lacks, or that turns out damaged,
  // from the module's DWARF.
  if (cached_ && unit.in_cache &&
      read_cached_unit(*cached_, *this, static_cast<uint32_t>(&unit - units_.data()))) {
    return;
  }
  read_unit_from_dwarf(unit);
}

void DwarfLookup::read_unit_from_dwarf(Unit& unit) {
  elf::DwarfReader* const dwarf = reader();
  if (!dwarf) {  // a cache file's unit that neither it nor the module can give
    unit.lost = true;
    return;
  }
  read_from_dwarf_.fetch_add(1, std::memory_order_relaxed);
  elf::DwarfLines lines = dwarf->lines(unit.offset);
  {
    // The same name may appear more than once in a file table (DWARF 5 repeats the primary
    // source file as entry 0 and 1): rows of either count as one file, as before.
    std::lock_guard lock(files_mutex_);
    std::unordered_map<const std::string*, uint32_t> distinct;
    for (std::string& name : lines.files) {
      if (name.empty()) {
        unit.file_slots.push_back(elf::kNoFile);
        continue;
      }
      const std::string* interned = &*file_names_.insert(std::move(name)).first;
      auto [it, added] = distinct.try_emplace(interned, static_cast<uint32_t>(unit.files.size()));
      if (added) unit.files.push_back(interned);
      unit.file_slots.push_back(it->second);
    }
  }
  for (elf::DwarfLineRow& row : lines.rows) {
    row.file = row.file < unit.file_slots.size() ? unit.file_slots[row.file] : elf::kNoFile;
  }
  unit.lines = LineTable::build(std::move(lines.rows), base_);

  const elf::DwarfFunctions read = dwarf->functions(unit.offset);
  std::vector<ScopeIndex::Range> ranges;
  std::vector<elf::DwarfFunction> kept;
  for (const elf::DwarfFunction& f : read.functions) {
    elf::DwarfFunction function = f;
    function.first_range = static_cast<uint32_t>(unit.function_ranges.size());
    for (uint32_t i = 0; i < f.range_count; ++i) {
      const elf::DwarfRange& r = read.ranges[f.first_range + i];
      if (r.begin < base_) continue;
      unit.function_ranges.push_back({r.begin - base_, r.end - base_});
      ranges.push_back(
          {r.begin - base_, r.end - base_, f.depth, static_cast<uint32_t>(kept.size())});
    }
    function.range_count =
        static_cast<uint32_t>(unit.function_ranges.size()) - function.first_range;
    if (function.range_count > 0) kept.push_back(function);
  }
  unit.functions = std::vector<Function>(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    unit.functions[i].offset = kept[i].offset;
    unit.functions[i].first_range = kept[i].first_range;
    unit.functions[i].range_count = kept[i].range_count;
  }
  unit.function_index = ScopeIndex::build(std::move(ranges));
}

void DwarfLookup::read_tree_now(const Unit& unit, Function& function) {
  if (cached_ && function.cached_tree != kNoCachedTree &&
      read_cached_tree(*cached_, *this, static_cast<uint32_t>(&unit - units_.data()),
                       static_cast<uint32_t>(&function - unit.functions.data()))) {
    return;
  }
  read_tree_from_dwarf(unit, function);
}

void DwarfLookup::read_tree_from_dwarf(const Unit& unit, Function& function) {
  elf::DwarfReader* const dwarf = reader();
  if (!dwarf) return;  // no tree: the function's frames have no inline frames
  read_from_dwarf_.fetch_add(1, std::memory_order_relaxed);
  const elf::DwarfInlineTree read = dwarf->inline_tree(unit.offset, function.offset);
  auto tree = std::make_unique<Tree>();
  tree->scopes.reserve(read.scopes.size());
  for (const elf::DwarfScope& s : read.scopes) {
    Tree::Scope& scope = tree->scopes.emplace_back();
    scope.name = names_.intern(s.name);
    scope.call_file =
        s.call_file < unit.file_slots.size() ? unit.file_slots[s.call_file] : elf::kNoFile;
    scope.call_line = s.call_line;
    scope.parent = s.parent;
    scope.inlined = s.inlined;
  }
  std::vector<ScopeIndex::Range> ranges;
  ranges.reserve(read.ranges.size());
  for (const elf::DwarfScopeRange& r : read.ranges) {
    if (r.begin < base_) continue;
    ranges.push_back({r.begin - base_, r.end - base_, read.scopes[r.scope].depth, r.scope});
  }
  tree->index = ScopeIndex::build(std::move(ranges));
  function.tree = std::move(tree);
}

DwarfLookup::Location DwarfLookup::compose(const Unit& unit, const Function* function,
                                           const Tree* tree, uint64_t address) const {
  const auto file_name = [&unit](uint32_t file) {
    return file < unit.files.size() ? std::string_view(*unit.files[file]) : std::string_view();
  };
  Location location;
  const auto row = unit.lines.find(address);
  std::string_view file = row ? file_name(row->file) : std::string_view();
  uint32_t line = row ? row->line : 0;

  const auto innermost = tree ? tree->index.find(address) : std::nullopt;
  // Walk from the innermost scope outwards; every inlined scope becomes an inline frame whose
  // position is where the next inner one was called (or the line table's, for the innermost).
  for (int32_t s = innermost ? static_cast<int32_t>(*innermost) : -1; s >= 0;
       s = tree->scopes[static_cast<size_t>(s)].parent) {
    const auto index = static_cast<size_t>(s);
    const Tree::Scope& scope = tree->scopes[index];
    const std::string& name = scope.name->demangled();
    if (!scope.inlined) {
      OuterFunction outer;
      outer.name = scope.name->spelled();
      outer.demangled = &name;
      for (uint32_t i = 0; i < function->range_count; ++i) {
        const elf::DwarfRange& r = unit.function_ranges[function->first_range + i];
        if (r.begin <= address && address < r.end) {
          outer.range_begin = r.begin;
          outer.range_end = r.end;
          break;
        }
      }
      location.function = outer;
      break;
    }
    location.inlines.push_back(InlineFrame{name, std::string(file), line});
    file = file_name(scope.call_file);
    line = scope.call_line;
  }
  location.file = std::string(file);
  location.line = line;
  return location;
}

}  // namespace sprof::symbolicator::detail
