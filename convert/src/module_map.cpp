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
  tail.pgoff += cut;
  tail.relative_start += cut;
  return tail;
}

}  // namespace

void ModuleMap::add(const std::string& path, uint64_t start, uint64_t end, uint64_t pgoff,
                    std::shared_ptr<const elf::ModuleIdentity> identity,
                    std::shared_ptr<const std::vector<uint8_t>> vdso_image) {
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
  if (m.identity) {
    // The exact relative address of the mapping's first byte comes from the PT_LOAD that
    // contains `pgoff`; the common shortcut "offset = pgoff" breaks when p_vaddr - p_offset
    // differs from v0.
    const auto rel = m.identity->relative_address_of_file_offset(pgoff);
    m.relative_start = rel.value_or(pgoff);
    m.file.bias = start - (m.relative_start + m.identity->base_vaddr);

    profile::Library lib;
    lib.start = start;
    lib.end = end;
    lib.offset = m.relative_start;
    lib.path = path;
    lib.name = path_basename(path);
    lib.debug_name = lib.name;
    lib.debug_path = path;
    lib.breakpad_id = m.identity->breakpad_id();
    lib.code_id = m.identity->code_id();
    lib.arch = m.identity->arch();
    libraries_.push_back(std::move(lib));
  } else {
    m.relative_start = pgoff;
    m.file.bias = start - pgoff;
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
