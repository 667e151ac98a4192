// Symbolication benchmark: sprof's /symbolicate/v5 against eu-addr2line and binutils addr2line.
//
// The same addresses (default 10,000, spread evenly over libc, libstdc++ and a large C++ binary
// with debug info) are symbolicated by:
//   - sprof cold: a fresh `Symbolicator` answering one v5 request (finding and indexing the debug
//     info is part of the time);
//   - sprof warm: the same request again, symbol maps cached (JSON parse + lookups + JSON write);
//   - `eu-addr2line -a -f -i -C -e FILE` and `addr2line -a -f -i -C -e FILE`, one process per
//     module, addresses on stdin (each run is a new process, so every run is cold for them).
// Addresses are chosen with a fixed seed inside function symbols, so runs are comparable.
// Agreement compares the innermost function name of each address (the tools print the inline
// chain innermost first; sprof's v5 frame has it in `inlines[0]`, or `function` without inlines),
// exactly and with parameter lists stripped (DWARF names and demangled symbols can differ there).
//
// Output: a Markdown section on stdout (bench/run-symbolicate.sh puts it into docs/benchmarks.md).
#include <link.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/api/symbolication_api.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Module {
  std::string debug_name;  // file name, as sprof's profiles name libs
  std::string path;
  std::string breakpad_id;
  uint64_t base_vaddr = 0;
  std::vector<uint64_t> addresses;  // relative (SVMA - v0)
};

// What one symbolicator said about one address; empty when it had no name.
struct Answer {
  std::string innermost;
  std::string outer;
};

struct Options {
  size_t count = 10000;
  int runs = 5;
  std::string binary;  // the large C++ binary; default: this benchmark itself
  bool sprof_only = false;  // skip the tools (for profiling sprof)
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

// Paths of the libc and libstdc++ this process runs with.
std::map<std::string, std::string> loaded_libraries() {
  std::map<std::string, std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& out = *static_cast<std::map<std::string, std::string>*>(data);
        const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string name = basename_of(path);
        if (name.starts_with("libc.so") || name.starts_with("libstdc++.so")) {
          char resolved[PATH_MAX];
          out[name] = realpath(path.c_str(), resolved) != nullptr ? resolved : path;
        }
        return 0;
      },
      &paths);
  return paths;
}

