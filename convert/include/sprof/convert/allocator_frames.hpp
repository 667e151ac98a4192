// sprof/convert/allocator_frames.hpp
//
// Where the allocation wrappers (allocation_wrappers.hpp) lie in each mapped file, so that the
// converter can drop their frames from the top of an allocation stack by address: the profile
// holds addresses, and names exist only once the symbolicator runs, after recording. The ranges
// come from the file's own symbol tables (.symtab and .dynsym, through the host), read the first
// time a frame falls in that file and kept for every process that maps it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/convert/module_map.hpp"

namespace sprof::convert {

class AllocatorFrames {
 public:
  // `is_wrapper` names the functions to find: is_allocation_wrapper, or is_deallocation_wrapper
  // for frees' stacks.
  using Classifier = bool (*)(std::string_view symbol_name);
  AllocatorFrames(HostFiles& files, Classifier is_wrapper)
      : files_(files), is_wrapper_(is_wrapper) {}

  // Whether the code at `address` (a frame's lookup address), which `mapping` holds, is in one
  // of the wrappers.
  bool contains(const Mapping& mapping, Avma address);

 private:
  using Ranges = std::vector<std::pair<Svma, Svma>>;  // [start, end), sorted, by start
  const Ranges& ranges_of(const std::string& path);

  HostFiles& files_;
  Classifier is_wrapper_;
  std::unordered_map<std::string, Ranges> by_path_;
};

}  // namespace sprof::convert
