// See dwarf_reader.hpp. The DIE walks are in dwarf_walk.cpp.
#include "sprof/elf/dwarf_reader.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>

#include "dwarf_native.hpp"
#include "dwarf_walk.hpp"
#include "elf_file.hpp"

namespace sprof::elf {

namespace {

// One reading at a time: a libdw handle for DIEs, one for line tables, and what belongs to them.
struct Slot {
  bool busy = false;       // guarded by Impl::pool_mutex
  Dwarf* dies = nullptr;   // begun on first use, ended with the reader (names point into it)
  Dwarf* lines = nullptr;  // ended after kRetainedLineRows parsed rows
  size_t retained_rows = 0;
  detail::OriginNames origin_names;        // of `dies`
  detail::NativeOriginNames native_names;  // of the own reader
};

// A unit as read from one libdw handle.
struct UnitDies {
  Dwarf_Die file;  // the unit's DIE in the file: for a split unit, its skeleton
  Dwarf_Die code;  // the DIE whose children are the unit's code: `file`, or the split unit's
};

const char* string_attribute(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  return dwarf_attr(die, name, &attr) != nullptr ? dwarf_formstring(&attr) : nullptr;
}

// libdw opens a skeleton's .dwo itself, with a blocking open(2) of a path that the (untrusted)
// DWARF chooses: a FIFO there would block the reader for good. So the .dwo is looked for only if
// each path libdw tries (DW_AT_dwo_name in the file's directory, then in DW_AT_comp_dir) is
// missing or a regular file: stat does not block, and follows symlinks as open(2) does. (A FIFO
// swapped in between this check and libdw's open is not caught.) What libdw reads from a .dwo it
// reads as DWARF, as it reads the file, and it links the .dwo only if its unit id matches.
bool dwo_paths_are_regular(Dwarf_Die* skeleton, const std::filesystem::path& file_directory) {
  const char* dwo_name = string_attribute(skeleton, DW_AT_dwo_name);
  if (dwo_name == nullptr) dwo_name = string_attribute(skeleton, DW_AT_GNU_dwo_name);
  if (dwo_name == nullptr) return false;
  const char* comp_dir = string_attribute(skeleton, DW_AT_comp_dir);
  // An absolute DW_AT_dwo_name or comp dir replaces what precedes it, as in libdw.
  const std::filesystem::path tried[] = {
      file_directory / dwo_name, file_directory / (comp_dir != nullptr ? comp_dir : "") / dwo_name};
  for (const std::filesystem::path& path : tried) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return false;
  }
  return true;
}

// The sections the own reader parses, as libdw holds them: dwarf_begin_elf has inflated the
// compressed ones in the libelf handle, so their data now is what libdw reads.
detail::DwarfSectionBytes dwarf_sections(Elf* elf) {
  size_t names = 0;
  detail::DwarfSectionBytes s;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return s;
  const std::pair<const char*, std::span<const uint8_t>*> wanted[] = {
      {".debug_info", &s.info},
      {".debug_abbrev", &s.abbrev},
      {".debug_str", &s.str},
      {".debug_line_str", &s.line_str},
      {".debug_str_offsets", &s.str_offsets},
      {".debug_addr", &s.addr},
      {".debug_ranges", &s.ranges},
      {".debug_rnglists", &s.rnglists},
      {".debug_line", &s.line},
  };
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type == SHT_NOBITS ||
        (header.sh_flags & SHF_COMPRESSED) != 0) {
      continue;
    }
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name == nullptr) continue;
    for (const auto& [wanted_name, bytes] : wanted) {
      if (std::string_view(name) != wanted_name || !bytes->empty()) continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      if (data != nullptr && data->d_buf != nullptr) {
        *bytes = {static_cast<const uint8_t*>(data->d_buf), data->d_size};
      }
    }
  }
  return s;
}

bool has_skeleton_units(Dwarf* dwarf) {
  Dwarf_CU* cu = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  while (dwarf_get_units(dwarf, cu, &cu, &version, &unit_type, nullptr, nullptr) == 0) {
    if (unit_type == DW_UT_skeleton) return true;
  }
  return false;
}

}  // namespace

