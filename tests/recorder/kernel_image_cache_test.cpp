#include "kernel_image_cache.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "temp_dir.hpp"

namespace sprof::recorder {
namespace {

constexpr std::string_view kKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81001000 t some_function\n"
    "ffffffff82209988 T _etext\n"
    "ffffffffc0001000 t module_function\t[some_module]\n";
constexpr std::string_view kBootId = "b3c7e414-c6e6-48d6-8d69-ff7bc5d0a3b5";

// A fake kernel: kallsyms, an empty notes file (no build-id) and a boot id, with the cache in a
// subdirectory that does not exist yet.
struct FakeKernel {
  test::TempDir dir;
  KernelImageSources sources;

  FakeKernel() {
    sources.kallsyms = dir.write_file("kallsyms", kKallsyms);
    sources.notes = dir.write_file("notes", "");
    sources.boot_id = dir.write_file("boot_id", std::string(kBootId) + "\n");
    sources.cache = (dir.path() / "cache" / "sprof" / "kernel-image").string();
  }
};

TEST_CASE(
    "the first recording of a boot reads kallsyms and caches the range; later ones reuse it") {
  FakeKernel kernel;
  REQUIRE(kernel.dir.valid());
  const auto first = cached_kernel_image(kernel.sources);
  REQUIRE(first.has_value());
  CHECK(first->text_start == 0xffffffff81000000);
  CHECK(first->text_end == 0xffffffff8220a000);
  struct stat st {};
  REQUIRE(::stat(kernel.sources.cache.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // Without kallsyms the range can only come from the cache.
  std::filesystem::remove(kernel.sources.kallsyms);
  const auto second = cached_kernel_image(kernel.sources);
  REQUIRE(second.has_value());
  CHECK(second->text_start == first->text_start);
  CHECK(second->text_end == first->text_end);

  SUBCASE("a new boot does not use it") {
    kernel.dir.write_file("boot_id", "another-boot\n");
    CHECK_FALSE(cached_kernel_image(kernel.sources).has_value());
  }
  SUBCASE("a cache file others can write is not trusted") {
    REQUIRE(::chmod(kernel.sources.cache.c_str(), 0620) == 0);
    CHECK_FALSE(cached_kernel_image(kernel.sources).has_value());
  }
  SUBCASE("a damaged cache file is a miss, and the next read of kallsyms replaces it") {
    std::filesystem::resize_file(kernel.sources.cache, 60);
    CHECK_FALSE(cached_kernel_image(kernel.sources).has_value());
    kernel.dir.write_file("kallsyms", kKallsyms);
    REQUIRE(cached_kernel_image(kernel.sources).has_value());
    std::filesystem::remove(kernel.sources.kallsyms);
    CHECK(cached_kernel_image(kernel.sources).has_value());
  }
}

TEST_CASE("the cache directory is made only inside a directory of this user's") {
  FakeKernel kernel;
  REQUIRE(kernel.dir.valid());
  // A home that belongs to someone else, as when root runs under a sudo that kept HOME.
  const auto home = kernel.dir.path() / "home";
  std::filesystem::create_directory(home);
  const uid_t other = ::geteuid() == 0 ? 65534 : ::geteuid() + 1;
  if (::chown(home.c_str(), other, static_cast<gid_t>(-1)) != 0) {
    MESSAGE("cannot give a directory to another user here (not root); skipped");
    return;
  }
  kernel.sources.cache = (home / ".cache" / "sprof" / "kernel-image").string();
  REQUIRE(cached_kernel_image(kernel.sources).has_value());  // still read from kallsyms
  CHECK_FALSE(std::filesystem::exists(home / ".cache"));
}

TEST_CASE("without a cache path or a boot id kallsyms is read every time") {
  FakeKernel kernel;
  REQUIRE(kernel.dir.valid());
  SUBCASE("no cache path") { kernel.sources.cache.clear(); }
  SUBCASE("no boot id") { std::filesystem::remove(kernel.sources.boot_id); }
  REQUIRE(cached_kernel_image(kernel.sources).has_value());
  std::filesystem::remove(kernel.sources.kallsyms);
  CHECK_FALSE(cached_kernel_image(kernel.sources).has_value());
}

TEST_CASE("the cache text is used only for its boot and build-id, and only when well formed") {
  elf::KernelImage image;
  image.text_start = 0xffffffff81000000;
  image.text_end = 0xffffffff8220a000;
  image.build_id = *BuildId::from_hex("48dc540c8b76393804ca8088dbfa7d42911a9444");
  const std::string text = format_kernel_image_cache("boot-1", image);

  const auto parsed = parse_kernel_image_cache(text, "boot-1", image.build_id);
  REQUIRE(parsed.has_value());
  CHECK(parsed->text_start == image.text_start);
  CHECK(parsed->text_end == image.text_end);
  CHECK(parsed->build_id == image.build_id);

  CHECK_FALSE(parse_kernel_image_cache(text, "boot-2", image.build_id).has_value());
  CHECK_FALSE(parse_kernel_image_cache(text, "boot-1", BuildId()).has_value());
  CHECK_FALSE(parse_kernel_image_cache(text, "", image.build_id).has_value());
  CHECK_FALSE(parse_kernel_image_cache(text.substr(0, text.size() - 10), "boot-1", image.build_id)
                  .has_value());
  CHECK_FALSE(
      parse_kernel_image_cache(text + "extra line\n", "boot-1", image.build_id).has_value());

  elf::KernelImage unaligned = image;
  unaligned.text_end += 8;
  CHECK_FALSE(parse_kernel_image_cache(format_kernel_image_cache("boot-1", unaligned), "boot-1",
                                       image.build_id)
                  .has_value());
  elf::KernelImage reversed = image;
  std::swap(reversed.text_start, reversed.text_end);
  CHECK_FALSE(parse_kernel_image_cache(format_kernel_image_cache("boot-1", reversed), "boot-1",
                                       image.build_id)
                  .has_value());
}

}  // namespace
}  // namespace sprof::recorder
