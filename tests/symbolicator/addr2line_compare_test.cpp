// Golden comparison with elfutils' own symbolizer: for a sample of addresses, the function name,
// the inline chain (names, file basenames, lines) must equal what `eu-addr2line -f -i -C` prints,
// except that the outer function may be named by another alias of its address.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "sprof/symbolicator/demangle.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

using test::basename_of;

struct Frame {
  std::string function;
  std::string file;  // basename
  uint32_t line = 0;
  bool operator==(const Frame&) const = default;
};
using Chain = std::vector<Frame>;  // innermost first; the last frame is the outer function

std::ostream& operator<<(std::ostream& os, const Chain& chain) {
  for (const Frame& f : chain) os << "[" << f.function << " @ " << f.file << ":" << f.line << "] ";
  return os;
}

// With -a, eu-addr2line prints per address a "0x..." line, then pairs of a name line and a
// "file:line:col" line: one pair for the innermost scope ("f inlined at file:line:col in outer"
// when it is inlined), then one per enclosing scope up to the function.
Frame parse_frame(const std::string& name, const std::string& location) {
  Frame frame;
  frame.function = name;
  // "path:line:col", "path:line" or "??:0"
  std::string path = location;
  std::vector<std::string> parts;
  for (int k = 0; k < 2; ++k) {
    const size_t colon = path.rfind(':');
    if (colon == std::string::npos) break;
    parts.push_back(path.substr(colon + 1));
    path = path.substr(0, colon);
  }
  const std::string line = parts.size() == 2 ? parts[1] : parts.empty() ? "0" : parts[0];
  frame.line = static_cast<uint32_t>(std::stoul(line));
  frame.file = path == "??" ? "" : basename_of(path);
  return frame;
}

std::vector<Chain> addr2line(const std::string& file, const std::vector<uint64_t>& svmas) {
  std::ostringstream command;
  command << "eu-addr2line -a -f -i -C -e '" << file << "'";
  for (uint64_t a : svmas) command << " 0x" << std::hex << a;
  std::istringstream out(test::run_command(command.str() + " 2>/dev/null"));
  std::vector<Chain> chains;
  std::string line;
  std::vector<std::string> pending;
  auto finish = [&] {
    Chain chain;
    for (size_t i = 0; i + 1 < pending.size(); i += 2) {
      const size_t inlined = pending[i].find(" inlined at ");
      std::string name = pending[i].substr(0, inlined);
      // A name from .symtab may carry its symbol version ("xdr_uint32_t@GLIBC_2.2.5"); sprof
      // reports the undecorated name.
      if (const size_t at = name.find('@'); at != std::string::npos && at > 0) name.resize(at);
      chain.push_back(parse_frame(name, pending[i + 1]));
    }
    chains.push_back(chain);
    pending.clear();
  };
  bool started = false;
  while (std::getline(out, line)) {
    if (line.starts_with("0x")) {
      if (started) finish();
      started = true;
      continue;
    }
    pending.push_back(line);
  }
  if (started) finish();
  return chains;
}

Chain ours(const SymbolMap& map, uint64_t relative) {
  Chain chain;
  auto info = map.lookup(RelativeAddress{relative});
  if (!info) return {Frame{"??", "", 0}};
  for (const InlineFrame& f : info->inlines)
    chain.push_back({f.function, basename_of(f.file), f.line});
  chain.push_back({info->function, basename_of(info->file), info->line});
  return chain;
}

// True when `expected` is `actual` with some intermediate inline frames left out. libdw's
// dwarf_getscopes_die (which eu-addr2line uses for -i) sometimes skips an inlined subroutine
// whose ranges do contain the address (seen in ld.so's _dl_sort_maps_dfs, whose lexical block
// shares its range list); sprof reports the full DW_TAG_inlined_subroutine nesting.
bool omits_inner_scopes(const Chain& expected, const Chain& actual) {
  if (expected.size() >= actual.size() || expected.empty()) return false;
  if (expected.front() != actual.front() || expected.back() != actual.back()) return false;
  size_t j = 0;
  for (const Frame& f : actual) {
    if (j < expected.size() && f.function == expected[j].function) ++j;
  }
  return j == expected.size();
}

// Names of one address in a module's symbol tables (binary and debug file). eu-addr2line names
// the outer function by its DWARF linkage name (glibc's "__GI_feclearexcept"), sprof by the
// preferred alias ("feclearexcept"): the same function either way.
class Aliases {
 public:
  Aliases(const std::string& binary, const std::string& debug_file) {
    for (const std::string& path : {binary, debug_file}) {
      auto symbols = elf::read_symbols(path);
      REQUIRE(symbols.has_value());
      for (const elf::ElfSymbol& s : *symbols) {
        std::string name = s.name.substr(0, s.name.find('@'));
        addresses_[demangle(name)].insert(s.address);
      }
    }
  }
  bool same_function(const std::string& a, const std::string& b) const {
    if (a == b) return true;
    auto x = addresses_.find(a);
    auto y = addresses_.find(b);
    if (x == addresses_.end() || y == addresses_.end()) return false;
    for (uint64_t address : x->second) {
      if (y->second.contains(address)) return true;
    }
    return false;
  }

