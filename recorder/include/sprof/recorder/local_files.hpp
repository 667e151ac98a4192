// sprof/recorder/local_files.hpp
//
// `LocalFiles`: the converter's `HostFiles` (sprof/convert/host.hpp) answered from this
// machine's filesystem, for processes that ran here: binaries read by path through sprof::elf
// (which also finds their separate debug files' CFI, in the symbol dirs and then where the
// symbolicator looks), sprof's own vdso (every process on one kernel maps the same image), and
// the marker files, perf maps and jitdumps as they are on disk.
#pragma once

#include <string>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/elf/debug_file_locator.hpp"

namespace sprof::recorder {

class LocalFiles final : public convert::HostFiles {
 public:
  // `symbol_dirs` (--symbol-dir) are searched for debug files before the system's debug roots.
  explicit LocalFiles(std::vector<std::string> symbol_dirs = {});

  Result<elf::ModuleIdentity> module_identity(const std::string& path) override;
  Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) override;
  Result<std::vector<elf::ElfSymbol>> function_symbols(const std::string& path) override;
  std::shared_ptr<const std::vector<uint8_t>> vdso_image() override;
  Result<std::string> read_file(const std::string& path, size_t max_bytes) override;
  std::optional<double> modified_wall_ms(const std::string& path) override;

 private:
  elf::DebugFileLocator debug_files_;
};

}  // namespace sprof::recorder
