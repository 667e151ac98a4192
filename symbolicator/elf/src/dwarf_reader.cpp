// See dwarf_reader.hpp. The DIE walks are in dwarf_walk.cpp.
#include "sprof/elf/dwarf_reader.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string_view>

#include "dwarf_walk.hpp"
#include "elf_file.hpp"

namespace sprof::elf {

namespace {

// One reading at a time: a libdw handle for DIEs, one for line tables, and what belongs to them.
struct Slot {
  bool busy = false;        // guarded by Impl::pool_mutex
  Dwarf* dies = nullptr;    // begun on first use, ended with the reader (names point into it)
  Dwarf* lines = nullptr;   // ended after kRetainedLineRows parsed rows
  size_t retained_rows = 0;
  detail::OriginNames origin_names;  // of `dies`
};

}  // namespace

struct DwarfReader::Impl {
  Impl(ElfFile f, size_t concurrency) : file(std::move(f)) {
    for (size_t i = 0; i < std::max<size_t>(concurrency, 1); ++i) {
      slots.push_back(std::make_unique<Slot>());
    }
  }
  ~Impl() {
    for (auto& slot : slots) {
      if (slot->dies != nullptr) dwarf_end(slot->dies);
      if (slot->lines != nullptr) dwarf_end(slot->lines);
    }
  }

  // A slot for the calling thread, held until the lease ends.
  class Lease {
   public:
    explicit Lease(Impl& impl) : impl_(impl), slot_(impl.acquire()) {}
    ~Lease() { impl_.release(slot_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Slot* operator->() const { return &slot_; }
    Dwarf* dies() { return impl_.begun(slot_.dies); }
    Dwarf* lines() {
      if (slot_.lines != nullptr && slot_.retained_rows > kRetainedLineRows) {
        std::lock_guard lock(impl_.begin_mutex);
        dwarf_end(slot_.lines);
        slot_.lines = nullptr;
        slot_.retained_rows = 0;
      }
      return impl_.begun(slot_.lines);
    }

   private:
    Impl& impl_;
    Slot& slot_;
  };

  Slot& acquire() {
    std::unique_lock lock(pool_mutex);
    for (;;) {
      for (auto& slot : slots) {
        if (!slot->busy) {
          slot->busy = true;
          return *slot;
        }
      }
      freed.wait(lock);
    }
  }

  void release(Slot& slot) {
    {
      std::lock_guard lock(pool_mutex);
      slot.busy = false;
    }
    freed.notify_one();
  }

  // Begins `handle` if it is not yet. dwarf_begin_elf reads (and the first one inflates) the
  // sections of the shared libelf handle, so beginnings are serialised; reading DIEs and lines
  // afterwards touches only each handle's own state and the section data.
  Dwarf* begun(Dwarf*& handle) {
    if (handle == nullptr) {
      std::lock_guard lock(begin_mutex);
      handle = dwarf_begin_elf(file.get(), DWARF_C_READ, nullptr);
    }
    return handle;
  }

  // Counts the DWARF bytes of a unit walked; past kDroppedEvery, the mapped file's pages are
  // given back (ElfFile::drop_mapped_pages), so the pages walks touched do not pile up in the
  // resident set of a process that reads a large module (the sprof binary's DWARF is ~60 MB).
  void note_walked(uint64_t unit) {
    const auto it = std::lower_bound(unit_ends.begin(), unit_ends.end(),
                                     std::pair<uint64_t, uint64_t>{unit, 0});
    if (it == unit_ends.end() || it->first != unit) return;
    const uint64_t walked = walked_since_drop.fetch_add(it->second) + it->second;
    if (walked >= kDroppedEvery && walked_since_drop.exchange(0) >= kDroppedEvery) {
      file.drop_mapped_pages();
    }
  }
  static constexpr uint64_t kDroppedEvery = 1 << 20;

  ElfFile file;
  std::vector<std::pair<uint64_t, uint64_t>> unit_ends;  // (unit DIE offset, bytes to the next)
  std::atomic<uint64_t> walked_since_drop{0};
  std::mutex begin_mutex;
  std::mutex pool_mutex;
  std::condition_variable freed;
  std::vector<std::unique_ptr<Slot>> slots;
};

DwarfReader::DwarfReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DwarfReader::~DwarfReader() = default;

Result<std::unique_ptr<DwarfReader>> DwarfReader::open(const std::string& path,
                                                       size_t concurrency) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  auto impl = std::make_unique<Impl>(std::move(file), concurrency);
  {
    Impl::Lease lease(*impl);
    if (lease.dies() == nullptr) {
      return fail(Errc::kMalformed, path + ": no DWARF (" + dwarf_errmsg(-1) + ")");
    }
  }
  // libdw has read (and inflated) every section it uses; the mapping is all it needs from now.
  impl->file.release_descriptor();
  return std::unique_ptr<DwarfReader>(new DwarfReader(std::move(impl)));
}

std::vector<DwarfUnit> DwarfReader::units() {
  std::vector<DwarfUnit> units;
  Impl::Lease lease(*impl_);
  Dwarf* dwarf = lease.dies();
  if (dwarf == nullptr) return units;
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die unit_die;
  Dwarf_Die sub_die;
  while (dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &unit_die, &sub_die) == 0) {
    cu = next;
    // Type units (DWARF 5 DW_UT_type / split) hold no code.
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
    DwarfUnit& unit = units.emplace_back();
    unit.offset = dwarf_dieoffset(&unit_die);
    Dwarf_Addr base = 0;
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(&unit_die, off, &base, &start, &end)) > 0;) {
      if (end > start) unit.ranges.push_back(DwarfRange{start, end});
    }
  }
  // Units come in offset order; a unit's size is near enough the distance to the next.
  impl_->unit_ends.clear();
  for (size_t i = 0; i + 1 < units.size(); ++i) {
    impl_->unit_ends.emplace_back(units[i].offset, units[i + 1].offset - units[i].offset);
  }
  return units;
}

