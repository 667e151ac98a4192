// sprof/elf/elf_file_handle.hpp
//
// An ELF file as code outside sprof::elf holds it: opened once by sprof::elf (the debug file
// locator opens each file it accepts) and handed to every reader of that file, so that building
// one module's symbol map opens the binary and its debug file once each. Only sprof::elf looks
// inside (`ElfFile`, elf/src/elf_file.hpp). Shared, because one file may serve several readers
// (an unstripped binary is also its own debug file) and the DWARF reader keeps it.
#pragma once

#include <memory>

namespace sprof::elf {

class ElfFile;
using SharedElfFile = std::shared_ptr<ElfFile>;

}  // namespace sprof::elf
