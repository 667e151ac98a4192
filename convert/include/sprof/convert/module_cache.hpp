// sprof/convert/module_cache.hpp
//
// ELF identities of the files the profiled processes map, asked of the host (host.hpp) once per
// file and shared by every process that maps it. A file that cannot be read (deleted, memfd,
// permission, a different build) is remembered as missing so it is not asked for again on every
// mapping.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "sprof/convert/host.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::convert {

class ModuleCache {
 public:
  explicit ModuleCache(HostFiles& files) : files_(files) {}

  // nullptr when the file has no readable ELF identity.
  std::shared_ptr<const elf::ModuleIdentity> identity(const std::string& path);
  // The vdso image (sprof's own; the same for every process on this kernel), or nullptr.
  std::shared_ptr<const std::vector<uint8_t>> vdso_image();
  std::shared_ptr<const elf::ModuleIdentity> vdso_identity();

  size_t unreadable_files() const { return unreadable_; }
  // Where the files come from (the converter also reads marker files and JIT symbols there).
  HostFiles& files() const { return files_; }

 private:
  HostFiles& files_;
  std::unordered_map<std::string, std::shared_ptr<const elf::ModuleIdentity>> by_path_;
  std::shared_ptr<const std::vector<uint8_t>> vdso_;
  std::shared_ptr<const elf::ModuleIdentity> vdso_identity_;
  bool vdso_loaded_ = false;
  size_t unreadable_ = 0;
};

}  // namespace sprof::convert
