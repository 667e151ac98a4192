// sprof/convert/kernel_library.hpp
//
// The "[kernel.kallsyms]" lib every process of a profile gets (docs/firefox-profiler-format.md,
// "Kernel frames"): kernel frames stay addresses, relative to the page that holds `_text`, and
// the symbol server resolves them from kallsyms. A live recording learns the image from kallsyms
// (recorder), a perf.data file from its kernel MMAP record (perfdata); both describe it here, so
// the two kinds of profile name the kernel alike.
#pragma once

#include "sprof/elf/kernel_image.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

// The lib spanning the image's text, offset 0. Without a build-id the kernel still needs a
// stable, non-empty identity: the breakpad id is then 33 zeros and the code id empty.
profile::Library kernel_library(const elf::KernelImage& image);

}  // namespace sprof::convert
