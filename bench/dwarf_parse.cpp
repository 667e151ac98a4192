// Reading a module's DWARF: sprof's own .debug_info and .debug_line readers against libdw, both
// behind elf::DwarfReader, over everything the symbol cache's index needs (every unit's functions
// and line table, every function's inline tree).
// Rounds alternate between the two parsers; prints min and median wall time of each, and what was
// read. One thread, so that the ratio is the parsers' and not the scheduler's.
//
//   build/bench/sprof_bench_dwarf_parse [--rounds N] FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sprof/elf/dwarf_reader.hpp"

namespace {

struct Read {
  double seconds = 0;
  size_t functions = 0;
  size_t scopes = 0;
  size_t line_rows = 0;
  bool own = false;
};

Read read_everything(const std::string& path, sprof::elf::DwarfParser parser) {
  const auto start = std::chrono::steady_clock::now();
  auto reader = sprof::elf::DwarfReader::open(path, 1, parser);
  if (!reader) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), reader.error().message.c_str());
    std::exit(1);
  }
  Read read;
  read.own = (*reader)->parses_dies_itself();
  for (const sprof::elf::DwarfUnit& unit : (*reader)->units()) {
    const sprof::elf::DwarfFunctions functions = (*reader)->functions(unit.offset);
    read.functions += functions.functions.size();
    read.line_rows += (*reader)->lines(unit.offset).rows.size();
    for (const sprof::elf::DwarfFunction& function : functions.functions) {
      read.scopes += (*reader)->inline_tree(unit.offset, function.offset).scopes.size();
    }
  }
  read.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return read;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--rounds N] FILE...\n", argv[0]);
    return 2;
  }
  std::printf(
      "| module | functions | inline scopes | line rows | own parser | libdw | own / libdw |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::string& file : files) {
    std::vector<double> own;
    std::vector<double> libdw;
    Read last;
    for (int round = 0; round < rounds; ++round) {
      // Alternate which goes first: the page cache and the CPU's clocks favour neither.
      const bool own_first = round % 2 == 0;
      for (int turn = 0; turn < 2; ++turn) {
        const bool own_turn = (turn == 0) == own_first;
        const Read read = read_everything(file, own_turn ? sprof::elf::DwarfParser::kOwnThenLibdw
                                                         : sprof::elf::DwarfParser::kLibdw);
        (own_turn ? own : libdw).push_back(read.seconds);
        if (own_turn) last = read;
      }
    }
    std::printf(
        "| %s%s | %zu | %zu | %zu | %.0f / %.0f ms | %.0f / %.0f ms | %.2fx / %.2fx |\n",
        file.c_str(), last.own ? "" : " (libdw: not the own parser's)", last.functions, last.scopes,
        last.line_rows, *std::min_element(own.begin(), own.end()) * 1e3, median(own) * 1e3,
        *std::min_element(libdw.begin(), libdw.end()) * 1e3, median(libdw) * 1e3,
        *std::min_element(own.begin(), own.end()) / *std::min_element(libdw.begin(), libdw.end()),
        median(own) / median(libdw));
  }
  return 0;
}