// `count` distinct addresses inside function symbols of the file at `path`.
bool load_module(const std::string& path, size_t count, std::mt19937_64& rng, Module& module) {
  auto identity = sprof::elf::read_module_identity(path);
  auto symbols = sprof::elf::read_symbols(path);
  if (!identity || !symbols) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  module.path = path;
  module.debug_name = basename_of(path);
  module.breakpad_id = identity->breakpad_id();
  module.base_vaddr = identity->base_vaddr;
  std::map<uint64_t, uint64_t> functions;  // start -> size, deduplicated, ordered
  for (const auto& symbol : *symbols) {
    if (symbol.size > 0 && symbol.address >= identity->base_vaddr) {
      functions.emplace(symbol.address, symbol.size);
    }
  }
  if (functions.empty()) return false;
  const std::vector<std::pair<uint64_t, uint64_t>> list(functions.begin(), functions.end());
  std::uniform_int_distribution<size_t> pick(0, list.size() - 1);
  std::set<uint64_t> chosen;
  while (chosen.size() < count) {
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

// Innermost and outer names per address from a v5 reply, per job.
std::vector<std::vector<Answer>> parse_v5_reply(const std::string& json) {
  std::vector<std::vector<Answer>> answers;
  simdjson::dom::parser parser;
  simdjson::dom::array results;
  if (parser.parse(json)["results"].get(results)) return answers;
  for (auto result : results) {
    auto& job = answers.emplace_back();
    simdjson::dom::array frames;
    if (result["stacks"].at(0).get(frames)) continue;
    for (auto frame : frames) {
      Answer answer;
      std::string_view name;
      if (!frame["function"].get(name)) answer.outer = answer.innermost = name;
      if (!frame["inlines"].at(0)["function"].get(name)) answer.innermost = name;
      job.push_back(std::move(answer));
    }
  }
  return answers;
}

// "0x" followed by hex digits only: the address line `-a` prints before each entry.
bool is_address_line(std::string_view line) {
  if (!line.starts_with("0x") || line.size() < 3) return false;
  return line.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

// Runs an addr2line-style tool over the module's addresses; returns the wall time in ms and the
// answers in address order (empty answers if the output cannot be split per address).
double run_tool(const std::string& tool, const Module& module, const std::string& address_file,
                std::vector<Answer>& answers) {
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

  answers.clear();
  for (size_t i = 0; i < lines.size();) {
    if (!is_address_line(lines[i])) return ms;  // unexpected output
    ++i;
    std::vector<std::string> functions;
    // Pairs of lines: function, then file:line; innermost first, outer last.
    while (i < lines.size() && !is_address_line(lines[i])) {
      std::string name = lines[i];
      if (const size_t cut = name.find(" inlined at "); cut != std::string::npos) name.resize(cut);
      functions.push_back(name == "??" ? std::string() : name);
      i += 2;
    }
    Answer answer;
    if (!functions.empty()) answer = {functions.front(), functions.back()};
    answers.push_back(std::move(answer));
  }
  return ms;
}

// Drops a trailing parameter list and its qualifiers, clone suffixes and symbol versions:
// "ns::f(int) const [clone .cold]" -> "ns::f", "xdr_uint32_t@GLIBC_2.2.5" -> "xdr_uint32_t".
std::string without_parameters(std::string name) {
  if (const size_t at = name.find('@'); at != std::string::npos) name.resize(at);
  if (const size_t clone = name.find(" [clone "); clone != std::string::npos) name.resize(clone);
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

// The unqualified name: "ns::C<int>::f" -> "f". Inline frames often carry only DWARF's
// DW_AT_name while a symbol table gives the qualified name; this compares what both agree on.
std::string base_name(const std::string& name) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

struct Agreement {
  size_t exact = 0;
  size_t normalized = 0;
  size_t base = 0;
  size_t total = 0;
  size_t ours_named = 0;
  size_t theirs_named = 0;
};

// Prints the first few disagreements to stderr, to see what kind they are.
Agreement compare(const std::vector<Answer>& ours, const std::vector<Answer>& theirs,
                  const Module& module, const std::string& tool) {
  Agreement a;
  a.total = ours.size();
  size_t shown = 0;
  if (theirs.size() != ours.size()) return a;  // tool output could not be split per address
  for (size_t i = 0; i < ours.size(); ++i) {
    const auto& x = ours[i].innermost;
    const auto& y = theirs[i].innermost;
    a.ours_named += !x.empty();
    a.theirs_named += !y.empty();
    a.exact += x == y;
    const bool same = without_parameters(x) == without_parameters(y);
    a.normalized += same;
    a.base += base_name(without_parameters(x)) == base_name(without_parameters(y));
    if (!same && ++shown <= 5) {
      std::fprintf(stderr, "%s %s 0x%llx: sprof \"%s\" vs \"%s\"\n", module.debug_name.c_str(),
                   tool.c_str(),
                   static_cast<unsigned long long>(module.addresses[i] + module.base_vaddr),
                   x.c_str(), y.c_str());
    }
  }
  return a;
}

std::string percent(size_t part, size_t total) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", total ? 100.0 * double(part) / double(total) : 0.0);
  return text;
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
    } else if (arg == "--binary" && i + 1 < argc) {
      options.binary = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--count N] [--runs N] [--binary PATH] [--sprof-only]\n", argv[0]);
      return false;
    }
  }
  if (options.binary.empty()) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return false;
    options.binary.assign(self, static_cast<size_t>(n));
  }
  return options.runs > 0 && options.count >= 3;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 1;

  const auto libraries = loaded_libraries();
  std::vector<std::string> paths;
  for (const auto& [name, path] : libraries) paths.push_back(path);
  paths.push_back(options.binary);
  if (paths.size() != 3) {
    std::fprintf(stderr, "could not find libc and libstdc++ among the loaded libraries\n");
    return 1;
  }
  std::mt19937_64 rng(20240611);
  std::vector<Module> modules(paths.size());
  for (size_t m = 0; m < paths.size(); ++m) {
    const size_t share = options.count / paths.size() + (m < options.count % paths.size());
    if (!load_module(paths[m], share, rng, modules[m])) return 1;
  }
  const std::string request = v5_request(modules);

  // sprof: a fresh symbolicator per run (cold), then the same request again (warm).
  std::vector<double> cold_ms, warm_ms;
  std::string reply;
  for (int run = 0; run < options.runs; ++run) {
    const auto start = Clock::now();
    sprof::symbolicator::SymbolicatorOptions symbolicator_options;
    for (const auto& m : modules) {
      symbolicator_options.hints.push_back({m.debug_name, m.breakpad_id, m.path});
    }
    sprof::symbolicator::Symbolicator symbolicator(std::move(symbolicator_options));
    sprof::api::SymbolicatorModuleSource source(symbolicator);
    sprof::api::SymbolicationApi api(source);
    reply = api.handle("/symbolicate/v5", request).body;
    cold_ms.push_back(elapsed_ms(start));
    for (int again = 0; again < 3; ++again) {
      const auto warm_start = Clock::now();
      reply = api.handle("/symbolicate/v5", request).body;
      warm_ms.push_back(elapsed_ms(warm_start));
    }
  }
  const auto ours = parse_v5_reply(reply);
  if (ours.size() != modules.size()) {
    std::fprintf(stderr, "unexpected v5 reply: %.200s\n", reply.c_str());
    return 1;
  }

  // The tools, given the same addresses as SVMAs (what `-e FILE` expects).
  char dir_template[] = "/tmp/sprof_bench_symbolicate_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return 1;
  const std::string dir = dir_template;
  std::vector<std::string> address_files;
  for (size_t m = 0; m < modules.size(); ++m) {
    address_files.push_back(dir + "/addresses" + std::to_string(m) + ".txt");
    std::ofstream out(address_files.back());
    char line[32];
    for (const uint64_t a : modules[m].addresses) {
      std::snprintf(line, sizeof line, "0x%llx\n",
                    static_cast<unsigned long long>(a + modules[m].base_vaddr));
      out << line;
    }
  }
  std::vector<std::string> tools = {"eu-addr2line", "addr2line"};
  if (options.sprof_only) tools.clear();
  std::map<std::string, std::vector<double>> tool_ms;
  std::map<std::string, std::vector<std::vector<Answer>>> tool_answers;
  for (const auto& tool : tools) {
    for (int run = 0; run < options.runs; ++run) {
      double total = 0;
      auto& answers = tool_answers[tool];
      answers.assign(modules.size(), {});
      for (size_t m = 0; m < modules.size(); ++m) {
        total += run_tool(tool, modules[m], address_files[m], answers[m]);
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
  std::printf("), chosen with a fixed seed inside function symbols. %d runs each; sprof warm is "
              "%d requests (3 per run); the v5 request is %zu bytes, the reply %zu bytes. Times are "
              "wall-clock ms for all addresses.\n\n",
              options.runs, options.runs * 3, request.size(), reply.size());
  std::printf("| symbolicator | min ms | median ms |\n| --- | ---: | ---: |\n");
  std::printf("| sprof `/symbolicate/v5`, cold (new Symbolicator: find + index debug info) | "
              "%.1f | %.1f |\n", minimum(cold_ms), median(cold_ms));
  std::printf("| sprof `/symbolicate/v5`, warm (maps cached; parse + lookups + write) | %.1f | "
              "%.1f |\n", minimum(warm_ms), median(warm_ms));
  for (const auto& tool : tools) {
    std::printf("| `%s -a -f -i -C` (one process per module) | %.1f | %.1f |\n", tool.c_str(),
                minimum(tool_ms[tool]), median(tool_ms[tool]));
  }
  std::printf("\nAgreement of the innermost function name with sprof (exact / ignoring parameter "
              "lists / unqualified base name only); \"named\" counts addresses that got any name.\n\n");
  std::printf("| module | tool | exact | without parameters | base name | sprof named | tool named "
              "|\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (const auto& tool : tools) {
    Agreement all;
    for (size_t m = 0; m < modules.size(); ++m) {
      const Agreement a = compare(ours[m], tool_answers[tool][m], modules[m], tool);
      all.exact += a.exact, all.normalized += a.normalized, all.base += a.base;
      all.total += a.total;
      all.ours_named += a.ours_named, all.theirs_named += a.theirs_named;
      std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", modules[m].debug_name.c_str(),
                  tool.c_str(), percent(a.exact, a.total).c_str(),
                  percent(a.normalized, a.total).c_str(), percent(a.base, a.total).c_str(),
                  percent(a.ours_named, a.total).c_str(),
                  percent(a.theirs_named, a.total).c_str());
    }
    std::printf("| **all** | %s | %s | %s | %s | %s | %s |\n", tool.c_str(),
                percent(all.exact, all.total).c_str(), percent(all.normalized, all.total).c_str(),
                percent(all.base, all.total).c_str(),
                percent(all.ours_named, all.total).c_str(),
                percent(all.theirs_named, all.total).c_str());
  }
  return 0;
}
