// Symbolication benchmark: sprof's /symbolicate/v5 against llvm-symbolizer, eu-addr2line and
// binutils addr2line on the same addresses, for time and for agreement.
//
// The addresses (default 10,000, a quarter each in libc, libm, libstdc++ and a large C++ binary
// with debug info, by default the sprof binary) are chosen with a fixed seed inside function
// symbols of the module's symbol tables (the binary's and its separate debug file's), so runs
// are comparable. They are symbolicated by:
//   - sprof cold: a fresh `Symbolicator` answering one v5 request (finding and indexing the
//     debug info is part of the time);
//   - sprof warm: the same request again, symbol maps cached (JSON parse + lookups + JSON write);
//   - `llvm-symbolizer --output-style=JSON`, one process per module, given the module's debug
//     file when it is separate (so both tools read the same symbol tables and DWARF);
//   - `eu-addr2line -a -f -i -C` and `addr2line -a -f -i -C`, one process per module on the
//     binary (eu-addr2line is timed once: it takes tens of seconds).
// Agreement with llvm-symbolizer counts the same functions at every inline level (see
// symbolizer_agreement.hpp); with the addr2lines, the innermost function name.
//
// Each round runs sprof cold (all modules in one request, then each module alone with a fresh
// symbolicator), sprof warm and llvm-symbolizer, so that load from other work on the machine
// falls on both sides alike.
//
// Output: a Markdown section on stdout (bench/run-symbolicate.sh puts it into
// docs/benchmarks.md); disagreements are listed in it and on stderr.
// `--write-request DIR` instead writes the v5 request (DIR/request.json) and a minimal Gecko
// profile naming the modules (DIR/profile.json), for measuring the server with them.
// `--agreement PATH` (repeatable) instead measures agreement only, with --count addresses in
// each given binary (e.g. the Rust and clang/lld programs of tests/targets/toolchains), and lists
// every disagreement.
#include <link.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/api/symbolication_api.hpp"
#include "sprof/core/json_writer.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbolizer_agreement.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using sprof::bench::Chain;

struct Module {
  std::string debug_name;  // file name, as sprof's profiles name libs
  std::string path;
  std::string debug_file;  // the file with the DWARF (the binary itself when not separate)
  std::string breakpad_id;
  uint64_t base_vaddr = 0;
  std::vector<uint64_t> addresses;  // relative (SVMA - v0)

  std::vector<uint64_t> svmas() const {
    std::vector<uint64_t> out;
    for (const uint64_t a : addresses) out.push_back(a + base_vaddr);
    return out;
  }
};

struct Options {
  size_t count = 10000;
  int runs = 5;
  std::string binary;           // the large C++ binary; default: this benchmark itself
  bool sprof_only = false;      // skip the tools (for profiling sprof)
  bool skip_addr2line = false;  // only llvm-symbolizer (eu-addr2line alone takes a minute)
  std::string write_request;    // a directory: write the request and a profile, measure nothing
  std::vector<std::string> agreement;  // binaries whose agreement alone is measured
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double minimum(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string percent(size_t part, size_t total) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %%", total ? 100.0 * double(part) / double(total) : 0.0);
  return text;
}

// Paths of the libc, libm and libstdc++ this process runs with.
std::vector<std::string> loaded_libraries() {
  std::map<std::string, std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& out = *static_cast<std::map<std::string, std::string>*>(data);
        const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string name = basename_of(path);
        for (const char* prefix : {"libc.so", "libm.so", "libstdc++.so"}) {
          if (!name.starts_with(prefix)) continue;
          char resolved[PATH_MAX];
          out[prefix] = realpath(path.c_str(), resolved) != nullptr ? resolved : path;
        }
        return 0;
      },
      &paths);
  std::vector<std::string> out;
  out.reserve(paths.size());
  for (const auto& [prefix, path] : paths) out.push_back(path);
  return out;
}

