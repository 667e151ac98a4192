// sprof/elf/kernel_image.hpp
//
// What sprof knows about the running kernel image without debug info: its text symbols from
// /proc/kallsyms and its build-id from /sys/kernel/notes. The recorder uses `read_kernel_image`
// to describe the "[kernel.kallsyms]" lib (docs/firefox-profiler-format.md, "Kernel frames": start
// = `_text` rounded down to 4096, end = `_etext` rounded up, offset 0); the symbolicator uses
// `KernelSymbols` to resolve addresses relative to that rounded start. Parsing is pure; only the
// `read_*` functions do I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/build_id.hpp"
#include "sprof/core/result.hpp"

namespace sprof::elf {

inline constexpr std::string_view kKernelDebugName = "[kernel.kallsyms]";
inline constexpr uint64_t kKernelPageSize = 4096;

struct KernelSymbol {
  uint64_t address = 0;
  char type = '?';  // nm-style: 'T'/'t' text, 'W'/'w' weak, 'D' data, ...
  std::string name;
  std::string module;  // "" for the core kernel, else the name inside "[...]"

  bool is_text() const { return type == 'T' || type == 't' || type == 'W' || type == 'w'; }
  bool is_global() const { return type >= 'A' && type <= 'Z'; }
};

// The parsed contents of /proc/kallsyms ("<hex address> <type> <name>[\t[<module>]]" per line).
class KernelSymbols {
 public:
  // Skips lines that do not parse. Order is kept as in the input.
  static KernelSymbols parse(std::string_view text);

  const std::vector<KernelSymbol>& symbols() const { return symbols_; }
  // The address of the first core-kernel symbol named `name`.
  std::optional<uint64_t> address_of(std::string_view name) const;
  // True when every address is zero: kallsyms hides addresses from this reader (kptr_restrict).
  bool addresses_hidden() const;

 private:
  std::vector<KernelSymbol> symbols_;
};

struct KernelImage {
  uint64_t text_start = 0;  // `_text` rounded down to 4096: relative addresses start here
  uint64_t text_end = 0;    // `_etext` rounded up to 4096
  BuildId build_id;         // from /sys/kernel/notes; empty if unreadable
};

// The GNU build-id in the bytes of /sys/kernel/notes (a sequence of ELF notes, host order).
std::optional<BuildId> parse_kernel_build_id(std::span<const uint8_t> notes);
// Reads and parses `notes_path` (normally /sys/kernel/notes).
Result<BuildId> read_kernel_build_id(const std::string& notes_path = "/sys/kernel/notes");

// The image whose text spans [text_start, text_end), rounded out to pages (start down, end up)
// as the "[kernel.kallsyms]" lib describes it; both kallsyms and a perf.data file's kernel MMAP
// record give the text this way.
KernelImage kernel_image_spanning(uint64_t text_start, uint64_t text_end, BuildId build_id);

// The kernel image range from kallsyms text plus a build-id. kNotFound when `_text` or `_etext`
// is missing, kPermissionDenied when kallsyms hides its addresses.
Result<KernelImage> kernel_image_from(const KernelSymbols& symbols, BuildId build_id);
// Reads both files. A missing or unreadable notes file leaves `build_id` empty (not an error).
Result<KernelImage> read_kernel_image(const std::string& kallsyms_path = "/proc/kallsyms",
                                      const std::string& notes_path = "/sys/kernel/notes");

// Reads a whole (possibly /proc or /sys) regular file, bounded; such files report size 0, so it
// reads to EOF. A FIFO or device at `path` is refused (sprof/core/untrusted_file.hpp).
Result<std::string> read_text_file(const std::string& path);

}  // namespace sprof::elf
