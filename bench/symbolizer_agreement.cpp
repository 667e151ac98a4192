#include "symbolizer_agreement.hpp"

#include <simdjson.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sprof/elf/elf_symbols.hpp"
#include "sprof/symbolicator/demangle.hpp"
#include "sprof/symbolicator/function_name.hpp"

namespace sprof::bench {
namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string dirs = path;
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string describe(const Chain& chain) {
  if (chain.empty()) return "(no name)";
  std::string out;
  for (const std::string& name : chain) out += (out.empty() ? "" : " < ") + name;
  return out;
}

}  // namespace

std::string find_llvm_symbolizer() {
  for (const char* tool : {"llvm-symbolizer", "llvm-symbolizer-14"}) {
    if (on_path(tool)) return tool;
  }
  return {};
}

std::string comparable_name(const std::string& name) {
  std::string unversioned = name.substr(0, name.find('@'));
  return std::string(symbolicator::without_clone_suffix(symbolicator::demangle(unversioned)));
}

std::optional<std::vector<Chain>> run_llvm_symbolizer(const std::string& tool,
                                                      const std::string& file,
                                                      const std::vector<uint64_t>& svmas,
                                                      std::vector<Positions>* positions) {
  char input[] = "/tmp/sprof_llvm_addresses_XXXXXX";
  const int fd = ::mkstemp(input);
  if (fd < 0) return std::nullopt;
  ::close(fd);
  {
    std::ofstream out(input);
    for (const uint64_t a : svmas) out << hex(a) << '\n';
  }
  // Raw names: both sides are demangled by the same demangler, so only symbolication differs.
  const std::string command = tool + " --no-demangle --output-style=JSON --obj='" + file + "' < '" +
                              input + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  if (pipe != nullptr) {
    char buffer[65536];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
    ::pclose(pipe);
  }
  ::unlink(input);

  std::vector<Chain> chains;
  simdjson::dom::parser parser;
  size_t start = 0;
  while (start < output.size()) {
    const size_t end = std::min(output.find('\n', start), output.size());
    simdjson::dom::element line;
    simdjson::dom::array frames;
    if (end > start) {
      if (parser.parse(output.data() + start, end - start).get(line) ||
          line["Symbol"].get(frames)) {
        return std::nullopt;
      }
      Chain chain;
      Positions where;
      for (auto frame : frames) {
        std::string_view name;
        if (frame["FunctionName"].get(name) || name.empty()) continue;
        chain.push_back(comparable_name(std::string(name)));
        std::string_view source;
        uint64_t source_line = 0;
        if (frame["FileName"].get(source) || frame["Line"].get(source_line)) source_line = 0;
        where.push_back(position(source, source_line));
      }
      chains.push_back(std::move(chain));
      if (positions != nullptr) positions->push_back(std::move(where));
    }
    start = end + 1;
  }
  if (chains.size() != svmas.size()) return std::nullopt;
  return chains;
}

Chain chain_of(const std::optional<symbolicator::SymbolInfo>& info) {
  Chain chain;
  if (!info) return chain;
  for (const auto& inlined : info->inlines) chain.push_back(comparable_name(inlined.function));
  if (!info->function.empty()) chain.push_back(comparable_name(info->function));
  return chain;
}

std::string position(std::string_view file, uint64_t line) {
  if (line == 0 || file.empty()) return {};
  // sprof resolves "dir/../x" lexically, llvm-symbolizer keeps it: the same file either way.
  return std::filesystem::path(file).lexically_normal().string() + ":" + std::to_string(line);
}

Positions positions_of(const std::optional<symbolicator::SymbolInfo>& info) {
  Positions out;
  if (!info) return out;
  for (const auto& inlined : info->inlines) out.push_back(position(inlined.file, inlined.line));
  if (!info->function.empty()) out.push_back(position(info->file, info->line));
  return out;
}

AliasIndex::AliasIndex(const std::vector<std::string>& files) {
  for (const std::string& file : files) {
    auto symbols = elf::read_symbols(file);
    if (!symbols) continue;
    for (const elf::ElfSymbol& s : *symbols) addresses_[comparable_name(s.name)].insert(s.address);
  }
}

bool AliasIndex::aliases(const std::string& a, const std::string& b) const {
  auto x = addresses_.find(a);
  auto y = addresses_.find(b);
  if (x == addresses_.end() || y == addresses_.end()) return false;
  for (const uint64_t address : x->second) {
    if (y->second.contains(address)) return true;
  }
  return false;
}

void Agreement::add(const Agreement& other) {
  total += other.total;
  same_depth += other.same_depth;
  same_chain += other.same_chain;
  same_chain_exact += other.same_chain_exact;
}

Agreement compare(const std::vector<Chain>& ours, const std::vector<Chain>& theirs,
                  const AliasIndex& aliases, const std::vector<uint64_t>& svmas,
                  size_t max_examples) {
  Agreement a;
  a.total = ours.size();
  for (size_t i = 0; i < ours.size() && i < theirs.size(); ++i) {
    const Chain& x = ours[i];
    const Chain& y = theirs[i];
    const bool same_depth = x.size() == y.size();
    a.same_depth += same_depth;
    const bool exact = x == y;
    a.same_chain_exact += exact;
    bool same = exact;
    if (!same && same_depth && !x.empty()) {
      same = std::equal(x.begin(), x.end() - 1, y.begin()) && aliases.aliases(x.back(), y.back());
    }
    a.same_chain += same;
    if (!same && a.examples.size() < max_examples) {
      a.examples.push_back(hex(i < svmas.size() ? svmas[i] : 0) + ": sprof " + describe(x) +
                           " | llvm-symbolizer " + describe(y));
    }
  }
  return a;
}

PositionAgreement compare_positions(const std::vector<Positions>& ours,
                                    const std::vector<Positions>& theirs,
                                    const std::vector<uint64_t>& svmas, size_t max_examples) {
  PositionAgreement a;
  a.total = ours.size();
  for (size_t i = 0; i < ours.size() && i < theirs.size(); ++i) {
    if (ours[i] == theirs[i]) {
      ++a.same;
    } else if (a.examples.size() < max_examples) {
      a.examples.push_back(hex(i < svmas.size() ? svmas[i] : 0) + ": sprof " + describe(ours[i]) +
                           " | llvm-symbolizer " + describe(theirs[i]));
    }
  }
  return a;
}

}  // namespace sprof::bench
