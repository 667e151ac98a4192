// bench/symbolizer_agreement.hpp
//
// Comparing sprof's symbolication with llvm-symbolizer's, address by address: used by the
// symbolication benchmark (10,000 addresses, bench/symbolicate.cpp) and by the agreement test
// (tests/symbolicator/llvm_agreement_test.cpp), so both count agreement the same way.
//
// Two answers agree when they name the same functions at every inline level (innermost first)
// and so have the same inline depth. Names are compared after the same demangler (sprof's) has
// spelled both, without GCC's clone suffixes (".cold", ".isra.0") and symbol versions; the
// outermost function may be another alias of the same address (glibc's "__sched_getparam" vs
// "sched_getparam"), which both tools pick among differently. Exact agreement (the same alias)
// is counted too. Source positions ("file:line" at every inline level) are compared on their own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::bench {

// One address's function names, innermost first (the outer function last); empty: no name.
using Chain = std::vector<std::string>;

// One address's source positions, "file:line" per frame in the order of its Chain ("" for a frame
// without a line: llvm-symbolizer's line 0).
using Positions = std::vector<std::string>;

// "llvm-symbolizer" or Debian's "llvm-symbolizer-14" when on PATH; "" when neither is.
std::string find_llvm_symbolizer();

// Runs `tool --obj=file` over SVMAs (raw names, demangled here). nullopt when the output does
// not have one answer per address. `positions`, if given, receives each answer's positions.
std::optional<std::vector<Chain>> run_llvm_symbolizer(const std::string& tool,
                                                      const std::string& file,
                                                      const std::vector<uint64_t>& svmas,
                                                      std::vector<Positions>* positions = nullptr);

// sprof's answer as a chain, and its positions.
Chain chain_of(const std::optional<symbolicator::SymbolInfo>& info);
Positions positions_of(const std::optional<symbolicator::SymbolInfo>& info);
// "file:line", or "" without a line.
std::string position(std::string_view file, uint64_t line);

// Demangled (if mangled), without clone suffix and symbol version.
std::string comparable_name(const std::string& name);

// Names that share an address in the symbol tables of the given files.
class AliasIndex {
 public:
  explicit AliasIndex(const std::vector<std::string>& files);
  bool aliases(const std::string& a, const std::string& b) const;

 private:
  std::map<std::string, std::set<uint64_t>> addresses_;  // comparable name -> addresses
};

struct Agreement {
  size_t total = 0;
  size_t same_depth = 0;
  size_t same_chain = 0;              // same functions at every level, the outer one up to aliases
  size_t same_chain_exact = 0;        // the same, with the very same alias
  std::vector<std::string> examples;  // the first few disagreements, for the reader

  void add(const Agreement& other);
  double percent() const { return total ? 100.0 * double(same_chain) / double(total) : 0; }
};

Agreement compare(const std::vector<Chain>& ours, const std::vector<Chain>& theirs,
                  const AliasIndex& aliases, const std::vector<uint64_t>& svmas,
                  size_t max_examples = 5);

// Addresses whose positions are the same at every level; the first disagreements for the reader.
struct PositionAgreement {
  size_t total = 0;
  size_t same = 0;
  std::vector<std::string> examples;
};
PositionAgreement compare_positions(const std::vector<Positions>& ours,
                                    const std::vector<Positions>& theirs,
                                    const std::vector<uint64_t>& svmas, size_t max_examples = 5);

}  // namespace sprof::bench
