// What embedding symbols costs at save time, on a recorded profile (a Gecko file saved with
// --no-presymbolicate): the Gecko save alone, then presymbolication with a fresh symbolicator
// (symbol maps built from the debug files, page cache warm after the first run) and with the
// same symbolicator again (maps built, as after the server answered the first page view), and
// the self-contained write. Sizes are of the gzipped files as sprof saves them.
//
// Usage: sprof_bench_presymbolicate PROFILE.json.gz [--runs N]
// Prints one Markdown table row per measure: min / median over the runs.
#include "sprof/presymbolicate/presymbolicate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Series {
  std::vector<double> values;
  double min() const { return *std::min_element(values.begin(), values.end()); }
  double median() const {
    std::vector<double> v = values;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
};

void row(const char* what, const Series& s) {
  std::printf("| %s | %.1f | %.1f |\n", what, s.min(), s.median());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PROFILE.json.gz [--runs N]\n", argv[0]);
    return 1;
  }
  int runs = 5;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
  }
  auto bytes = sprof::profile::read_profile_json(argv[1]);
  if (!bytes) {
    std::fprintf(stderr, "%s\n", bytes.error().message.c_str());
    return 1;
  }
  auto profile = sprof::profile::read_gecko_json(*bytes);
  if (!profile) {
    std::fprintf(stderr, "%s\n", profile.error().message.c_str());
    return 1;
  }
  uint64_t samples = 0;
  for (const auto& p : profile->processes) {
    for (const auto& t : p.threads) samples += t.samples().size();
  }
  const auto dir = std::filesystem::temp_directory_path() / "sprof-bench-presym";
  std::filesystem::create_directories(dir);
  const std::string gecko_path = (dir / "gecko.json.gz").string();
  const std::string processed_path = (dir / "processed.json.gz").string();

  Series gecko_write, cold, warm, processed_write;
  std::vector<sprof::presymbolicate::ModuleOutcome> last_cold;
  uint64_t gecko_bytes = 0, processed_bytes = 0, addresses = 0, named = 0, modules = 0;
  for (int run = 0; run < runs; ++run) {
    auto start = Clock::now();
    auto written = sprof::profile::write_gecko_file(*profile, gecko_path);
    gecko_write.values.push_back(ms_since(start));
    gecko_bytes = written.value_or(0);

    sprof::symbolicator::SymbolicatorOptions options;
    options.hints = sprof::presymbolicate::module_hints(*profile);
    sprof::symbolicator::Symbolicator symbolicator(options);
    start = Clock::now();
    auto first = sprof::presymbolicate::presymbolicate(*profile, symbolicator);
    cold.values.push_back(ms_since(start));
    last_cold = first.report.modules;
    start = Clock::now();
    auto second = sprof::presymbolicate::presymbolicate(*profile, symbolicator);
    warm.values.push_back(ms_since(start));
    addresses = second.report.addresses;
    named = second.report.named;
    modules = second.report.modules.size();

    start = Clock::now();
    auto processed = sprof::profile::write_processed_file(*profile, second.symbols, processed_path);
    processed_write.values.push_back(ms_since(start));
    processed_bytes = processed.value_or(0);
  }
  std::filesystem::remove_all(dir);

  std::printf("%s: %llu samples, %llu of %llu addresses named in %llu modules, %d runs\n\n",
              argv[1], static_cast<unsigned long long>(samples),
              static_cast<unsigned long long>(named), static_cast<unsigned long long>(addresses),
              static_cast<unsigned long long>(modules), runs);
  std::printf("| step | min ms | median ms |\n| --- | ---: | ---: |\n");
  row("Gecko file write (what --no-presymbolicate saves)", gecko_write);
  row("presymbolicate, fresh symbolicator (maps built)", cold);
  row("presymbolicate, maps already built", warm);
  row("self-contained file write", processed_write);
  std::printf(
      "\nsizes: Gecko %llu B, self-contained %llu B (%.2fx)\n",
      static_cast<unsigned long long>(gecko_bytes),
      static_cast<unsigned long long>(processed_bytes),
      gecko_bytes ? static_cast<double>(processed_bytes) / static_cast<double>(gecko_bytes) : 0.0);
  std::printf("\nfresh symbolicator, last run, per module (in parallel on %u threads):\n",
              std::max(1U, std::thread::hardware_concurrency()));
  for (const auto& m : last_cold) {
    std::printf("  %-28s %6llu addresses %8.1f ms%s%s\n", m.module.debug_name.c_str(),
                static_cast<unsigned long long>(m.addresses), m.elapsed_ms,
                m.error.empty() ? "" : "  no symbols: ", m.error.c_str());
  }
  return 0;
}
