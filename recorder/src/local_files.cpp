#include "sprof/recorder/local_files.hpp"

#include <sys/stat.h>

#include "sprof/core/jit_symbol_file.hpp"  // read_small_file
#include "sprof/elf/vdso.hpp"

namespace sprof::recorder {
namespace {

elf::LocatorOptions debug_file_places(std::vector<std::string> symbol_dirs) {
  elf::LocatorOptions options;
  options.symbol_dirs = std::move(symbol_dirs);
  return options;
}

}  // namespace

LocalFiles::LocalFiles(std::vector<std::string> symbol_dirs)
    : debug_files_(debug_file_places(std::move(symbol_dirs))) {}

Result<elf::ModuleIdentity> LocalFiles::module_identity(const std::string& path) {
  return elf::read_module_identity(path);
}

Result<std::unique_ptr<elf::CfiModule>> LocalFiles::module_cfi(const std::string& path) {
  return elf::CfiModule::open(path, debug_files_);
}

Result<std::vector<elf::ElfSymbol>> LocalFiles::function_symbols(const std::string& path) {
  return elf::read_symbols(path);
}

std::shared_ptr<const std::vector<uint8_t>> LocalFiles::vdso_image() {
  return elf::own_vdso_image();
}

Result<std::string> LocalFiles::read_file(const std::string& path, size_t max_bytes) {
  return read_small_file(path, max_bytes);
}

std::optional<double> LocalFiles::modified_wall_ms(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<double>(st.st_mtim.tv_sec) * 1e3 +
         static_cast<double>(st.st_mtim.tv_nsec) / 1e6;
}

}  // namespace sprof::recorder
