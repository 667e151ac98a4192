#include "kernel_image_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <vector>

#include "sprof/core/cache_dir.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/replacing_file.hpp"
#include "sprof/core/text_lines.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::recorder {

namespace {

constexpr std::string_view kMagic = "sprof kernel image 1";
constexpr size_t kMaxCacheBytes = 4096;  // the real file is ~150 bytes

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

// The value of the line "<key> <value>" that `lines` holds at `index`, or nullopt.
std::optional<std::string_view> field(const std::vector<std::string_view>& lines, size_t index,
                                      std::string_view key) {
  if (index >= lines.size()) return std::nullopt;
  std::string_view line = lines[index];
  if (line.size() < key.size() + 1 || line.substr(0, key.size()) != key ||
      line[key.size()] != ' ') {
    return std::nullopt;
  }
  return line.substr(key.size() + 1);
}

// The cache file's text if it belongs to this user and no one else can write it.
std::optional<std::string> read_own_file(const std::string& path) {
  auto file = open_untrusted_file(path);
  if (!file) return std::nullopt;
  struct stat st {};
  if (::fstat(file->fd.get(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0 ||
      st.st_size <= 0 || static_cast<uint64_t>(st.st_size) > kMaxCacheBytes) {
    return std::nullopt;
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  if (!read_untrusted_at(*file, 0, {reinterpret_cast<uint8_t*>(text.data()), text.size()})) {
    return std::nullopt;
  }
  return text;
}

// The directory of the cache file `path`, made if missing (sprof/core/cache_dir.hpp).
bool make_cache_directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash != std::string::npos && slash > 0 && make_own_cache_dir(path.substr(0, slash));
}

void store(const std::string& path, std::string_view boot_id, const elf::KernelImage& image) {
  auto written = [&]() -> Result<void> {
    if (!make_cache_directory(path)) {
      return fail(Errc::kPermissionDenied, "no cache directory of this user's for " + path);
    }
    SPROF_TRY(ReplacingFile file, ReplacingFile::create(path, 0600));
    SPROF_TRY_VOID(file.write(format_kernel_image_cache(boot_id, image)));
    return file.commit();
  }();
  if (!written) log::info("kernel image not cached: " + written.error().message);
}

}  // namespace

std::string default_kernel_image_cache_path() {
  const std::string dir = user_cache_dir();
  return dir.empty() ? "" : dir + "/kernel-image";
}

std::string format_kernel_image_cache(std::string_view boot_id, const elf::KernelImage& image) {
  char range[80];
  std::snprintf(range, sizeof range, "text_start %llx\ntext_end %llx\n",
                static_cast<unsigned long long>(image.text_start),
                static_cast<unsigned long long>(image.text_end));
  return std::string(kMagic) + "\nboot_id " + std::string(boot_id) + "\nbuild_id " +
         image.build_id.code_id() + "\n" + range;
}

std::optional<elf::KernelImage> parse_kernel_image_cache(std::string_view text,
                                                         std::string_view boot_id,
                                                         const BuildId& build_id) {
  std::vector<std::string_view> lines;
  while (!text.empty() && lines.size() <= 5) lines.push_back(take_line(text));
  if (lines.size() != 5 || lines[0] != kMagic || boot_id.empty()) return std::nullopt;
  const auto cached_boot = field(lines, 1, "boot_id");
  const auto cached_build = field(lines, 2, "build_id");
  const auto start_text = field(lines, 3, "text_start");
  const auto end_text = field(lines, 4, "text_end");
  if (!cached_boot || !cached_build || !start_text || !end_text) return std::nullopt;
  if (*cached_boot != boot_id || *cached_build != build_id.code_id()) return std::nullopt;
  const auto start = parse_hex(*start_text);
  const auto end = parse_hex(*end_text);
  if (!start || !end || *start >= *end || *start % elf::kKernelPageSize != 0 ||
      *end % elf::kKernelPageSize != 0) {
    return std::nullopt;
  }
  elf::KernelImage image;
  image.text_start = *start;
  image.text_end = *end;
  image.build_id = build_id;
  return image;
}

Result<elf::KernelImage> cached_kernel_image(const KernelImageSources& sources) {
  std::string boot_id;
  if (auto text = read_small_file(sources.boot_id, 256)) boot_id = trimmed(*text);
  if (sources.cache.empty() || boot_id.empty()) {
    return elf::read_kernel_image(sources.kallsyms, sources.notes);
  }
  const auto build_id = elf::read_kernel_build_id(sources.notes);
  const BuildId id = build_id ? *build_id : BuildId();
  if (const auto text = read_own_file(sources.cache)) {
    if (auto image = parse_kernel_image_cache(*text, boot_id, id)) return std::move(*image);
  }
  // The build-id is known already: only kallsyms is left to read.
  SPROF_TRY(const std::string kallsyms, elf::read_text_file(sources.kallsyms));
  SPROF_TRY(elf::KernelImage image,
            elf::kernel_image_from(elf::KernelSymbols::parse(kallsyms), id));
  store(sources.cache, boot_id, image);
  return image;
}

}  // namespace sprof::recorder
