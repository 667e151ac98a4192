// sprof/convert/module_map.hpp
//
// The executable mappings of one process image, built from PERF_RECORD_MMAP2 (and /proc/PID/maps
// when attaching). It answers "which file, at which bias, holds this AVMA" for the unwinder and
// produces the profile's `libs` (docs/firefox-profiler-format.md, "libs") with offsets such that
// `avma - (start - offset)` is the relative address SVMA - v0. The file's LOAD segments turn a
// mapping's page offset into an SVMA (elf::ModuleIdentity::svma_of_mapping, docs/addresses.md):
// nothing here does address arithmetic with file offsets.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sprof/elf/module_identity.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::convert {

struct Mapping {
  unwind::MappedFile file;  // start, end, bias, path (+ vdso image)
  FileOffset pgoff;
  RelativeAddress relative_start;                       // relative address of `file.start`
  std::shared_ptr<const elf::ModuleIdentity> identity;  // null: no ELF identity (anon, deleted)
};

class ModuleMap : public unwind::AddressSpace {
 public:
  // Adds an executable mapping. A mapping overlapping older ones replaces them in the address
  // lookup (mmap over an existing range), while the profile keeps every library ever mapped.
  // Every mapping added is executable (the map exists for code addresses).
  void add(const std::string& path, Avma start, Avma end, FileOffset pgoff,
           std::shared_ptr<const elf::ModuleIdentity> identity,
           std::shared_ptr<const std::vector<uint8_t>> vdso_image = nullptr);

  const unwind::MappedFile* find(uint64_t avma) const override;
  const Mapping* find_mapping(uint64_t avma) const;
  bool empty() const { return by_start_.empty(); }

  // Libraries for the profile: one per mapping that has an identity.
  const std::vector<profile::Library>& libraries() const { return libraries_; }

 private:
  std::map<uint64_t, Mapping> by_start_;  // non-overlapping, keyed by start
  std::vector<profile::Library> libraries_;
};

// Basename of a path ("/usr/lib/libc.so.6" -> "libc.so.6").
std::string path_basename(const std::string& path);

}  // namespace sprof::convert
