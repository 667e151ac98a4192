// tests/unwind/unwind_cfi_module_test.cpp
//
// `elf::CfiModule` on real files: the test target built -O2 -fomit-frame-pointer, glibc's libc
// and the vdso of this process. Functions are found by name, never by hard-coded address.
#include <doctest/doctest.h>
#include <elf.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "sprof/elf/cfi_module.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/unwind/sigreturn_frame.hpp"
#include "sprof_test/paths.hpp"
#include "unwind_snapshot.hpp"

namespace sprof::test {
namespace {

using elf::CfiModule;
using elf::DwarfReg;
using elf::FrameRule;
using Kind = elf::RegisterRule::Kind;

std::string target_path() { return std::string(kTargetsDir) + "/unwind_snapshots"; }

uint64_t symbol_address(const std::string& path, const std::string& name) {
  auto symbols = elf::read_symbols(path);
  REQUIRE(symbols.has_value());
  auto symbol = elf::find_symbol(*symbols, name);
  REQUIRE_MESSAGE(symbol.has_value(), name << " not in " << path);
  return symbol->address;
}

std::string self_maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The kernel's view of a handler (struct sigaction of arch/x86/include/asm/signal.h's
// rt_sigaction ABI): glibc installs its own sa_restorer, __restore_rt.
struct KernelSigaction {
  void* handler;
  unsigned long flags;
  void* restorer;
  uint64_t mask;
};

void ignore_signal(int) {}

// sh_addr of the section called `name` in the ELF64 file at `path` (0 when absent), read with
// <elf.h>'s structs so the test does not trust the code under test to find sections.
uint64_t section_address(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  Elf64_Ehdr eh{};
  if (bytes.size() < sizeof eh) return 0;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (bytes.size() < eh.e_shoff + sections.size() * sizeof(Elf64_Shdr)) return 0;
  std::memcpy(sections.data(), bytes.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  const Elf64_Shdr& names = sections.at(eh.e_shstrndx);
  for (const auto& sh : sections) {
    if (bytes.compare(names.sh_offset + sh.sh_name, name.size() + 1,
                      std::string(name.c_str(), name.size() + 1)) == 0) {
      return sh.sh_addr;
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("at a function's first instruction the CFA is rsp + 8 and the return address at -8") {
  auto cfi = CfiModule::open(target_path());
  REQUIRE(cfi.has_value());
  CHECK((*cfi)->has_cfi());
  const uint64_t leaf = symbol_address(target_path(), "leaf_polynomial");
  auto rule = (*cfi)->find_rule(sprof::Svma{leaf});
  REQUIRE(rule.has_value());
  CHECK(rule->cfa_kind == FrameRule::CfaKind::kRegOffset);
  CHECK(rule->cfa_reg == static_cast<uint8_t>(DwarfReg::kRsp));
  CHECK(rule->cfa_offset == 8);
  CHECK(rule->return_address().kind == Kind::kOffset);
  CHECK(rule->return_address().offset == -8);
  CHECK(rule->pc_start <= leaf);
  CHECK(leaf < rule->pc_end);
  CHECK(rule->rule(DwarfReg::kRbx).kind == Kind::kSameValue);
  CHECK_FALSE(rule->signal_frame);
}

TEST_CASE("inside a function that pushed registers the rules name their save slots") {
  auto cfi = CfiModule::open(target_path());
  REQUIRE(cfi.has_value());
  // `recurse` pushes r13, r12, rbp and rbx before its body; its last instruction is `ret`, so
  // look a little before its end for a row in the body.
  auto symbols = elf::read_symbols(target_path());
  REQUIRE(symbols.has_value());
  auto recurse = elf::find_symbol(*symbols, "recurse");
  REQUIRE(recurse.has_value());
  bool found_saved_rbx = false;
  for (uint64_t pc = recurse->address; pc < recurse->address + recurse->size; ++pc) {
    auto rule = (*cfi)->find_rule(sprof::Svma{pc});
    REQUIRE(rule.has_value());
    REQUIRE(rule->cfa_kind == FrameRule::CfaKind::kRegOffset);
    CHECK(rule->cfa_offset >= 8);
    if (rule->rule(DwarfReg::kRbx).kind == Kind::kOffset) found_saved_rbx = true;
  }
  CHECK(found_saved_rbx);
}

TEST_CASE("CFI that exists only in .debug_frame is found") {
  const std::string path = std::string(kTargetsDir) + "/libunwind_debug_frame_lib.so";
  auto cfi = CfiModule::open(path);
  REQUIRE(cfi.has_value());
  const uint64_t function = symbol_address(path, "debug_frame_function");
  auto rule = (*cfi)->find_rule(sprof::Svma{function});
  REQUIRE(rule.has_value());
  CHECK(rule->cfa_kind == FrameRule::CfaKind::kRegOffset);
  CHECK(rule->cfa_offset == 8);
  CHECK(rule->return_address().offset == -8);
  CHECK_FALSE(rule->synthesized);
}

TEST_CASE("a PLT without an FDE gets the call-site rule CFA = rsp + 8") {
  const std::string path = std::string(kTargetsDir) + "/libunwind_debug_frame_lib.so";
  const uint64_t plt = section_address(path, ".plt");
  REQUIRE(plt != 0);
  auto cfi = CfiModule::open(path);
  REQUIRE(cfi.has_value());
  auto rule = (*cfi)->find_rule(sprof::Svma{plt + 0x10});  // the first entry after PLT0
  REQUIRE(rule.has_value());
  CHECK(rule->synthesized);
  CHECK(rule->cfa_reg == static_cast<uint8_t>(DwarfReg::kRsp));
  CHECK(rule->cfa_offset == 8);
  CHECK(rule->return_address().kind == Kind::kOffset);
  CHECK(rule->return_address().offset == -8);
  // Code outside the PLT and outside any FDE has no rule.
  const uint64_t init = section_address(path, ".init");
  REQUIRE(init != 0);
  CHECK_FALSE((*cfi)->find_rule(sprof::Svma{init}).has_value());
}

TEST_CASE("_start marks the return address undefined, which ends every main-thread walk") {
  auto cfi = CfiModule::open(target_path());
  REQUIRE(cfi.has_value());
  auto rule = (*cfi)->find_rule(sprof::Svma{symbol_address(target_path(), "_start") + 1});
  REQUIRE(rule.has_value());
  CHECK(rule->return_address().kind == Kind::kUndefined);
}

TEST_CASE("libc's rt_sigreturn trampoline is recognised by its bytes") {
  struct sigaction sa {};
  sa.sa_handler = ignore_signal;
  REQUIRE(sigaction(SIGUSR2, &sa, nullptr) == 0);
  KernelSigaction kernel{};
  REQUIRE(syscall(SYS_rt_sigaction, SIGUSR2, nullptr, &kernel, sizeof(uint64_t)) == 0);
  const auto restorer = reinterpret_cast<uint64_t>(kernel.restorer);
  REQUIRE(restorer != 0);

  auto space = MapsAddressSpace::parse(self_maps(), nullptr);
  REQUIRE(space.has_value());
  const auto* libc = space->find(restorer);
  REQUIRE(libc != nullptr);
  CHECK(libc->path.find("libc.so") != std::string::npos);
  auto cfi = CfiModule::open(libc->path);
  REQUIRE(cfi.has_value());
  std::array<uint8_t, sprof::unwind::kSigreturnCode.size()> code{};
  REQUIRE((*cfi)->read_code(libc->to_svma(sprof::Avma{restorer}), code));
  CHECK(sprof::unwind::is_sigreturn_code(code));
  // glibc also describes it as a signal frame ('S' augmentation), starting one byte early so
  // that "return address - 1" lookups land inside it.
  auto rule = (*cfi)->find_rule(sprof::Svma{libc->to_svma(sprof::Avma{restorer}).value - 1});
  REQUIRE(rule.has_value());
  CHECK(rule->signal_frame);
}

TEST_CASE("the vdso image opened from memory has CFI") {
  const auto base = getauxval(AT_SYSINFO_EHDR);
  REQUIRE(base != 0);
  auto space = MapsAddressSpace::parse(self_maps(), nullptr);
  REQUIRE(space.has_value());
  size_t size = 0;
  {
    std::istringstream lines(self_maps());
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("[vdso]") == std::string::npos) continue;
      const uint64_t start = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
      const uint64_t end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
      if (start == base) size = end - start;
    }
  }
  REQUIRE(size > 0);
  const auto* bytes = reinterpret_cast<const uint8_t*>(base);
  auto cfi = CfiModule::open_image(std::span<const uint8_t>(bytes, size));
  REQUIRE(cfi.has_value());
  CHECK((*cfi)->has_cfi());
}

TEST_CASE("every PC inside a rule's range gets the same rule, also after restore_state") {
  // libdw reports a wrong row start after DW_CFA_restore_state (glibc's functions with several
  // epilogues use it); a cache trusting that start would apply the wrong row.
  auto space = MapsAddressSpace::parse(self_maps(), nullptr);
  REQUIRE(space.has_value());
  const auto* libc = space->find(reinterpret_cast<uint64_t>(&::qsort));
  REQUIRE(libc != nullptr);
  auto cfi = CfiModule::open(libc->path);
  REQUIRE(cfi.has_value());
  auto symbols = elf::read_symbols(libc->path);
  REQUIRE(symbols.has_value());
  const auto same_rule = [](const FrameRule& a, const FrameRule& b) {
    if (a.cfa_kind != b.cfa_kind || a.cfa_reg != b.cfa_reg || a.cfa_offset != b.cfa_offset) {
      return false;
    }
    for (size_t i = 0; i < a.regs.size(); ++i) {
      if (a.regs[i].kind != b.regs[i].kind || a.regs[i].offset != b.regs[i].offset) return false;
    }
    return true;
  };
  size_t pcs = 0;
  for (size_t s = 0; s < symbols->size() && s < 400; ++s) {
    const auto& fn = (*symbols)[s];
    for (uint64_t pc = fn.address; pc < fn.address + fn.size; ++pc) {
      auto rule = (*cfi)->find_rule(sprof::Svma{pc});
      if (!rule) continue;
      REQUIRE(rule->pc_start <= pc);
      REQUIRE(pc < rule->pc_end);
      // The rule's first PC must have it too.
      auto at_start = (*cfi)->find_rule(sprof::Svma{rule->pc_start});
      REQUIRE(at_start.has_value());
      std::ostringstream where;
      where << fn.name << " pc " << std::hex << pc << " range " << rule->pc_start << "-"
            << rule->pc_end;
      INFO(where.str());
      REQUIRE(same_rule(*rule, *at_start));
      ++pcs;
    }
  }
  CHECK(pcs > 10000);
}

TEST_CASE("files that are not ELF do not open") {
  auto missing = CfiModule::open("/nonexistent/sprof/file");
  REQUIRE_FALSE(missing.has_value());
  auto not_elf = CfiModule::open(std::string(kSourceDir) + "/CMakeLists.txt");
  REQUIRE_FALSE(not_elf.has_value());
  CHECK(not_elf.error().code == Errc::kMalformed);
  const uint8_t junk[64] = {1, 2, 3};
  CHECK_FALSE(CfiModule::open_image(junk).has_value());
}

}  // namespace sprof::test
