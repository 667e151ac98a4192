#include "sprof/elf/kernel_image.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace sprof::elf {
namespace {

constexpr const char* kKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t secondary_startup\n"
    "garbage line\n"
    "ffffffff81e01234 T _etext\n"
    "ffffffff82000000 D some_data\n"
    "ffffffffc0001000 t mod_fn\t[ext4]\n";

TEST_CASE("kallsyms parsing keeps types, names and modules and skips bad lines") {
  const KernelSymbols symbols = KernelSymbols::parse(kKallsyms);
  REQUIRE(symbols.symbols().size() == 6);
  const KernelSymbol& mod = symbols.symbols().back();
  CHECK(mod.name == "mod_fn");
  CHECK(mod.module == "ext4");
  CHECK(mod.type == 't');
  CHECK(mod.is_text());
  CHECK_FALSE(mod.is_global());
  CHECK(symbols.address_of("_text") == 0xffffffff81000000);
  CHECK(symbols.address_of("secondary_startup") == 0xffffffff81000100);
  CHECK_FALSE(symbols.address_of("mod_fn").has_value());  // module symbols are not core kernel
  CHECK_FALSE(symbols.addresses_hidden());
}

TEST_CASE("kernel image spans _text rounded down to _etext rounded up to 4096") {
  const std::string text = "ffffffff81000200 T _text\nffffffff81e01234 T _etext\n";
  auto image = kernel_image_from(KernelSymbols::parse(text), BuildId({1, 2, 3}));
  REQUIRE(image.has_value());
  CHECK(image->text_start == 0xffffffff81000000);
  CHECK(image->text_end == 0xffffffff81e02000);
  CHECK(image->build_id.code_id() == "010203");
}

TEST_CASE("a kernel text range is rounded out to whole pages, aligned ends kept") {
  const auto image = kernel_image_spanning(0xffffffff81000200, 0xffffffff81e01234, BuildId());
  CHECK(image.text_start == 0xffffffff81000000);
  CHECK(image.text_end == 0xffffffff81e02000);
  CHECK(image.build_id.empty());
  const auto aligned = kernel_image_spanning(0xffffffff81000000, 0xffffffff81e00000, BuildId({7}));
  CHECK(aligned.text_start == 0xffffffff81000000);
  CHECK(aligned.text_end == 0xffffffff81e00000);
  CHECK(aligned.build_id.code_id() == "07");
}

TEST_CASE("kernel image reports hidden kallsyms addresses and missing _etext") {
  auto hidden = kernel_image_from(
      KernelSymbols::parse("0000000000000000 T _text\n0000000000000000 T _etext\n"), BuildId());
  REQUIRE_FALSE(hidden.has_value());
  CHECK(hidden.error().code == Errc::kPermissionDenied);
  auto partial = kernel_image_from(KernelSymbols::parse("ffffffff81000000 T _text\n"), BuildId());
  REQUIRE_FALSE(partial.has_value());
  CHECK(partial.error().code == Errc::kNotFound);
}

TEST_CASE("kernel build-id is parsed from /sys/kernel/notes bytes") {
  // A Xen note first (as on this machine), then the GNU build-id (20 bytes).
  std::vector<uint8_t> notes = {4, 0, 0, 0, 4, 0, 0,  0, 0x13, 0, 0, 0, 'X', 'e', 'n', 0,   0,   0,
                                0, 0, 4, 0, 0, 0, 20, 0, 0,    0, 3, 0, 0,   0,   'G', 'N', 'U', 0};
  for (uint8_t i = 0; i < 20; ++i) notes.push_back(static_cast<uint8_t>(0xa0 + i));
  auto id = parse_kernel_build_id(notes);
  REQUIRE(id.has_value());
  CHECK(id->code_id() == "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
  CHECK(id->breakpad_id(true) == "A3A2A1A0A5A4A7A6A8A9AAABACADAEAF0");
  CHECK_FALSE(parse_kernel_build_id(std::vector<uint8_t>(notes.begin(), notes.begin() + 30)));
}

TEST_CASE("a note whose sizes wrap when rounded up is rejected, not read past the buffer") {
  // descsz = 0xffffffff rounds up to 2^32, which is 0 in 32 bits: the build-id span would reach
  // 4 GiB past the buffer. namesz = 0xfffffffd wraps the same way before the descriptor.
  const std::vector<uint8_t> huge_desc = {4, 0, 0,   0,   0xff, 0xff, 0xff, 0xff, 3,    0,
                                          0, 0, 'G', 'N', 'U',  0,    0xab, 0xcd, 0xef, 0x01};
  CHECK_FALSE(parse_kernel_build_id(huge_desc).has_value());
  const std::vector<uint8_t> huge_name = {0xfd, 0xff, 0xff, 0xff, 4,   0, 0,    0,    3,    0,
                                          0,    0,    'G',  'N',  'U', 0, 0xab, 0xcd, 0xef, 0x01};
  CHECK_FALSE(parse_kernel_build_id(huge_name).has_value());
  // Sizes that are only a little too large are truncation, also rejected.
  const std::vector<uint8_t> short_desc = {4, 0, 0,   0,   5,   0, 0,    0,    3,    0,
                                           0, 0, 'G', 'N', 'U', 0, 0xab, 0xcd, 0xef, 0x01};
  CHECK_FALSE(parse_kernel_build_id(short_desc).has_value());
}

TEST_CASE("reading the kernel image from files uses both kallsyms and notes") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string kallsyms = dir + "/sprof-kernel-image-test-kallsyms";
  const std::string notes = dir + "/sprof-kernel-image-test-notes";
  std::ofstream(kallsyms) << kKallsyms;
  const char note_bytes[] = {4, 0, 0,   0,   2,   0, 0,    0,    3, 0,
                             0, 0, 'G', 'N', 'U', 0, 0x12, 0x34, 0, 0};
  std::ofstream(notes, std::ios::binary).write(note_bytes, sizeof(note_bytes));
  auto image = read_kernel_image(kallsyms, notes);
  REQUIRE(image.has_value());
  CHECK(image->text_start == 0xffffffff81000000);
  CHECK(image->build_id.code_id() == "1234");
  auto without_notes = read_kernel_image(kallsyms, dir + "/sprof-no-such-notes");
  REQUIRE(without_notes.has_value());
  CHECK(without_notes->build_id.empty());
  CHECK_FALSE(read_kernel_image(dir + "/sprof-no-such-kallsyms", notes).has_value());
  std::filesystem::remove(kallsyms);
  std::filesystem::remove(notes);
}

TEST_CASE("the running kernel's image is readable here when kallsyms shows addresses") {
  auto image = read_kernel_image();
  if (!image) {
    MESSAGE("skipped: " << image.error().message);
    return;
  }
  CHECK(image->text_start % 4096 == 0);
  CHECK(image->text_end > image->text_start);
  CHECK_FALSE(image->build_id.empty());
}

}  // namespace
}  // namespace sprof::elf
