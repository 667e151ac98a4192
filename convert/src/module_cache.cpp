#include "sprof/convert/module_cache.hpp"

#include "sprof/core/log.hpp"

namespace sprof::convert {

std::shared_ptr<const elf::ModuleIdentity> ModuleCache::identity(const std::string& path) {
  auto it = by_path_.find(path);
  if (it != by_path_.end()) return it->second;
  std::shared_ptr<const elf::ModuleIdentity> result;
  auto id = files_.module_identity(path);
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
  vdso_ = files_.vdso_image();
  if (vdso_) {
    auto id = elf::read_module_identity(std::span<const uint8_t>(*vdso_));
    if (id.has_value())
      vdso_identity_ = std::make_shared<const elf::ModuleIdentity>(std::move(*id));
  }
  return vdso_;
}

std::shared_ptr<const elf::ModuleIdentity> ModuleCache::vdso_identity() {
  vdso_image();
  return vdso_identity_;
}

}  // namespace sprof::convert
