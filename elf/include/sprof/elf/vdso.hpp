// sprof/elf/vdso.hpp
//
// The vdso is not a file: it is an ELF image the kernel maps into every process. All processes
// on one kernel map the same image, so sprof's own copy (found through AT_SYSINFO_EHDR) stands
// for the target's — for unwinding through it while recording and for symbolicating it later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::elf {

inline constexpr const char* kVdsoName = "[vdso]";

// This process's vdso image (read once), or nullptr when there is none.
std::shared_ptr<const std::vector<uint8_t>> own_vdso_image();

// Writes the image to `<directory>/sprof-vdso-<breakpad id>.so` (once) so that it can be opened
// like any other module file; returns the path.
Result<std::string> write_own_vdso_image(const std::string& directory);

}  // namespace sprof::elf
