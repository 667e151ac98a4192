#include "process/module_cache.hpp"

#include <sys/auxv.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "sprof/core/log.hpp"

namespace sprof::recorder {

std::shared_ptr<const elf::ModuleIdentity> ModuleCache::identity(const std::string& path) {
  auto it = by_path_.find(path);
  if (it != by_path_.end()) return it->second;
  std::shared_ptr<const elf::ModuleIdentity> result;
  auto id = elf::read_module_identity(path);
  if (id.has_value()) {
    result = std::make_shared<const elf::ModuleIdentity>(std::move(*id));
  } else {
    ++unreadable_;
    log::debug("no ELF identity for " + path + ": " + id.error().message);
  }
  by_path_.emplace(path, result);
  return result;
}

std::shared_ptr<const std::vector<uint8_t>> ModuleCache::vdso_image() {
  if (vdso_loaded_) return vdso_;
  vdso_loaded_ = true;
  // Every process on this kernel maps the same vdso, so sprof's own copy stands for the target's.
  const auto base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return nullptr;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("[vdso]") == std::string::npos) continue;
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &start, &end) != 2 || start != base) continue;
    std::vector<uint8_t> bytes(end - start);
    std::memcpy(bytes.data(), reinterpret_cast<const void*>(start), bytes.size());
    vdso_ = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    auto id = elf::read_module_identity(std::span<const uint8_t>(*vdso_));
    if (id.has_value()) vdso_identity_ = std::make_shared<const elf::ModuleIdentity>(std::move(*id));
    break;
  }
  return vdso_;
}

std::shared_ptr<const elf::ModuleIdentity> ModuleCache::vdso_identity() {
  vdso_image();
  return vdso_identity_;
}

}  // namespace sprof::recorder
