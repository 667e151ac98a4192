// "[kernel.kallsyms]": addresses relative to _text rounded down to 4096, resolved from kallsyms,
// with the build-id from the notes file checked against the request.
#include <doctest/doctest.h>

#include "sprof/elf/kernel_image.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

constexpr const char* kKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t local_helper\n"
    "ffffffff81000400 T do_syscall_64\n"
    "ffffffff81000800 T _RNvNtCs1234_6kernel4sync4lock\n"
    "ffffffff81000900 T _etext\n"
    "ffffffff81000900 D some_data\n"
    "ffffffffc0001000 t module_fn\t[ext4]\n";

struct KernelFixture {
  test::TempDir dir;
  std::string kallsyms = dir.write("kallsyms", kKallsyms);
  std::string notes =
      dir.write("notes", std::string("\x04\0\0\0\x04\0\0\0\x03\0\0\0GNU\0\x11\x22\x33\x44", 20));
  std::string breakpad = BuildId({0x11, 0x22, 0x33, 0x44}).breakpad_id(true);

  SymbolicatorOptions options() const {
    SymbolicatorOptions o;
    o.kallsyms_path = kallsyms;
    o.kernel_notes_path = notes;
    o.debug_roots.clear();
    return o;
  }
};

TEST_CASE("kernel addresses resolve from kallsyms relative to the rounded _text") {
  KernelFixture fx;
  Symbolicator symbolicator(fx.options());
  auto map = symbolicator.module("[kernel.kallsyms]", fx.breakpad);
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  auto syscall = (*map)->lookup(RelativeAddress{0x410});
  REQUIRE(syscall.has_value());
  CHECK(syscall->function == "do_syscall_64");
  CHECK(syscall->function_start == 0x400);
  CHECK(syscall->function_size == 0x400);
  auto first = (*map)->lookup(RelativeAddress{0x10});
  REQUIRE(first.has_value());
  CHECK(first->function == "startup_64");  // a real function name beats the section markers
  CHECK((*map)->lookup(RelativeAddress{0x100})->function == "local_helper");
  CHECK((*map)->lookup(RelativeAddress{0x820})->function == "kernel::sync::lock");
  CHECK_FALSE((*map)->lookup(RelativeAddress{0x900}).has_value());
}

TEST_CASE("a kernel build-id mismatch is kNotFound") {
  KernelFixture fx;
  Symbolicator symbolicator(fx.options());
  auto map = symbolicator.module("[kernel.kallsyms]", "0123456789ABCDEF0123456789ABCDEF0");
  REQUIRE_FALSE(map.has_value());
  CHECK(map.error().code == Errc::kNotFound);
}

TEST_CASE("a kernel hint path names a saved kallsyms") {
  KernelFixture fx;
  SymbolicatorOptions options = fx.options();
  options.kallsyms_path = "/nonexistent/kallsyms";
  Symbolicator symbolicator(options);
  symbolicator.add_hint(ModuleHint{"[kernel.kallsyms]", fx.breakpad, fx.kallsyms});
  auto map = symbolicator.module("[kernel.kallsyms]", fx.breakpad);
  REQUIRE(map.has_value());
  CHECK((*map)->debug_file() == fx.kallsyms);
}

TEST_CASE("the running kernel symbolicates its own _text region") {
  auto image = elf::read_kernel_image();
  if (!image || image->build_id.empty()) {
    MESSAGE("skipped: kernel image unavailable");
    return;
  }
  Symbolicator symbolicator(SymbolicatorOptions{});
  auto map = symbolicator.module("[kernel.kallsyms]", image->build_id.breakpad_id(true));
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  auto text = elf::read_text_file("/proc/kallsyms");
  REQUIRE(text.has_value());
  const auto symbols = elf::KernelSymbols::parse(*text);
  const auto syscall = symbols.address_of("do_syscall_64");
  REQUIRE(syscall.has_value());
  auto info = (*map)->lookup(RelativeAddress{*syscall - image->text_start + 1});
  REQUIRE(info.has_value());
  CHECK(info->function == "do_syscall_64");
}

}  // namespace
}  // namespace sprof::symbolicator
