// The kernel image's range (from kallsyms) and build-id (from /sys/kernel/notes).
#include "sprof/elf/kernel_image.hpp"

#include "sprof/core/untrusted_file.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::elf {

Result<std::string> read_text_file(const std::string& path) {
  // kallsyms of a distribution kernel with its modules is 10-20 MB; the path may come from a
  // profile, so it is read as untrusted (a FIFO there would otherwise block the reader).
  constexpr size_t kMaxKernelTextBytes = size_t{256} << 20;
  return read_small_file(path, kMaxKernelTextBytes, Symlinks::kFollow);
}

std::optional<BuildId> parse_kernel_build_id(std::span<const uint8_t> notes) {
  return find_gnu_build_id_note(notes);
}

Result<BuildId> read_kernel_build_id(const std::string& notes_path) {
  SPROF_TRY(std::string bytes, read_text_file(notes_path));
  auto id = parse_kernel_build_id({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  if (!id) return fail(Errc::kNotFound, notes_path + ": no GNU build-id note");
  return std::move(*id);
}

Result<KernelImage> kernel_image_from(const KernelSymbols& symbols, BuildId build_id) {
  if (!symbols.symbols().empty() && symbols.addresses_hidden()) {
    return fail(Errc::kPermissionDenied,
                "kallsyms addresses are hidden (kernel.kptr_restrict); run as root or lower it");
  }
  auto text = symbols.address_of("_text");
  auto etext = symbols.address_of("_etext");
  if (!text || !etext || *etext < *text) {
    return fail(Errc::kNotFound, "kallsyms has no _text/_etext");
  }
  return kernel_image_spanning(*text, *etext, std::move(build_id));
}

KernelImage kernel_image_spanning(uint64_t text_start, uint64_t text_end, BuildId build_id) {
  KernelImage image;
  // docs/firefox-profiler-format.md, "Kernel frames": start rounded down and end rounded up to
  // 4096.
  image.text_start = text_start / kKernelPageSize * kKernelPageSize;
  image.text_end = (text_end + kKernelPageSize - 1) / kKernelPageSize * kKernelPageSize;
  image.build_id = std::move(build_id);
  return image;
}

Result<KernelImage> read_kernel_image(const std::string& kallsyms_path,
                                      const std::string& notes_path) {
  SPROF_TRY(std::string text, read_text_file(kallsyms_path));
  auto build_id = read_kernel_build_id(notes_path);
  return kernel_image_from(KernelSymbols::parse(text), build_id ? std::move(*build_id) : BuildId());
}

}  // namespace sprof::elf
