// recorder/src/kernel_image_cache.hpp
//
// The running kernel's text range ("[kernel.kallsyms]": `_text` to `_etext`), remembered per
// boot. Finding `_etext` means reading /proc/kallsyms to its end: the kernel formats ~120 k lines
// for it, about 30 ms of CPU on this VM, per recording, for two addresses that cannot change until
// the next boot (KASLR picks them at boot; loading modules or BPF programs does not move them).
// So the first recording of a boot reads kallsyms and stores the range; later ones read the
// boot id and the build-id note (tiny files) and reuse it.
//
// The cache file is one small text file, $XDG_CACHE_HOME/sprof/kernel-image (else
// ~/.cache/sprof/kernel-image), written 0600 through ReplacingFile. It holds the KASLR offset,
// which only readers of kallsyms may know, so it is used only when it belongs to this user and
// nobody else can write it (a root run under sudo that kept the user's HOME leaves a root-owned
// file the user neither reads nor trusts), and only when its boot id and build-id match the
// running kernel's. Anything else is a miss: kallsyms is read as before and the file replaced.
// The directories are created (0700) only inside directories of the same user, so a root run
// never leaves a root-owned ~/.cache in someone's home.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sprof/core/build_id.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/kernel_image.hpp"

namespace sprof::recorder {

// Where the kernel's facts come from; tests point these at files of their own.
struct KernelImageSources {
  std::string kallsyms = "/proc/kallsyms";
  std::string notes = "/sys/kernel/notes";
  std::string boot_id = "/proc/sys/kernel/random/boot_id";
  std::string cache;  // "" = no cache; see default_kernel_image_cache_path
};

// $XDG_CACHE_HOME/sprof/kernel-image, else $HOME/.cache/sprof/kernel-image; "" when neither
// variable names an absolute directory.
std::string default_kernel_image_cache_path();

// The cache file's text for `image` recorded during boot `boot_id`.
std::string format_kernel_image_cache(std::string_view boot_id, const elf::KernelImage& image);
// The image in `text` if it was written during boot `boot_id` for a kernel with `build_id`
// (empty when the kernel has none) and is well formed; nullopt otherwise.
std::optional<elf::KernelImage> parse_kernel_image_cache(std::string_view text,
                                                         std::string_view boot_id,
                                                         const BuildId& build_id);

// The kernel image, from the cache when it is valid for this boot, else from kallsyms (and then
// stored for the next recording; a cache that cannot be written is only logged). Errors are
// read_kernel_image's.
Result<elf::KernelImage> cached_kernel_image(const KernelImageSources& sources);

}  // namespace sprof::recorder
