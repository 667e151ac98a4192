#include "sprof/convert/kernel_library.hpp"

#include <doctest/doctest.h>

#include <string>

namespace sprof::convert {
namespace {

TEST_CASE("the kernel lib spans the image's text under the kallsyms name, offset 0") {
  const auto image = elf::kernel_image_spanning(0xffffffff81000200, 0xffffffff81e01234,
                                                BuildId({0xab, 0xcd, 0xef, 0x01}));
  const profile::Library lib = kernel_library(image);
  CHECK(lib.start == 0xffffffff81000000);
  CHECK(lib.end == 0xffffffff81e02000);
  CHECK(lib.offset == 0);
  CHECK(lib.name == "[kernel.kallsyms]");
  CHECK(lib.debug_name == "[kernel.kallsyms]");
  CHECK(lib.path == "[kernel.kallsyms]");
  CHECK(lib.debug_path == "[kernel.kallsyms]");
  CHECK(lib.code_id == "abcdef01");
  CHECK(lib.breakpad_id == BuildId({0xab, 0xcd, 0xef, 0x01}).breakpad_id());
}

TEST_CASE("a kernel lib without a build-id gets 33 zeros as its breakpad id") {
  const profile::Library lib =
      kernel_library(elf::kernel_image_spanning(0x1000, 0x3000, BuildId()));
  CHECK(lib.breakpad_id == std::string(33, '0'));
  CHECK(lib.code_id.empty());
  CHECK(lib.start == 0x1000);
  CHECK(lib.end == 0x3000);
}

}  // namespace
}  // namespace sprof::convert