// `count` distinct addresses inside the function symbols of the module's symbol tables.
bool load_module(const std::string& path, size_t count, std::mt19937_64& rng, Module& module) {
  auto identity = sprof::elf::read_module_identity(path);
  if (!identity) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  module.path = path;
  module.debug_name = basename_of(path);
  module.breakpad_id = identity->breakpad_id();
  module.base_vaddr = identity->base_vaddr;
  {
    sprof::symbolicator::SymbolicatorOptions options;
    options.hints.push_back({module.debug_name, module.breakpad_id, path});
    sprof::symbolicator::Symbolicator symbolicator(std::move(options));
    auto map = symbolicator.module(module.debug_name, module.breakpad_id);
    if (!map) {
      std::fprintf(stderr, "no symbols for %s: %s\n", path.c_str(), map.error().message.c_str());
      return false;
    }
    module.debug_file = (*map)->debug_file();
  }
  std::map<uint64_t, uint64_t> functions;  // start -> size, deduplicated, ordered
  for (const std::string& file : std::set<std::string>{path, module.debug_file}) {
    auto symbols = sprof::elf::read_symbols(file);
    if (!symbols) continue;
    for (const auto& symbol : *symbols) {
      if (symbol.size > 0 && symbol.address >= identity->base_vaddr) {
        functions.emplace(symbol.address, symbol.size);
      }
    }
  }
  if (functions.empty()) return false;
  const std::vector<std::pair<uint64_t, uint64_t>> list(functions.begin(), functions.end());
  std::set<uint64_t> chosen;
  // A small program may have no more in-function addresses than asked for: then all are taken.
  uint64_t bytes = 0;
  for (const auto& [start, size] : list) bytes += size;
  bool all = false;
  if (bytes <= 4 * count) {
    for (const auto& [start, size] : list) {
      for (uint64_t a = start; a < start + size; ++a) chosen.insert(a - identity->base_vaddr);
    }
    all = chosen.size() <= count;
    if (!all) chosen.clear();
  }
  std::uniform_int_distribution<size_t> pick(0, list.size() - 1);
  while (!all && chosen.size() < count) {
    const auto& [start, size] = list[pick(rng)];
    chosen.insert(start + rng() % size - identity->base_vaddr);
  }
  module.addresses.assign(chosen.begin(), chosen.end());
  std::shuffle(module.addresses.begin(), module.addresses.end(), rng);
  return true;
}

std::string v5_request(const std::vector<Module>& modules) {
  std::string body = R"({"jobs":[)";
  for (size_t m = 0; m < modules.size(); ++m) {
    const auto& module = modules[m];
    body += (m ? "," : "") + std::string(R"({"memoryMap":[[")") + module.debug_name + R"(",")" +
            module.breakpad_id + R"("]],"stacks":[[)";
    for (size_t i = 0; i < module.addresses.size(); ++i) {
      body += (i ? ",[0," : "[0,") + std::to_string(module.addresses[i]) + "]";
    }
    body += "]]}";
  }
  return body + "]}";
}

// Per job, per address: the function names innermost first, as the v5 reply gives them, and
// (if asked for) their source positions.
std::vector<std::vector<Chain>> parse_v5_reply(
    const std::string& json,
    std::vector<std::vector<sprof::bench::Positions>>* positions = nullptr) {
  std::vector<std::vector<Chain>> chains;
  simdjson::dom::parser parser;
  simdjson::dom::array results;
  if (parser.parse(json)["results"].get(results)) return chains;
  for (auto result : results) {
    auto& job = chains.emplace_back();
    std::vector<sprof::bench::Positions> job_positions;
    simdjson::dom::array frames;
    if (result["stacks"].at(0).get(frames)) continue;
    for (auto frame : frames) {
      Chain chain;
      sprof::bench::Positions where;
      simdjson::dom::array inlines;
      auto add = [&](simdjson::dom::element level) {
        std::string_view name;
        if (level["function"].get(name)) return;
        chain.push_back(sprof::bench::comparable_name(std::string(name)));
        std::string_view file;
        uint64_t line = 0;
        if (level["file"].get(file) || level["line"].get(line)) line = 0;
        where.push_back(sprof::bench::position(file, line));
      };
      if (!frame["inlines"].get(inlines)) {
        for (auto inlined : inlines) add(inlined);
      }
      add(frame);
      job.push_back(std::move(chain));
      job_positions.push_back(std::move(where));
    }
    if (positions != nullptr) positions->push_back(std::move(job_positions));
  }
  return chains;
}

