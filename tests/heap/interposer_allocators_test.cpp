// The interposer under other allocators (docs/heap.md, "Other allocators"), through
// sprof-heap-run: mimalloc's own API sampled, each sampled block's mi_free followed through the
// address set; jemalloc behind the interposer (forwarded to, every function from jemalloc
// itself); and the attach record's flags for the calls it cannot see.
#include <doctest/doctest.h>

#include <map>

#include "heap_recording.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;

namespace {

bool mimalloc_function(AllocFunction f) {
  return f >= AllocFunction::kMiMalloc && f < AllocFunction::kCount;
}

}  // namespace

TEST_CASE("sampled mimalloc API: its large blocks are sampled and every one's mi_free recorded") {
  // 4 KiB between samples: mi_site's 50,003-byte blocks are sampled with p = 1 - exp(-12).
  auto r = record_heap("hp_alloc_mimalloc", {"--interval", "4096"});
  INFO(r.process.out << r.process.err << r.dump_error);
  REQUIRE(r.process.exit_code == 0);
  REQUIRE(r.dump_ok);
  std::map<uint64_t, AllocFunction> live;  // mimalloc blocks by address, in ring order
  size_t mi_blocks = 0, mi_frees = 0;
  for (const HeapEvent& e : r.events) {
    if (const auto* a = std::get_if<HeapAlloc>(&e); a && mimalloc_function(a->function)) {
      ++mi_blocks;
      CHECK(live.emplace(a->address, a->function).second);
    } else if (const auto* f = std::get_if<HeapFree>(&e)) {
      mi_frees += live.erase(f->address);
    }
  }
  CHECK(mi_blocks >= 4);  // the four 50,003-byte mi_malloc blocks
  CHECK(mi_frees == mi_blocks);
  CHECK(live.empty());
  const auto attaches = r.attaches();
  REQUIRE_FALSE(attaches.empty());
  CHECK(attaches.back().foreign_operator_new);
  CHECK_FALSE(attaches.back().malloc_bypassed);
}

TEST_CASE("attach flags: an executable's own malloc, and glibc's program without either flag") {
  auto own = record_heap("hp_own_malloc", {"--all"});
  INFO(own.process.out << own.process.err << own.dump_error);
  REQUIRE(own.dump_ok);
  REQUIRE(own.attaches().size() == 1);
  CHECK(own.attaches()[0].malloc_bypassed);
  CHECK(own.allocs().empty());

  auto glibc = record_heap("hp_alloc_glibc", {"--all"});
  REQUIRE(glibc.dump_ok);
  REQUIRE(glibc.attaches().size() == 1);
  CHECK_FALSE(glibc.attaches()[0].malloc_bypassed);
  CHECK_FALSE(glibc.attaches()[0].foreign_operator_new);
}

TEST_CASE("a plugin opened RTLD_LOCAL that links mimalloc: its mi_malloc works and is recorded") {
  // Without a fallback the interposer's mi_malloc finds no next definition (the plugin's
  // libmimalloc is outside the global scope) and fails with ENOMEM.
  auto r = record_heap("hp_dlopen_mimalloc", {"--all"}, {target_path("hp_mimalloc_plugin.so")});
  INFO(r.process.out << r.process.err << r.dump_error);
  REQUIRE(r.process.exit_code == 0);
  CHECK(r.process.out.find("plugin ok=1") != std::string::npos);
  REQUIRE(r.dump_ok);
  uint64_t block = 0;
  for (const HeapAlloc& a : r.allocs()) {
    if (a.function == AllocFunction::kMiMalloc && a.size == 12345) block = a.address;
  }
  REQUIRE(block != 0);
  size_t frees = 0;
  for (const HeapFree& f : r.frees()) frees += f.address == block;
  CHECK(frees == 1);
}

// jemalloc linked into the program (hp_realloc_aligned_jemalloc) comes after the preloaded
// interposer: it is the next malloc and has no __libc_* names, so every call goes to jemalloc's
// functions. (Linked rather than preloaded: a preload would also reach sprof-heap-run itself, which
// an ASan build refuses.) It has no pvalloc: the interposer makes one on jemalloc's
// memalign (the next pvalloc is glibc's, whose block jemalloc's free would be given: before that
// check the program died with SIGSEGV at that free).
TEST_CASE("jemalloc behind the interposer: every API, pvalloc included, on jemalloc's blocks") {
  auto r = record_heap("hp_realloc_aligned_jemalloc", {"--all"});
  INFO(r.process.out << r.process.err << r.dump_error);
  REQUIRE(r.process.exit_code == 0);
  CHECK(r.process.out.find("ok") != std::string::npos);
  REQUIRE(r.dump_ok);
  std::map<AllocFunction, uint64_t> block_of;  // the 5,000-byte valloc and pvalloc blocks
  for (const HeapAlloc& a : r.allocs()) {
    if ((a.function == AllocFunction::kValloc || a.function == AllocFunction::kPvalloc) &&
        a.size == 5000)
      block_of[a.function] = a.address;
  }
  REQUIRE(block_of.size() == 2);
  for (const auto& [function, address] : block_of) {
    CAPTURE(int(function));
    CHECK(address % 4096 == 0);
    size_t frees = 0;
    for (const HeapFree& f : r.frees()) frees += f.address == address;
    CHECK(frees == 1);
  }
}
