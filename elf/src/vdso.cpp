#include "sprof/elf/vdso.hpp"

#include <sys/auxv.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>

#include "sprof/core/replacing_file.hpp"
#include "sprof/core/untrusted_file.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::elf {

namespace {

std::shared_ptr<const std::vector<uint8_t>> read_own_vdso() {
  const auto base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return nullptr;
  // The mapping's length comes from /proc/self/maps; the ELF headers alone do not give it.
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long start = 0, end = 0;
    if (line.find("[vdso]") == std::string::npos ||
        std::sscanf(line.c_str(), "%lx-%lx", &start, &end) != 2 || start != base) {
      continue;
    }
    std::vector<uint8_t> bytes(end - start);
    std::memcpy(bytes.data(), reinterpret_cast<const void*>(start), bytes.size());
    return std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const std::vector<uint8_t>> own_vdso_image() {
  static const std::shared_ptr<const std::vector<uint8_t>> image = read_own_vdso();
  return image;
}

Result<std::string> write_own_vdso_image(const std::string& directory) {
  const auto image = own_vdso_image();
  if (!image) return fail(Errc::kNotFound, "this process has no vdso");
  SPROF_TRY(auto identity, read_module_identity(std::span<const uint8_t>(*image)));
  const std::string path = directory + "/sprof-vdso-" + identity.breakpad_id() + ".so";
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  // The directory is usually /tmp, where another user may have put anything at this name: a
  // FIFO (a blocking open would hang), a symlink (writing through it would overwrite its target),
  // or a file with other bytes. Only an exact copy is reused; anything else is replaced.
  const std::string_view bytes(reinterpret_cast<const char*>(image->data()), image->size());
  if (auto existing = read_small_file(path, image->size()); existing && *existing == bytes) {
    return path;
  }
  SPROF_TRY(ReplacingFile out, ReplacingFile::create(path));
  SPROF_TRY_VOID(out.write(bytes));
  SPROF_TRY_VOID(out.commit());
  return path;
}

}  // namespace sprof::elf