struct DwarfReader::Impl {
  Impl(SharedElfFile f, size_t concurrency) : file(std::move(f)) {
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
      handle = dwarf_begin_elf(file->get(), DWARF_C_READ, nullptr);
    }
    return handle;
  }

  // The unit whose DIE in the file is at `unit`, on `dwarf`; for a split unit, with the split
  // unit's DIE when its .dwo may be opened (split_units) and libdw finds it.
  std::optional<UnitDies> unit_dies(Dwarf* dwarf, uint64_t unit) const {
    UnitDies dies;
    if (dwarf == nullptr || dwarf_offdie(dwarf, unit, &dies.file) == nullptr) return std::nullopt;
    dies.code = dies.file;
    if (!std::binary_search(split_units.begin(), split_units.end(), unit)) return dies;
    uint8_t unit_type = 0;
    Dwarf_Die split;
    if (dwarf_cu_info(dies.file.cu, nullptr, &unit_type, nullptr, &split, nullptr, nullptr,
                      nullptr) == 0 &&
        unit_type == DW_UT_skeleton && split.cu != nullptr) {
      dies.code = split;
    }
    return dies;
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
      file->drop_mapped_pages();
    }
  }
  static constexpr uint64_t kDroppedEvery = 1 << 20;

  // DwarfReader::units() as libdw reads them; also lists the skeleton units (split_units).
  std::vector<DwarfUnit> libdw_units();

  SharedElfFile file;
  std::unique_ptr<detail::NativeDwarf> native;  // null: libdw reads the DIEs
  std::filesystem::path directory;              // the file's, where libdw first looks for a .dwo
  // Skeleton units whose .dwo may be opened (dwo_paths_are_regular), by unit DIE offset, sorted.
  // Written by units(), as unit_ends is.
  std::vector<uint64_t> split_units;
  std::vector<std::pair<uint64_t, uint64_t>> unit_ends;  // (unit DIE offset, bytes to the next)
  std::atomic<uint64_t> walked_since_drop{0};
  std::mutex begin_mutex;
  std::mutex pool_mutex;
  std::condition_variable freed;
  std::vector<std::unique_ptr<Slot>> slots;
};

DwarfReader::DwarfReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DwarfReader::~DwarfReader() = default;

Result<std::unique_ptr<DwarfReader>> DwarfReader::open(const std::string& path, size_t concurrency,
                                                       DwarfParser parser) {
  SPROF_TRY(SharedElfFile file, ElfFile::open_shared(path));
  return open(std::move(file), concurrency, parser);
}

Result<std::unique_ptr<DwarfReader>> DwarfReader::open(SharedElfFile file, size_t concurrency,
                                                       DwarfParser parser) {
  const std::string path = file->path();
  // libdw names the directory it looks for a .dwo in by the descriptor's link, as here.
  std::error_code error;
  std::filesystem::path directory =
      std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(file->fd()), error)
          .parent_path();
  auto impl = std::make_unique<Impl>(std::move(file), concurrency);
  impl->directory = std::move(directory);
  bool split = false;
  {
    Impl::Lease lease(*impl);
    if (lease.dies() == nullptr) {
      return fail(Errc::kMalformed, path + ": no DWARF (" + dwarf_errmsg(-1) + ")");
    }
    split = has_skeleton_units(lease.dies());
    // .zdebug_* sections (GNU's older compression) keep their names: libdw reads them, the own
    // reader finds no .debug_info and leaves the module to libdw.
    if (!split && parser == DwarfParser::kOwnThenLibdw) {
      // dwz's supplementary file, which libdw finds by .gnu_debugaltlink (and keeps open as long
      // as this handle, which lives as long as the reader).
      Dwarf* alt = dwarf_getalt(lease.dies());
      const detail::DwarfSectionBytes supplementary =
          dwarf_sections(alt != nullptr ? dwarf_getelf(alt) : nullptr);
      impl->native = detail::NativeDwarf::open(dwarf_sections(impl->file->get()),
                                               alt != nullptr ? &supplementary : nullptr);
    }
  }
  // libdw has read (and inflated) every section it uses; the mapping is all it needs from now.
  // Except for split DWARF: each handle, as it begins, learns the file's directory (where it
  // looks for a .dwo first) from the descriptor, so that one stays open for all to find the same.
  if (!split) impl->file->release_descriptor();
  return std::unique_ptr<DwarfReader>(new DwarfReader(std::move(impl)));
}

std::vector<DwarfUnit> DwarfReader::units() {
  std::vector<DwarfUnit> units =
      impl_->native != nullptr ? impl_->native->units() : impl_->libdw_units();
  // Units come in offset order; a unit's size is near enough the distance to the next.
  impl_->unit_ends.clear();
  for (size_t i = 0; i + 1 < units.size(); ++i) {
    impl_->unit_ends.emplace_back(units[i].offset, units[i + 1].offset - units[i].offset);
  }
  return units;
}