// "0x" followed by hex digits only: the address line `-a` prints before each entry.
bool is_address_line(std::string_view line) {
  if (!line.starts_with("0x") || line.size() < 3) return false;
  return line.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

// Runs an addr2line-style tool over the module's addresses; returns the wall time in ms and the
// innermost name per address (empty if the output cannot be split per address).
double run_addr2line(const std::string& tool, const Module& module, const std::string& address_file,
                     std::vector<std::string>& innermost) {
  const std::string command =
      tool + " -a -f -i -C -e '" + module.path + "' < '" + address_file + "' 2>/dev/null";
  const auto start = Clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<std::string> lines;
  if (pipe != nullptr) {
    char buffer[8192];
    std::string line;
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
      line += buffer;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
        lines.push_back(std::move(line));
        line.clear();
      }
    }
    pclose(pipe);
  }
  const double ms = elapsed_ms(start);
  innermost.clear();
  for (size_t i = 0; i < lines.size();) {
    if (!is_address_line(lines[i])) return ms;  // unexpected output
    ++i;
    std::string first;
    for (bool head = true; i < lines.size() && !is_address_line(lines[i]); i += 2, head = false) {
      if (!head) continue;
      first = lines[i].substr(0, lines[i].find(" inlined at "));
      if (first == "??") first.clear();
    }
    innermost.push_back(sprof::bench::comparable_name(first));
  }
  return ms;
}

// Drops a trailing parameter list and its qualifiers: "ns::f(int) const" -> "ns::f".
std::string without_parameters(std::string name) {
  const size_t close = name.rfind(')');
  if (close == std::string::npos) return name;
  if (name.find_first_not_of(" constvlaie&noexcpt", close + 1) != std::string::npos) return name;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

struct NameAgreement {
  size_t exact = 0;
  size_t normalized = 0;
  size_t aliased = 0;  // the same name, or an alias of the same address
  size_t total = 0;
  size_t theirs_named = 0;
};

NameAgreement compare_innermost(const std::vector<Chain>& ours,
                                const std::vector<std::string>& theirs,
                                const sprof::bench::AliasIndex& aliases) {
  NameAgreement a;
  a.total = ours.size();
  if (theirs.size() != ours.size()) return a;  // tool output could not be split per address
  for (size_t i = 0; i < ours.size(); ++i) {
    const std::string x = ours[i].empty() ? std::string() : ours[i].front();
    a.theirs_named += !theirs[i].empty();
    a.exact += x == theirs[i];
    a.normalized += without_parameters(x) == without_parameters(theirs[i]);
    a.aliased += x == theirs[i] || aliases.aliases(x, theirs[i]);
  }
  return a;
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--count" && i + 1 < argc) {
      options.count = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--runs" && i + 1 < argc) {
      options.runs = std::atoi(argv[++i]);
    } else if (arg == "--sprof-only") {
      options.sprof_only = true;
    } else if (arg == "--skip-addr2line") {
      options.skip_addr2line = true;
    } else if (arg == "--binary" && i + 1 < argc) {
      options.binary = argv[++i];
    } else if (arg == "--write-request" && i + 1 < argc) {
      options.write_request = argv[++i];
    } else if (arg == "--agreement" && i + 1 < argc) {
      options.agreement.push_back(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--count N] [--runs N] [--binary PATH] [--sprof-only] "
                   "[--skip-addr2line] [--write-request DIR] [--agreement PATH]...\n",
                   argv[0]);
      return false;
    }
  }
  if (options.binary.empty()) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return false;
    options.binary.assign(self, static_cast<size_t>(n));
  }
  return options.runs > 0 && options.count >= 4;
}

void print_times(const std::string& label, const std::vector<double>& ms) {
  std::printf("| %s | %.1f | %.1f | %zu |\n", label.c_str(), minimum(ms), median(ms), ms.size());
}

// A Gecko profile with nothing but the modules as libs: what `sprof load` needs to find them.
std::string profile_naming(const std::vector<Module>& modules) {
  sprof::JsonWriter out;
  out.begin_object();
  out.key("meta").begin_object().field("version", 24).field("product", "symbolication bench");
  out.field("interval", 1.0).field("startTime", 0.0).end_object();
  out.key("libs").begin_array();
  for (const auto& m : modules) {
    out.begin_object().field("name", m.debug_name).field("path", m.path);
    out.field("debugName", m.debug_name).field("debugPath", m.path);
    out.field("breakpadId", m.breakpad_id).field("arch", "x86_64").end_object();
  }
  out.end_array();
  out.key("threads").begin_array().end_array();
  out.key("processes").begin_array().end_array();
  out.end_object();
  return out.take();
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

sprof::symbolicator::SymbolicatorOptions options_for(const std::vector<Module>& modules,
                                                     const std::string& symbol_cache_dir) {
  sprof::symbolicator::SymbolicatorOptions options;
  for (const auto& m : modules) options.hints.push_back({m.debug_name, m.breakpad_id, m.path});
  options.symbol_cache_dir = symbol_cache_dir;
  return options;
}

// An empty directory of its own under /tmp; empty when none could be made.
std::string fresh_directory() {
  char name[] = "/tmp/sprof_bench_symbol_cache_XXXXXX";
  return mkdtemp(name) ? std::string(name) + "/cache" : std::string();
}

uint64_t directory_bytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) bytes += e.file_size(ec);
  return bytes;
}

