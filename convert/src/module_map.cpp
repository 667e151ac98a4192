#include "sprof/convert/module_map.hpp"

namespace sprof::convert {

std::string path_basename(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

// The part of `m` from `new_start` on, as its own mapping (file offsets and relative addresses
// move with the start; the bias does not).
Mapping tail_from(const Mapping& m, uint64_t new_start) {
  Mapping tail = m;
  const uint64_t cut = new_start - m.file.start;
  tail.file.start = new_start;
  tail.pgoff.value += cut;
  tail.relative_start.value += cut;
  return tail;
}

}  // namespace

void ModuleMap::add(const std::string& path, Avma start_avma, Avma end_avma, FileOffset pgoff,
                    std::shared_ptr<const elf::ModuleIdentity> identity,
                    std::shared_ptr<const std::vector<uint8_t>> vdso_image) {
  const uint64_t start = start_avma.value;
  const uint64_t end = end_avma.value;
  if (end <= start) return;
  // Drop or trim whatever the new mapping covers.
  auto it = by_start_.lower_bound(start);
  if (it != by_start_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.file.end > start) {
      if (prev->second.file.end > end) {
        // The new mapping punches a hole: keep the tail as its own entry.
        by_start_.emplace(end, tail_from(prev->second, end));
      }
      prev->second.file.end = start;
    }
  }
  while (it != by_start_.end() && it->first < end) {
    if (it->second.file.end > end) {
      Mapping tail = tail_from(it->second, end);
      it = by_start_.erase(it);
      by_start_.emplace(end, std::move(tail));
      break;
    }
    it = by_start_.erase(it);
  }

  Mapping m;
  m.file.start = start;
  m.file.end = end;
  m.file.path = path;
  m.file.vdso_image = std::move(vdso_image);
  m.pgoff = pgoff;
  m.identity = std::move(identity);
  const std::optional<Svma> svma =
      m.identity ? m.identity->svma_of_mapping(pgoff, /*executable=*/true) : std::nullopt;
  if (svma) {
    m.relative_start = m.identity->relative(*svma);
    m.file.bias = start - svma->value;

    profile::Library lib;
    lib.start = start;
    lib.end = end;
    lib.offset = m.relative_start.value;
    lib.path = path;
    lib.name = path_basename(path);
    lib.debug_name = lib.name;
    lib.debug_path = path;
    lib.breakpad_id = m.identity->breakpad_id();
    lib.code_id = m.identity->code_id();
    lib.arch = m.identity->arch();
    libraries_.push_back(std::move(lib));
  } else {
    // No ELF identity (anonymous memory, a deleted file) or a page no segment maps: the file
    // offset is the best guess of an address inside it, and no lib claims the range.
    m.identity = nullptr;
    m.relative_start = RelativeAddress{pgoff.value};
    m.file.bias = start - pgoff.value;
  }
  by_start_.emplace(start, std::move(m));
}

const Mapping* ModuleMap::find_mapping(uint64_t avma) const {
  auto it = by_start_.upper_bound(avma);
  if (it == by_start_.begin()) return nullptr;
  --it;
  return avma < it->second.file.end ? &it->second : nullptr;
}

const unwind::MappedFile* ModuleMap::find(uint64_t avma) const {
  const Mapping* m = find_mapping(avma);
  return m ? &m->file : nullptr;
}

}  // namespace sprof::convert