DwarfFunctions DwarfReader::functions(uint64_t unit) {
  DwarfFunctions functions;
  {
    Impl::Lease lease(*impl_);
    Dwarf* dwarf = lease.dies();
    Dwarf_Die die;
    if (dwarf == nullptr || dwarf_offdie(dwarf, unit, &die) == nullptr) return {};
    functions = detail::walk_unit_functions(&die);
  }
  impl_->note_walked(unit);
  return functions;
}

void DwarfReader::release_file_pages() { impl_->file.drop_mapped_pages(); }

DwarfInlineTree DwarfReader::inline_tree(uint64_t function) {
  Impl::Lease lease(*impl_);
  Dwarf* dwarf = lease.dies();
  Dwarf_Die die;
  if (dwarf == nullptr || dwarf_offdie(dwarf, function, &die) == nullptr) return {};
  return detail::walk_inline_tree(&die, lease->origin_names);
}

DwarfLines DwarfReader::lines(uint64_t unit) {
  DwarfLines out;
  Impl::Lease lease(*impl_);
  Dwarf* dwarf = lease.lines();
  Dwarf_Die die;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf == nullptr || dwarf_offdie(dwarf, unit, &die) == nullptr ||
      dwarf_getsrclines(&die, &lines, &count) != 0 ||
      dwarf_getsrcfiles(&die, &files, &file_count) != 0) {
    return out;
  }
  lease->retained_rows += count;
  Dwarf_Attribute attr;
  const char* comp_dir = dwarf_attr_integrate(&die, DW_AT_comp_dir, &attr) != nullptr
                             ? dwarf_formstring(&attr)
                             : nullptr;
  out.files.reserve(file_count);
  for (size_t i = 0; i < file_count; ++i) {
    const char* path = dwarf_filesrc(files, i, nullptr, nullptr);
    out.files.push_back(path != nullptr ? join_source_path(comp_dir != nullptr ? comp_dir : "", path)
                                        : std::string());
  }
  out.rows.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    Dwarf_Addr address = 0;
    if (line == nullptr || dwarf_lineaddr(line, &address) != 0) continue;
    int number = 0;
    bool end_sequence = false;
    dwarf_lineno(line, &number);
    dwarf_lineendsequence(line, &end_sequence);
    DwarfLineRow row;
    row.address = address;
    row.line = number > 0 ? static_cast<uint32_t>(number) : 0;
    row.end_sequence = end_sequence;
    Dwarf_Files* line_files = nullptr;
    size_t index = 0;
    if (dwarf_line_file(line, &line_files, &index) == 0 && index < file_count) {
      row.file = static_cast<uint32_t>(index);
    }
    out.rows.push_back(row);
  }
  return out;
}

namespace {

// std::filesystem::path::lexically_normal for POSIX paths ([fs.path.generic]: drop "." and
// repeated separators, cancel "name/..", drop ".." right below the root, "." for nothing left),
// on a string: about 20 times cheaper than going through path objects, and this runs for every
// file of every line table read (tests/symbolicator/source_paths_test.cpp checks it against the
// standard library).
std::string lexically_normal(std::string_view path) {
  if (path.empty()) return {};
  const bool absolute = path.front() == '/';
  std::vector<std::string_view> kept;
  // Whether the result ends in a separator, as decided by the last name of the path: a name
  // followed by '/' keeps it; a "." or a cancelled "name/.." leaves the '/' before it.
  bool trailing_separator = false;
  for (size_t start = 0; start < path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view name = path.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    if (name == ".") {
      trailing_separator = true;
    } else if (name != "..") {
      kept.push_back(name);
      trailing_separator = end < path.size();
    } else if (!kept.empty() && kept.back() != "..") {
      kept.pop_back();
      trailing_separator = true;
    } else {
      if (!absolute) kept.push_back(name);  // ".." right below the root is dropped
      trailing_separator = false;           // and a trailing ".." keeps no separator
    }
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += '/';
    out += kept[i];
  }
  if (trailing_separator && !kept.empty()) out += '/';
  return out.empty() ? std::string(".") : out;
}

}  // namespace

std::string join_source_path(std::string_view comp_dir, std::string_view path) {
  std::string joined;
  if ((path.empty() || path.front() != '/') && !comp_dir.empty()) {
    joined.reserve(comp_dir.size() + 1 + path.size());
    joined.append(comp_dir).append("/").append(path);
    path = joined;
  }
  std::string normal = lexically_normal(path);
  // lexically_normal keeps a trailing separator ("dir/.." -> "dir/"); a file name never has one.
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal.empty() ? std::string(path) : normal;
}

}  // namespace sprof::elf