// The directory fresh_directory made, and what is in it.
void remove_directory(const std::string& cache) {
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(cache).parent_path(), ec);
}

// A fresh symbolicator behind the API, as a server has it at its first request; with a symbol
// cache directory, it saves what it read there when destroyed (and reads what is there).
struct FreshApi {
  explicit FreshApi(const std::vector<Module>& modules, const std::string& symbol_cache_dir = "")
      : symbolicator(options_for(modules, symbol_cache_dir)), source(symbolicator), api(source) {}
  // The whole reply: its body is produced as it is read, so reading it is part of the work.
  std::string reply_to(const std::string& request) {
    sprof::HttpReply reply = api.handle("/symbolicate/v5", request);
    return sprof::take_whole_body(reply);
  }
  sprof::symbolicator::Symbolicator symbolicator;
  sprof::api::SymbolicatorModuleSource source;
  sprof::api::SymbolicationApi api;
};

// `--agreement`: each binary's addresses through a fresh symbolicator's /symbolicate/v5 (relative
// addresses, as profiles have them) and through llvm-symbolizer (SVMAs), every disagreement listed.
int measure_agreement(const Options& options) {
  const std::string llvm = sprof::bench::find_llvm_symbolizer();
  if (llvm.empty()) {
    std::fprintf(stderr, "llvm-symbolizer not found (apt install llvm-14)\n");
    return 1;
  }
  std::mt19937_64 rng(20240611);
  std::printf(
      "| binary | addresses | same chain | exact | same inline depth | same file:line |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: |\n");
  std::vector<std::string> disagreements, other_aliases, other_positions;
  for (const std::string& path : options.agreement) {
    Module module;
    if (!load_module(path, options.count, rng, module)) return 1;
    FreshApi api({module});
    std::vector<std::vector<sprof::bench::Positions>> our_positions;
    const auto ours = parse_v5_reply(api.reply_to(v5_request({module})), &our_positions);
    std::vector<sprof::bench::Positions> their_positions;
    auto theirs = sprof::bench::run_llvm_symbolizer(llvm, module.debug_file, module.svmas(),
                                                    &their_positions);
    if (ours.size() != 1 || !theirs) {
      std::fprintf(stderr, "no usable answer for %s\n", path.c_str());
      return 1;
    }
    const std::vector<uint64_t> svmas = module.svmas();
    const sprof::bench::AliasIndex aliases({module.path, module.debug_file});
    const auto a = sprof::bench::compare(ours[0], *theirs, aliases, svmas, svmas.size());
    const auto p = sprof::bench::compare_positions(our_positions[0], their_positions, svmas, 10);
    std::printf("| %s | %zu | %s | %s | %s | %s |\n", module.debug_name.c_str(), a.total,
                percent(a.same_chain, a.total).c_str(),
                percent(a.same_chain_exact, a.total).c_str(),
                percent(a.same_depth, a.total).c_str(), percent(p.same, p.total).c_str());
    for (const auto& e : a.examples) disagreements.push_back(module.debug_name + " " + e);
    for (const auto& e : p.examples) other_positions.push_back(module.debug_name + " " + e);
    for (size_t i = 0; i < ours[0].size() && other_aliases.size() < 10; ++i) {
      const Chain& x = ours[0][i];
      const Chain& y = (*theirs)[i];
      if (x == y || x.size() != y.size() || x.empty()) continue;
      char address[32];
      std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(svmas[i]));
      other_aliases.push_back(module.debug_name + " " + address + ": sprof " + x.back() +
                              " | llvm-symbolizer " + y.back());
    }
  }
  const auto list = [](const char* heading, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    std::printf("\n%s\n\n", heading);
    for (const auto& line : lines) std::printf("- `%s`\n", line.c_str());
  };
  list("Every disagreement (sprof's chain, innermost first, then llvm-symbolizer's):",
       disagreements);
  list("The same chain through another alias of the outer function (the first 10):", other_aliases);
  list("Other file:line at some level (the first 10 per binary; innermost first):",
       other_positions);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 1;
  if (!options.agreement.empty()) return measure_agreement(options);

  std::vector<std::string> paths = loaded_libraries();
  paths.push_back(options.binary);
  if (paths.size() != 4) {
    std::fprintf(stderr, "could not find libc, libm and libstdc++ among the loaded libraries\n");
    return 1;
  }
  std::mt19937_64 rng(20240611);
  std::vector<Module> modules(paths.size());
  for (size_t m = 0; m < paths.size(); ++m) {
    const size_t share = options.count / paths.size() + (m < options.count % paths.size());
    if (!load_module(paths[m], share, rng, modules[m])) return 1;
  }
  const std::string request = v5_request(modules);
  if (!options.write_request.empty()) {
    const std::string& dir = options.write_request;
    if (!write_file(dir + "/request.json", request) ||
        !write_file(dir + "/profile.json", profile_naming(modules))) {
      std::fprintf(stderr, "cannot write into %s\n", dir.c_str());
      return 1;
    }
    return 0;
  }
  std::vector<std::string> module_requests;
  module_requests.reserve(modules.size());
  for (const auto& m : modules) module_requests.push_back(v5_request({m}));

  const std::string llvm =
      options.sprof_only ? std::string() : sprof::bench::find_llvm_symbolizer();
  if (!options.sprof_only && llvm.empty()) {
    std::fprintf(stderr, "llvm-symbolizer not found (apt install llvm-14); skipping it\n");
  }

  // Interleaved rounds: sprof cold (all modules, then each alone), sprof warm, llvm-symbolizer.
  std::vector<double> cold_ms, warm_ms, llvm_ms;
  std::vector<std::vector<double>> module_cold_ms(modules.size()), module_llvm_ms(modules.size());
  std::vector<std::vector<double>> module_saving_ms(modules.size()), module_next_ms(modules.size());
  std::vector<uint64_t> index_bytes(modules.size());
  std::vector<std::vector<Chain>> llvm_chains(modules.size());
  std::string reply;
  for (int run = 0; run < options.runs; ++run) {
    const auto start = Clock::now();
    auto fresh = std::make_unique<FreshApi>(modules);
    reply = fresh->reply_to(request);
    cold_ms.push_back(elapsed_ms(start));
    for (int again = 0; again < 3; ++again) {
      const auto warm_start = Clock::now();
      reply = fresh->reply_to(request);
      warm_ms.push_back(elapsed_ms(warm_start));
    }
    fresh.reset();
    for (size_t m = 0; m < modules.size(); ++m) {
      const auto module_start = Clock::now();
      FreshApi alone(modules);
      const std::string expected = alone.reply_to(module_requests[m]);
      module_cold_ms[m].push_back(elapsed_ms(module_start));
      // The first run with an empty symbol cache: the answer, and the index of what it read
      // saved when the symbolicator ends. Then the next run, from that index alone.
      const std::string cache = fresh_directory();
      const auto saving_start = Clock::now();
      auto saving = std::make_unique<FreshApi>(modules, cache);
      const std::string first = saving->reply_to(module_requests[m]);
      saving.reset();
      module_saving_ms[m].push_back(elapsed_ms(saving_start));
      const auto next_start = Clock::now();
      FreshApi next(modules, cache);
      const std::string again = next.reply_to(module_requests[m]);
      module_next_ms[m].push_back(elapsed_ms(next_start));
      index_bytes[m] = directory_bytes(cache);
      if (first != expected || again != expected) {
        std::fprintf(stderr, "%s: the replies with a symbol cache differ from the cold one\n",
                     modules[m].debug_name.c_str());
        return 1;
      }
      remove_directory(cache);
    }
    if (llvm.empty()) continue;
    double total = 0;
    for (size_t m = 0; m < modules.size(); ++m) {
      const auto module_start = Clock::now();
      auto chains =
          sprof::bench::run_llvm_symbolizer(llvm, modules[m].debug_file, modules[m].svmas());
      module_llvm_ms[m].push_back(elapsed_ms(module_start));
      total += module_llvm_ms[m].back();
      if (!chains) {
        std::fprintf(stderr, "%s gave no usable output for %s\n", llvm.c_str(),
                     modules[m].debug_file.c_str());
        return 1;
      }
      llvm_chains[m] = std::move(*chains);
    }
    llvm_ms.push_back(total);
  }
  const auto ours = parse_v5_reply(reply);
  if (ours.size() != modules.size()) {
    std::fprintf(stderr, "unexpected v5 reply: %.200s\n", reply.c_str());
    return 1;
  }

  // The addr2lines, given the same addresses as SVMAs (what `-e FILE` expects).
  char dir_template[] = "/tmp/sprof_bench_symbolicate_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return 1;
  const std::string dir = dir_template;
  std::vector<std::string> address_files;
  for (size_t m = 0; m < modules.size(); ++m) {
    address_files.push_back(dir + "/addresses" + std::to_string(m) + ".txt");
    std::ofstream out(address_files.back());
    char line[32];
    for (const uint64_t a : modules[m].svmas()) {
      std::snprintf(line, sizeof line, "0x%llx\n", static_cast<unsigned long long>(a));
      out << line;
    }
  }
  std::vector<std::string> tools = {"eu-addr2line", "addr2line"};
  if (options.sprof_only || options.skip_addr2line) tools.clear();
  std::map<std::string, std::vector<double>> tool_ms;
  std::map<std::string, std::vector<std::vector<std::string>>> tool_names;
  for (const auto& tool : tools) {
    const int runs = tool == "eu-addr2line" ? 1 : options.runs;
    for (int run = 0; run < runs; ++run) {
      double total = 0;
      auto& names = tool_names[tool];
      names.assign(modules.size(), {});
      for (size_t m = 0; m < modules.size(); ++m) {
        total += run_addr2line(tool, modules[m], address_files[m], names[m]);
      }
      tool_ms[tool].push_back(total);
    }
  }
  for (const auto& file : address_files) unlink(file.c_str());
  rmdir(dir.c_str());

  std::printf("Addresses: %zu (", options.count);
  for (size_t m = 0; m < modules.size(); ++m) {
    std::printf("%s%zu in `%s`", m ? ", " : "", modules[m].addresses.size(),
                modules[m].path.c_str());
  }
  std::printf(
      "), chosen with a fixed seed inside the function symbols of each module's symbol "
      "tables (binary and debug file). The v5 request is %zu bytes, the reply %zu bytes. "
      "Times are wall-clock ms for all addresses; sprof warm is 3 requests per run.\n\n",
      request.size(), reply.size());
  std::printf("| symbolicator | min ms | median ms | runs |\n| --- | ---: | ---: | ---: |\n");
  print_times("sprof `/symbolicate/v5`, cold (new Symbolicator: find + index debug info)", cold_ms);
  print_times("sprof `/symbolicate/v5`, warm (maps cached; parse + lookups + write)", warm_ms);
  if (!llvm.empty()) {
    print_times("`" + llvm + " --output-style=JSON` (one process per module)", llvm_ms);
  }
  for (const auto& tool : tools) {
    print_times("`" + tool + " -a -f -i -C` (one process per module)", tool_ms[tool]);
  }
  if (!llvm.empty()) {
    std::printf("| sprof cold / llvm-symbolizer | %.2f | %.2f | |\n",
                minimum(cold_ms) / minimum(llvm_ms), median(cold_ms) / median(llvm_ms));
  }

  std::printf(
      "\nEach module alone (its addresses in a request of their own, to a fresh "
      "symbolicator; llvm-symbolizer as above), ms min / median:\n\n");
  std::printf("| module | sprof cold | %s | ratio of medians |\n| --- | ---: | ---: | ---: |\n",
              llvm.empty() ? "-" : llvm.c_str());
  for (size_t m = 0; m < modules.size(); ++m) {
    const auto& ours_ms = module_cold_ms[m];
    const auto& theirs_ms = module_llvm_ms[m];
    std::printf("| %s | %.1f / %.1f | %.1f / %.1f | %.2f |\n", modules[m].debug_name.c_str(),
                minimum(ours_ms), median(ours_ms), minimum(theirs_ms), median(theirs_ms),
                theirs_ms.empty() ? 0.0 : median(ours_ms) / median(theirs_ms));
  }
  std::printf(
      "\nThe same requests with an empty symbol cache: the first run answers and saves the index "
      "of what it read when its symbolicator ends (a partial index); the next run answers from "
      "that index. Replies are the same as without a cache (checked). ms min / median:\n\n");
  std::printf(
      "| module | first run, index saved | index size | next run | first run / %s |\n"
      "| --- | ---: | ---: | ---: | ---: |\n",
      llvm.empty() ? "-" : llvm.c_str());
  for (size_t m = 0; m < modules.size(); ++m) {
    const auto& saving_ms = module_saving_ms[m];
    const auto& theirs_ms = module_llvm_ms[m];
    std::printf("| %s | %.1f / %.1f | %.1f MB | %.1f / %.1f | %.2f |\n",
                modules[m].debug_name.c_str(), minimum(saving_ms), median(saving_ms),
                static_cast<double>(index_bytes[m]) / 1e6, minimum(module_next_ms[m]),
                median(module_next_ms[m]),
                theirs_ms.empty() ? 0.0 : median(saving_ms) / median(theirs_ms));
  }

  if (!llvm.empty()) {
    std::printf(
        "\nAgreement with %s: the same functions at every inline level (so the same "
        "inline depth), names spelled by one demangler without clone suffixes; the "
        "outer function may be another alias of its address (\"same chain\"), or must be "
        "the very same name (\"exact\").\n\n",
        llvm.c_str());
    std::printf(
        "| module | addresses | same chain | exact | same inline depth |\n"
        "| --- | ---: | ---: | ---: | ---: |\n");
    sprof::bench::Agreement all;
    std::vector<std::string> examples;
    for (size_t m = 0; m < modules.size(); ++m) {
      const sprof::bench::AliasIndex aliases({modules[m].path, modules[m].debug_file});
      const auto a = sprof::bench::compare(ours[m], llvm_chains[m], aliases, modules[m].svmas());
      all.add(a);
      for (const auto& e : a.examples) examples.push_back(modules[m].debug_name + " " + e);
      std::printf("| %s | %zu | %s | %s | %s |\n", modules[m].debug_name.c_str(), a.total,
                  percent(a.same_chain, a.total).c_str(),
                  percent(a.same_chain_exact, a.total).c_str(),
                  percent(a.same_depth, a.total).c_str());
    }
    std::printf("| **all** | %zu | %s | %s | %s |\n", all.total,
                percent(all.same_chain, all.total).c_str(),
                percent(all.same_chain_exact, all.total).c_str(),
                percent(all.same_depth, all.total).c_str());
    if (!examples.empty()) {
      std::printf(
          "\nEvery disagreement (up to 5 per module; sprof's chain, innermost first, then "
          "%s's):\n\n",
          llvm.c_str());
      for (const auto& e : examples) {
        std::printf("- `%s`\n", e.c_str());
        std::fprintf(stderr, "%s\n", e.c_str());
      }
    }
  }

  if (!tools.empty()) {
    std::printf(
        "\nAgreement of the innermost function name with the addr2lines (exact / "
        "ignoring parameter lists / the same or an alias of the same address); \"named\" "
        "counts addresses the tool named.\n\n");
    std::printf(
        "| module | tool | exact | without parameters | same or alias | tool named |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n");
    for (const auto& tool : tools) {
      NameAgreement all;
      for (size_t m = 0; m < modules.size(); ++m) {
        const sprof::bench::AliasIndex aliases({modules[m].path, modules[m].debug_file});
        const NameAgreement a = compare_innermost(ours[m], tool_names[tool][m], aliases);
        all.exact += a.exact, all.normalized += a.normalized, all.aliased += a.aliased;
        all.total += a.total, all.theirs_named += a.theirs_named;
        std::printf("| %s | %s | %s | %s | %s | %s |\n", modules[m].debug_name.c_str(),
                    tool.c_str(), percent(a.exact, a.total).c_str(),
                    percent(a.normalized, a.total).c_str(), percent(a.aliased, a.total).c_str(),
                    percent(a.theirs_named, a.total).c_str());
      }
      std::printf("| **all** | %s | %s | %s | %s | %s |\n", tool.c_str(),
                  percent(all.exact, all.total).c_str(), percent(all.normalized, all.total).c_str(),
                  percent(all.aliased, all.total).c_str(),
                  percent(all.theirs_named, all.total).c_str());
    }
  }
  return 0;
}