 private:
  std::map<std::string, std::set<uint64_t>> addresses_;
};

// Equal, except that the outer functions may be two aliases of one address.
bool same_chain(const Chain& expected, const Chain& actual, const Aliases& aliases) {
  if (expected.size() != actual.size() || expected.empty()) return false;
  if (!std::equal(expected.begin(), expected.end() - 1, actual.begin())) return false;
  const Frame& e = expected.back();
  const Frame& a = actual.back();
  return e.file == a.file && e.line == a.line && aliases.same_function(e.function, a.function);
}

struct Differences {
  size_t mismatched = 0;      // any other difference
  size_t scopes_omitted = 0;  // eu-addr2line left out intermediate inline frames
};

// Compares every address, printing each difference.
Differences compare(const std::string& binary, const SymbolMap& map, uint64_t v0,
                    const std::vector<uint64_t>& svmas) {
  const std::vector<Chain> expected = addr2line(binary, svmas);
  REQUIRE(expected.size() == svmas.size());
  const Aliases aliases(binary, map.debug_file());
  Differences d;
  for (size_t i = 0; i < svmas.size(); ++i) {
    const Chain actual = ours(map, svmas[i] - v0);
    if (same_chain(expected[i], actual, aliases)) continue;
    (omits_inner_scopes(expected[i], actual) ? d.scopes_omitted : d.mismatched)++;
    MESSAGE("address " << svmas[i] << "\n  eu-addr2line: " << expected[i]
                       << "\n  sprof:        " << actual);
  }
  return d;
}

std::shared_ptr<const SymbolMap> module_for(Symbolicator& symbolicator, const std::string& path) {
  const auto identity = test::identity_of(path);
  const std::string name = basename_of(path);
  symbolicator.add_hint(ModuleHint{name, identity.breakpad_id(), path});
  auto map = symbolicator.module(name, identity.breakpad_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  return *map;
}

TEST_CASE("every address of the target's functions symbolicates as eu-addr2line does") {
  for (const std::string target : {"sprof_symbols_target", "sprof_symbols_nopie"}) {
    CAPTURE(target);
    const std::string path = test::target_path(target);
    Symbolicator symbolicator(SymbolicatorOptions{});
    const auto map = module_for(symbolicator, path);
    const auto identity = test::identity_of(path);
    std::vector<uint64_t> svmas;
    for (const char* fn : {"_ZN12sprof_target18inline_chain_outerEi", "c_linkage_function",
                           "_ZN12sprof_target19named_leaf_functionEi", "main"}) {
      const elf::ElfSymbol symbol = test::symbol_in(path, fn);
      for (uint64_t a = symbol.address; a < symbol.address + symbol.size; ++a) svmas.push_back(a);
    }
    const Differences d = compare(path, *map, identity.base_vaddr, svmas);
    CHECK(d.mismatched == 0);
    CHECK(d.scopes_omitted == 0);
  }
}

TEST_CASE("a sample of libc, libm and ld.so addresses symbolicates as eu-addr2line does") {
  for (const std::string lib : {"/lib/x86_64-linux-gnu/libc.so.6",
                                "/lib/x86_64-linux-gnu/libm.so.6", "/lib64/ld-linux-x86-64.so.2"}) {
    CAPTURE(lib);
    Symbolicator symbolicator(SymbolicatorOptions{});
    const auto map = module_for(symbolicator, lib);
    if (map->debug_file() == lib) {
      MESSAGE("skipped " << lib << ": no separate debug info (install libc6-dbg)");
      continue;
    }
    auto symbols = elf::read_symbols(map->debug_file());
    REQUIRE(symbols.has_value());
    std::vector<uint64_t> svmas;
    for (size_t i = 0; i < symbols->size(); i += 3) {
      const elf::ElfSymbol& s = (*symbols)[i];
      if (s.size < 4) continue;
      for (uint64_t k = 0; k < 4; ++k) svmas.push_back(s.address + s.size * k / 4);
    }
    MESSAGE(svmas.size() << " addresses of " << lib << " compared");
    REQUIRE(svmas.size() > 100);
    const Differences d = compare(lib, *map, test::identity_of(lib).base_vaddr, svmas);
    CHECK(d.mismatched == 0);
    CHECK(d.scopes_omitted * 200 <= svmas.size());  // rare: at most 0.5 %
  }
}

}  // namespace
}  // namespace sprof::symbolicator