std::vector<DwarfUnit> DwarfReader::Impl::libdw_units() {
  std::vector<DwarfUnit> units;
  Lease lease(*this);
  Dwarf* dwarf = lease.dies();
  if (dwarf == nullptr) return units;
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die unit_die;
  split_units.clear();
  // No split sub-DIE asked for: libdw would open the .dwo files unchecked (unit_dies does that).
  while (dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &unit_die, nullptr) == 0) {
    cu = next;
    // Type units (DWARF 5 DW_UT_type / split) hold no code.
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial && unit_type != DW_UT_skeleton) {
      continue;
    }
    DwarfUnit& unit = units.emplace_back();
    unit.offset = dwarf_dieoffset(&unit_die);
    if (unit_type == DW_UT_skeleton && dwo_paths_are_regular(&unit_die, directory)) {
      split_units.push_back(unit.offset);
    }
    Dwarf_Addr base = 0;
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(&unit_die, off, &base, &start, &end)) > 0;) {
      if (end > start) unit.ranges.push_back(DwarfRange{start, end});
    }
  }
  return units;
}

DwarfFunctions DwarfReader::functions(uint64_t unit) {
  if (impl_->native != nullptr) {
    if (std::optional<DwarfFunctions> own = impl_->native->functions(unit)) {
      impl_->note_walked(unit);
      return std::move(*own);
    }
  }
  DwarfFunctions functions;
  {
    Impl::Lease lease(*impl_);
    std::optional<UnitDies> dies = impl_->unit_dies(lease.dies(), unit);
    if (!dies) return {};
    functions = detail::walk_unit_functions(&dies->code);
  }
  impl_->note_walked(unit);
  return functions;
}

void DwarfReader::release_file_pages() { impl_->file->drop_mapped_pages(); }

bool DwarfReader::parses_dies_itself() const { return impl_->native != nullptr; }

DwarfInlineTree DwarfReader::inline_tree(uint64_t unit, uint64_t function) {
  Impl::Lease lease(*impl_);
  if (impl_->native != nullptr) {
    if (std::optional<DwarfInlineTree> own =
            impl_->native->inline_tree(unit, function, lease->native_names)) {
      return std::move(*own);
    }
  }
  std::optional<UnitDies> dies = impl_->unit_dies(lease.dies(), unit);
  Dwarf_Die die;
  // The function's DIE is in the DWARF that holds the unit's code: the file's or the .dwo's.
  if (!dies || dwarf_offdie(dwarf_cu_getdwarf(dies->code.cu), function, &die) == nullptr) {
    return {};
  }
  return detail::walk_inline_tree(&die, lease->origin_names);
}

DwarfLines DwarfReader::lines(uint64_t unit) {
  if (impl_->native != nullptr) {
    if (std::optional<DwarfLines> own = impl_->native->lines(unit)) return std::move(*own);
  }
  DwarfLines out;
  Impl::Lease lease(*impl_);
  std::optional<UnitDies> dies = impl_->unit_dies(lease.lines(), unit);
  // The rows and their file table are the file's (a split unit's too: its skeleton's); call
  // files index the table of the unit that holds the code.
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (!dies || dwarf_getsrclines(&dies->file, &lines, &count) != 0 ||
      dwarf_getsrcfiles(&dies->file, &files, &file_count) != 0) {
    return out;
  }
  Dwarf_Files* call_files = nullptr;
  size_t call_file_count = 0;
  if (dwarf_getsrcfiles(&dies->code, &call_files, &call_file_count) != 0) {
    call_files = files;
    call_file_count = file_count;
  }
  lease->retained_rows += count;
  const char* comp_dir = string_attribute(&dies->file, DW_AT_comp_dir);
  const auto add_files = [&](Dwarf_Files* table, size_t table_count) {
    for (size_t i = 0; i < table_count; ++i) {
      const char* path = dwarf_filesrc(table, i, nullptr, nullptr);
      out.files.push_back(path != nullptr
                              ? join_source_path(comp_dir != nullptr ? comp_dir : "", path)
                              : std::string());
    }
  };
  add_files(call_files, call_file_count);
  const size_t first_row_file = call_files == files ? 0 : out.files.size();
  if (call_files != files) add_files(files, file_count);
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
      row.file = static_cast<uint32_t>(first_row_file + index);
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
