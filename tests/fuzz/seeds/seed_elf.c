/* A small shared library whose ELF file seeds the ELF-symbols fuzz target and is the binary the
 * /asm/v1 fuzz target disassembles. It has what the symbolicator reads: .symtab and .dynsym,
 * DWARF functions, an inline chain, a static function, line tables over two files (this one and
 * the included header) and a build-id. Built with -nostdlib, so it stays a few KiB. */
#include "seed_elf_inline.h"

static int helper(int x) { return x * 3 + 1; }

int seed_exported(int x) {
  int total = 0;
  for (int i = 0; i < x; ++i) total += seed_square(i) + helper(i);
  return total;
}

__attribute__((noinline)) int seed_recursive(int n) {
  return n <= 1 ? 1 : n * seed_recursive(n - 1);
}

int seed_data = 42;
