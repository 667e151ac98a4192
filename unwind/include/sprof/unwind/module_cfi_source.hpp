// sprof/unwind/module_cfi_source.hpp
//
// `ModuleCfiSource`: the one thing the unwinder needs from outside the records: a mapped
// binary's call frame information, by the path its mapping names. The converter's host
// (`convert::HostFiles`) answers it from this machine's files, an import from the binaries whose
// build-ids match, tests from the suite's own programs. The unwinder asks once per path
// (`CfiRuleCache` keeps the answer) and needs nothing else of the host.
#pragma once

#include <memory>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/elf/cfi_module.hpp"

namespace sprof::unwind {

class ModuleCfiSource {
 public:
  virtual ~ModuleCfiSource() = default;
  // The binary's CFI (.eh_frame and .debug_frame, its separate debug file's included); an error
  // when the binary is unavailable or has none, and the mapping is then walked by frame pointers.
  virtual Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) = 0;
};

}  // namespace sprof::unwind
