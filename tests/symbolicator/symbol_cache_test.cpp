// The symbol cache (symbolicator/src/symbol_cache.hpp): a module's map comes from the cache the
// second time, answers every address as the map built from the files does, and a cache file that
// is stale, damaged or being written by another process is never trusted.
#include "symbol_cache.hpp"

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cache_filler.hpp"
#include "module_index_codec.hpp"
#include "module_symbol_map.hpp"
#include "sprof/core/unique_fd.hpp"
#include "sprof/core/untrusted_file.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

using test::basename_of;
using test::target_path;
using test::TempDir;

SymbolicatorOptions with_cache(const std::string& cache_dir) {
  SymbolicatorOptions options;
  options.debug_roots.clear();
  options.symbol_cache_dir = cache_dir;
  return options;
}

// The module's map, from a fresh Symbolicator (whose in-memory cache is then empty), once the
// Symbolicator has saved it (its end would cut the saving short).
std::shared_ptr<const detail::ModuleSymbolMap> map_of(const std::string& path,
                                                      const SymbolicatorOptions& options) {
  Symbolicator symbolicator(options);
  const std::string id = test::identity_of(path).breakpad_id();
  symbolicator.add_hint(ModuleHint{basename_of(path), id, path});
  auto map = symbolicator.module(basename_of(path), id);
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  auto module = std::dynamic_pointer_cast<const detail::ModuleSymbolMap>(*map);
  REQUIRE(module != nullptr);
  symbolicator.wait_for_symbol_cache();
  return module;
}

std::string describe(const std::optional<SymbolInfo>& info) {
  if (!info) return "-";
  std::ostringstream out;
  out << info->function << " @" << info->function_start << "+" << info->function_size << " "
      << info->file << ":" << info->line;
  for (const InlineFrame& f : info->inlines)
    out << " <- " << f.function << " " << f.file << ":" << f.line;
  return out.str();
}

// Every address of the module's executable segments, answered by `map`, one line each.
std::vector<std::string> all_answers(const std::string& path, const SymbolMap& map) {
  const elf::ModuleIdentity identity = test::identity_of(path);
  std::vector<std::string> answers;
  for (const elf::LoadSegment& load : identity.loads) {
    if (!load.executable) continue;
    const uint64_t begin = load.vaddr - identity.base_vaddr;
    for (uint64_t a = begin; a < begin + load.memsz; ++a) {
      answers.push_back(std::to_string(a) + " " + describe(map.lookup(RelativeAddress{a})));
    }
  }
  return answers;
}

std::vector<std::string> cache_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  return names;
}

std::string only_cache_file(const std::string& dir) {
  const auto names = cache_files(dir);
  REQUIRE(names.size() == 1);
  CHECK(names[0].ends_with(".idx"));
  return dir + "/" + names[0];
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// `bytes` as an index file to decode (a memfd: no file left behind).
detail::ModuleIndexFile memory_file(const std::string& bytes) {
  UniqueFd fd(::memfd_create("index", MFD_CLOEXEC));
  REQUIRE(fd.valid());
  REQUIRE(::write(fd.get(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  return {UntrustedFile{std::move(fd), bytes.size(), 0}, "", true};
}

// Where an index file's prelude and units are (module_index_codec.hpp, "Layout").
detail::ModuleIndexLayout layout_of(const std::string& file) {
  const auto layout =
      detail::module_index_layout({reinterpret_cast<const uint8_t*>(file.data()), file.size()});
  REQUIRE(layout.has_value());
  return *layout;
}

elf::LocatedModule located_of(const std::string& path) {
  elf::DebugFileLocator locator(elf::LocatorOptions{{}, {}, {}});
  const std::vector<std::string> candidates{path};
  auto located =
      locator.locate(basename_of(path), test::identity_of(path).breakpad_id(), candidates);
  REQUIRE(located.has_value());
  return std::move(*located);
}

// What a cache file written for `located` tells the decoder about the module's files.
detail::ModuleIndexOrigin origin_of(const elf::LocatedModule& located, bool with_dwarf) {
  return {basename_of(located.binary_path),
          located.debug_path.empty() ? located.symbols_path : located.debug_path,
          located.binary_path, with_dwarf ? located.debug : nullptr, located.identity.base_vaddr};
}

// An address in the middle of the module's first executable segment.
uint64_t middle_of_code(const std::string& path) {
  const elf::ModuleIdentity identity = test::identity_of(path);
  for (const elf::LoadSegment& load : identity.loads) {
    if (load.executable) return load.vaddr - identity.base_vaddr + load.memsz / 2;
  }
  FAIL("no executable segment in " << path);
  return 0;
}

TEST_CASE("a module's second map comes from the symbol cache and answers every address alike") {
  for (const char* target : {"sprof_symbols_target", "sprof_symbols_nopie",
                             "libsprof_symbols_shared.so", "sprof_symbols_split_dwarf5"}) {
    CAPTURE(target);
    TempDir dir;
    const std::string cache = dir.path() + "/cache";
    const std::string path = target_path(target);
    SymbolicatorOptions no_cache = with_cache("");
    const auto from_files = map_of(path, no_cache);
    CHECK_FALSE(from_files->from_symbol_cache());
    CHECK(cache_files(cache).empty());  // no cache directory: nothing written

    const auto first = map_of(path, with_cache(cache));
    CHECK_FALSE(first->from_symbol_cache());  // a miss: built from the files, then saved
    const std::string file = only_cache_file(cache);
    struct stat st {};
    REQUIRE(::stat(cache.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0077) == 0);

    const auto second = map_of(path, with_cache(cache));
    CHECK(second->from_symbol_cache());  // a hit: no ELF or DWARF read
    CHECK(second->debug_file() == from_files->debug_file());
    const auto expected = all_answers(path, *from_files);
    const auto cached = all_answers(path, *second);
    REQUIRE(expected.size() == cached.size());
    size_t differing = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] != cached[i] && differing++ < 5) CHECK(cached[i] == expected[i]);
    }
    CHECK(differing == 0);
    CHECK(expected.size() > 100);
  }
}

TEST_CASE("the symbol cache misses for a binary that changed") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  SUBCASE("another build-id") {
    const std::string path = dir.copy_in(target_path("sprof_symbols_target"), "bin/prog");
    CHECK_FALSE(map_of(path, with_cache(cache))->from_symbol_cache());
    CHECK(map_of(path, with_cache(cache))->from_symbol_cache());
    dir.copy_in(target_path("sprof_symbols_nopie"), "bin/prog");
    const auto changed = map_of(path, with_cache(cache));
    CHECK_FALSE(changed->from_symbol_cache());
    CHECK(cache_files(cache).size() == 2);
  }
  SUBCASE("no build-id: a new modification time") {
    const std::string path = dir.path() + "/prog";
    REQUIRE(std::system(("objcopy --remove-section .note.gnu.build-id " +
                         target_path("sprof_symbols_target") + " " + path)
                            .c_str()) == 0);
    REQUIRE_FALSE(test::identity_of(path).has_gnu_build_id);
    CHECK_FALSE(map_of(path, with_cache(cache))->from_symbol_cache());
    CHECK(map_of(path, with_cache(cache))->from_symbol_cache());
    struct utimbuf times {
      1000000000, 1000000000
    };
    REQUIRE(::utime(path.c_str(), &times) == 0);
    CHECK_FALSE(map_of(path, with_cache(cache))->from_symbol_cache());
    CHECK(map_of(path, with_cache(cache))->from_symbol_cache());
  }
}

TEST_CASE("a truncated or damaged cache file is rebuilt, never trusted") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  const auto from_files = map_of(path, with_cache(""));
  map_of(path, with_cache(cache));
  const std::string file = only_cache_file(cache);
  const std::string good = read_bytes(file);
  REQUIRE(good.size() > 64);

  const auto damaged = [&](const std::string& bytes) {
    write_bytes(file, bytes);
    const auto map = map_of(path, with_cache(cache));
    CHECK_FALSE(map->from_symbol_cache());
    CHECK(all_answers(path, *map) == all_answers(path, *from_files));
    CHECK(read_bytes(file) == good);  // rewritten whole
  };
  SUBCASE("truncated") { damaged(good.substr(0, good.size() / 2)); }
  SUBCASE("empty") { damaged(""); }
  SUBCASE("one byte of the prelude flipped") {
    std::string bytes = good;
    const auto layout = layout_of(good);
    bytes[(layout.prelude_offset + layout.units_offset) / 2] ^= 0x40;
    damaged(bytes);
  }
  SUBCASE("writable by others (another user could have written it)") {
    write_bytes(file, good);
    REQUIRE(::chmod(file.c_str(), 0666) == 0);
    const auto map = map_of(path, with_cache(cache));
    CHECK_FALSE(map->from_symbol_cache());
    CHECK(all_answers(path, *map) == all_answers(path, *from_files));
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0077) == 0);  // replaced by a file of this user's alone
  }
  SUBCASE("another format version") {
    std::string bytes = good;
    bytes[8] = static_cast<char>(bytes[8] + 1);
    damaged(bytes);
  }
}

TEST_CASE("decoding rejects every prefix and hostile counts without crashing") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  map_of(path, with_cache(cache));
  const std::string good = read_bytes(only_cache_file(cache));
  const std::string key = detail::SymbolCache::key_for(located_of(path));
  const auto decode = [&](const std::string& bytes) {
    return detail::decode_module_index(memory_file(bytes), key, {});
  };
  REQUIRE(decode(good).has_value());
  CHECK_FALSE(decode(good + "x").has_value());
  for (size_t n = 0; n < good.size(); n += std::max<size_t>(1, good.size() / 997)) {
    CHECK_FALSE(decode(good.substr(0, n)).has_value());
  }
  CHECK_FALSE(detail::decode_module_index(memory_file(good), key + "-other", {}).has_value());
}

TEST_CASE("a damaged unit is read from the module's DWARF instead, and rebuilt next run") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  map_of(path, with_cache(cache));
  const std::string file = only_cache_file(cache);
  std::string bytes = read_bytes(file);
  const auto layout = layout_of(bytes);
  REQUIRE(layout.units_offset < bytes.size());  // the target has DWARF units
  bytes[(layout.units_offset + bytes.size()) / 2] ^= 0x40;
  write_bytes(file, bytes);

  const auto expected = all_answers(path, *map_of(path, with_cache("")));
  const auto map = map_of(path, with_cache(cache));
  CHECK(map->from_symbol_cache());  // the prelude is whole: the damage is found in its unit
  CHECK(all_answers(path, *map) == expected);
  CHECK(map->read_from_dwarf() > 0);  // the damaged unit, from the module's DWARF
  // The file was removed: the next run rebuilds it, and the one after reads it.
  CHECK(cache_files(cache).empty());
  CHECK_FALSE(map_of(path, with_cache(cache))->from_symbol_cache());
  const auto rebuilt = map_of(path, with_cache(cache));
  CHECK(rebuilt->from_symbol_cache());
  CHECK(all_answers(path, *rebuilt) == expected);

  SUBCASE("without the module's DWARF, named from the symbol table alone") {
    const elf::LocatedModule located = located_of(path);
    const auto damaged = detail::decode_module_index(
        memory_file(bytes), detail::SymbolCache::key_for(located), origin_of(located, false));
    REQUIRE(damaged.has_value());
    const auto answers = all_answers(path, **damaged);
    REQUIRE(answers.size() == expected.size());
    // The damaged unit's addresses lost their files, lines and inline frames, and never got
    // wrong ones; every other address is answered in full.
    size_t degraded = 0;
    for (size_t i = 0; i < answers.size(); ++i) {
      if (answers[i] == expected[i]) continue;
      ++degraded;
      CAPTURE(expected[i]);
      CHECK(answers[i].find(" :0") != std::string::npos);
      CHECK(answers[i].find(" <- ") == std::string::npos);
    }
    CHECK(degraded > 0);
    CHECK((*damaged)->read_from_dwarf() == 0);
  }
}

TEST_CASE("a partial index holds what lookups read; a map from it reads the rest from DWARF") {
  for (const char* target :
       {"sprof_symbols_target", "libsprof_symbols_shared.so", "sprof_symbols_split_dwarf5"}) {
    CAPTURE(target);
    const std::string path = target_path(target);
    const elf::LocatedModule located = located_of(path);
    const std::string key = detail::SymbolCache::key_for(located);
    const auto from_files = detail::ModuleSymbolMap::build(located, basename_of(path));
    REQUIRE(from_files.has_value());
    const auto expected = all_answers(path, **from_files);  // reads every unit: now whole
    const std::string whole = detail::encode_module_index(**from_files, key);

    // A first run that looked up one address saves that address's unit and function only.
    const RelativeAddress address{middle_of_code(path)};
    const auto first = detail::ModuleSymbolMap::build(located, basename_of(path));
    REQUIRE(first.has_value());
    const std::string answer = describe((*first)->lookup(address));
    const std::string partial = detail::encode_module_index(**first, key);
    CHECK(partial.size() < whole.size());

    const auto second =
        detail::decode_module_index(memory_file(partial), key, origin_of(located, true));
    REQUIRE(second.has_value());
    CHECK((*second)->from_symbol_cache());
    CHECK_FALSE((*second)->from_whole_cache_file());
    CHECK(describe((*second)->lookup(address)) == answer);
    CHECK((*second)->read_from_dwarf() == 0);  // answered from the file alone
    CHECK(all_answers(path, **second) == expected);
    CHECK((*second)->read_from_dwarf() > 0);  // the rest, from the module's DWARF

    // What the second run read goes into the file it writes: the third run has everything.
    const std::string grown = detail::encode_module_index(**second, key);
    CHECK(grown.size() > partial.size());
    const auto third =
        detail::decode_module_index(memory_file(grown), key, origin_of(located, true));
    REQUIRE(third.has_value());
    CHECK((*third)->from_whole_cache_file());
    CHECK(all_answers(path, **third) == expected);
    CHECK((*third)->read_from_dwarf() == 0);

    // Without the module's DWARF a partial file still answers what it holds, and the rest
    // from the symbol table, never wrongly.
    const auto alone =
        detail::decode_module_index(memory_file(partial), key, origin_of(located, false));
    REQUIRE(alone.has_value());
    CHECK(describe((*alone)->lookup(address)) == answer);
    const auto answers = all_answers(path, **alone);
    REQUIRE(answers.size() == expected.size());
    for (size_t i = 0; i < answers.size(); ++i) {
      if (answers[i] == expected[i]) continue;
      CAPTURE(expected[i]);
      CHECK(answers[i].find(" <- ") == std::string::npos);
      CHECK(answers[i].find(" :0") != std::string::npos);
    }
  }
}

TEST_CASE("sprof cache fill completes a partial file") {
  TempDir dir;
  const std::string cache_dir = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  const elf::LocatedModule located = located_of(path);
  const std::string key = detail::SymbolCache::key_for(located);
  const auto first = detail::ModuleSymbolMap::build(located, basename_of(path));
  REQUIRE(first.has_value());
  (void)(*first)->lookup(RelativeAddress{middle_of_code(path)});
  const detail::SymbolCache cache(cache_dir, UINT64_MAX);
  REQUIRE(cache.make_directory());
  cache.write(key, detail::encode_module_index(**first, key));

  const auto partial = map_of(path, with_cache(cache_dir));  // which also completes the file
  CHECK(partial->from_symbol_cache());
  CHECK_FALSE(partial->from_whole_cache_file());
  const auto whole = map_of(path, with_cache(cache_dir));
  CHECK(whole->from_whole_cache_file());
  CHECK(all_answers(path, *whole) == all_answers(path, *map_of(path, with_cache(""))));

  cache.write(key, detail::encode_module_index(**first, key));  // partial again
  const SymbolCacheRequest request{basename_of(path), test::identity_of(path).breakpad_id(), path,
                                   ""};
  Symbolicator filler(with_cache(cache_dir));
  const auto saved = filler.fill_symbol_cache(request);
  REQUIRE(saved.has_value());
  CHECK(*saved);  // a partial file is not the whole index: filled
  CHECK(map_of(path, with_cache(cache_dir))->from_whole_cache_file());
}

TEST_CASE("two processes filling the cache at once leave one whole file") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  std::vector<std::jthread> writers;
  for (int i = 0; i < 4; ++i) writers.emplace_back([&] { map_of(path, with_cache(cache)); });
  writers.clear();
  only_cache_file(cache);  // no temporary file left beside it
  CHECK(map_of(path, with_cache(cache))->from_symbol_cache());
}

TEST_CASE("a cache that cannot be written costs the cache, not the symbols") {
  TempDir dir;
  const std::string blocker = dir.write("not-a-directory", "x");
  const std::string path = target_path("sprof_symbols_target");
  const auto map = map_of(path, with_cache(blocker + "/cache"));
  CHECK_FALSE(map->from_symbol_cache());
  CHECK(all_answers(path, *map) == all_answers(path, *map_of(path, with_cache(""))));
}

TEST_CASE("a write that fails half way (a full disk) leaves no cache file and the symbols whole") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  const auto expected = all_answers(path, *map_of(path, with_cache("")));
  // RLIMIT_FSIZE fails every write past 4 KiB with EFBIG, as a full disk fails it with ENOSPC;
  // SIGXFSZ, which would end the process, is ignored meanwhile.
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const auto map = map_of(path, with_cache(cache));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  CHECK_FALSE(map->from_symbol_cache());
  CHECK(all_answers(path, *map) == expected);
  CHECK(cache_files(cache).empty());  // neither a part of the index nor its temporary file
  // Once there is room again the next build saves it, and the one after reads it.
  CHECK_FALSE(map_of(path, with_cache(cache))->from_symbol_cache());
  CHECK(map_of(path, with_cache(cache))->from_symbol_cache());
}

TEST_CASE("above its cap the cache removes the least recently used files") {
  const std::string a = target_path("sprof_symbols_target");
  const std::string b = target_path("sprof_symbols_nopie");
  const std::string c = target_path("libsprof_symbols_shared.so");
  TempDir dir;
  // Each module's file size, from a cache without a cap to speak of.
  const auto size_of = [&](const std::string& module) {
    const std::string scratch = dir.path() + "/scratch-" + basename_of(module);
    map_of(module, with_cache(scratch));
    return std::filesystem::file_size(only_cache_file(scratch));
  };
  const uint64_t size_a = size_of(a);
  const uint64_t size_c = size_of(c);
  const std::string cache = dir.path() + "/cache";
  const auto capped = [&](uint64_t max_bytes) {
    SymbolicatorOptions options = with_cache(cache);
    options.symbol_cache_max_bytes = max_bytes;
    return options;
  };
  map_of(a, capped(UINT64_MAX));
  const std::string file_a = only_cache_file(cache);
  map_of(b, capped(UINT64_MAX));
  // a was saved first and b later; then a is used again, which makes b the least recent.
  struct utimbuf long_ago {
    1000000000, 1000000000
  };
  struct utimbuf later {
    1000000100, 1000000100
  };
  REQUIRE(::utime(file_a.c_str(), &long_ago) == 0);
  for (const std::string& name : cache_files(cache)) {
    if (cache + "/" + name != file_a) REQUIRE(::utime((cache + "/" + name).c_str(), &later) == 0);
  }
  CHECK(map_of(a, capped(size_a + size_c))->from_symbol_cache());
  map_of(c, capped(size_a + size_c));  // saving c goes over the cap by b's file
  CHECK(cache_files(cache).size() == 2);
  CHECK(map_of(a, capped(UINT64_MAX))->from_symbol_cache());
  CHECK(map_of(c, capped(UINT64_MAX))->from_symbol_cache());
  CHECK_FALSE(map_of(b, capped(UINT64_MAX))->from_symbol_cache());
}

TEST_CASE("stopping the filler cuts the index under way short and names every module not saved") {
  TempDir dir;
  const detail::SymbolCache cache(dir.path() + "/cache", UINT64_MAX);
  detail::CacheFiller filler(cache);
  std::atomic<bool> started{false};
  const SymbolCacheRequest slow{"slow.so", "AA", "/lib/slow.so", "/debug/slow.debug"};
  const SymbolCacheRequest queued{"queued.so", "BB", "/lib/queued.so", ""};
  // As ModuleSymbolMap::read_all does between DWARF units: give up once told to stop.
  filler.add({slow,
              "slow",
              [&](const std::atomic<bool>& stop) -> std::optional<std::string> {
                started = true;
                while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return std::nullopt;
              },
              {}});
  filler.add({queued,
              "queued",
              [](const std::atomic<bool>&) -> std::optional<std::string> {
                return std::string("never asked for");
              },
              {}});
  for (int i = 0; i < 60000 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(started);
  CHECK(filler.stop() == std::vector<SymbolCacheRequest>{slow, queued});
  CHECK(cache_files(dir.path() + "/cache").empty());
  // Once stopped, a module added later is handed back as well, not saved.
  filler.add({queued,
              "queued",
              [](const std::atomic<bool>&) -> std::optional<std::string> {
                return std::string("never asked for");
              },
              {}});
  CHECK(filler.stop() == std::vector<SymbolCacheRequest>{queued});
  CHECK(cache_files(dir.path() + "/cache").empty());
}

TEST_CASE("stopping the filler saves what each module not saved whole has read so far") {
  TempDir dir;
  const detail::SymbolCache cache(dir.path() + "/cache", UINT64_MAX);
  REQUIRE(cache.make_directory());
  detail::CacheFiller filler(cache);
  std::atomic<bool> started{false};
  const SymbolCacheRequest slow{"slow.so", "AA", "/lib/slow.so", ""};
  const SymbolCacheRequest queued{"queued.so", "BB", "/lib/queued.so", ""};
  const SymbolCacheRequest unread{"unread.so", "CC", "/lib/unread.so", ""};
  filler.add({slow, "slow",
              [&](const std::atomic<bool>& stop) -> std::optional<std::string> {
                started = true;
                while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return std::nullopt;
              },
              [] { return std::optional<std::string>("what slow.so read"); }});
  filler.add({queued, "queued",
              [](const std::atomic<bool>&) -> std::optional<std::string> {
                return std::string("never asked for");
              },
              [] { return std::optional<std::string>("what queued.so read"); }});
  filler.add({unread, "unread",
              [](const std::atomic<bool>&) -> std::optional<std::string> {
                return std::string("never asked for");
              },
              [] { return std::optional<std::string>(); }});  // nothing new: nothing written
  for (int i = 0; i < 60000 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(started);
  CHECK(filler.stop() == std::vector<SymbolCacheRequest>{slow, queued, unread});
  CHECK(read_bytes(cache.path_for("slow")) == "what slow.so read");
  CHECK(read_bytes(cache.path_for("queued")) == "what queued.so read");
  CHECK_FALSE(std::filesystem::exists(cache.path_for("unread")));
}

TEST_CASE("a module's request alone fills the cache (sprof cache fill), once") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string path = target_path("sprof_symbols_target");
  const SymbolCacheRequest request{basename_of(path), test::identity_of(path).breakpad_id(), path,
                                   ""};
  {
    Symbolicator filler(with_cache(cache));
    const auto saved = filler.fill_symbol_cache(request);
    REQUIRE_MESSAGE(saved.has_value(), (saved ? std::string() : saved.error().message));
    CHECK(*saved);
  }
  only_cache_file(cache);
  const auto map = map_of(path, with_cache(cache));
  CHECK(map->from_symbol_cache());
  CHECK(all_answers(path, *map) == all_answers(path, *map_of(path, with_cache(""))));
  Symbolicator again(with_cache(cache));
  const auto saved = again.fill_symbol_cache(request);
  REQUIRE(saved.has_value());
  CHECK_FALSE(*saved);  // in the cache already
  SymbolCacheRequest other_build = request;
  other_build.breakpad_id = "0123456789ABCDEF0123456789ABCDEF0";
  CHECK_FALSE(again.fill_symbol_cache(other_build).has_value());  // not that module's file
}

TEST_CASE("the running kernel's symbols come from the cache under its build-id") {
  TempDir dir;
  const std::string cache = dir.path() + "/cache";
  const std::string kallsyms = dir.write("kallsyms",
                                         "ffffffff81000000 T _text\n"
                                         "ffffffff81000400 T do_syscall_64\n"
                                         "ffffffff81000900 T _etext\n");
  const std::string notes =
      dir.write("notes", std::string("\x04\0\0\0\x04\0\0\0\x03\0\0\0GNU\0\x11\x22\x33\x44", 20));
  const std::string breakpad = BuildId({0x11, 0x22, 0x33, 0x44}).breakpad_id(true);
  SymbolicatorOptions options = with_cache(cache);
  options.kallsyms_path = kallsyms;  // as /proc/kallsyms
  options.kernel_notes_path = notes;
  const auto kernel_map = [&](const SymbolicatorOptions& o) {
    Symbolicator symbolicator(o);
    auto map = symbolicator.module("[kernel.kallsyms]", breakpad);
    REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
    symbolicator.wait_for_symbol_cache();
    return *map;
  };
  CHECK_FALSE(kernel_map(options)->from_symbol_cache());
  only_cache_file(cache);
  // After a reboot kallsyms holds other addresses (KASLR) and may hide them (kptr_restrict): the
  // symbols relative to _text are the build's, and come from the cache.
  write_bytes(kallsyms, "0000000000000000 T _text\n");
  const auto cached = kernel_map(options);
  CHECK(cached->from_symbol_cache());
  const auto syscall = cached->lookup(RelativeAddress{0x410});
  REQUIRE(syscall.has_value());
  CHECK(syscall->function == "do_syscall_64");
  CHECK(syscall->function_size == 0x500);
  CHECK_FALSE(cached->lookup(RelativeAddress{0x900}).has_value());

  SUBCASE("a saved kallsyms (a hint: another boot's) is read as it is, not cached") {
    TempDir other;
    SymbolicatorOptions hinted = with_cache(other.path() + "/cache");
    hinted.kallsyms_path = "/nonexistent/kallsyms";
    hinted.kernel_notes_path = notes;
    write_bytes(kallsyms,
                "ffffffff81000000 T _text\nffffffff81000200 T saved_fn\n"
                "ffffffff81000900 T _etext\n");
    Symbolicator symbolicator(hinted);
    symbolicator.add_hint(ModuleHint{"[kernel.kallsyms]", breakpad, kallsyms});
    auto map = symbolicator.module("[kernel.kallsyms]", breakpad);
    REQUIRE(map.has_value());
    CHECK((*map)->lookup(RelativeAddress{0x210})->function == "saved_fn");
    symbolicator.wait_for_symbol_cache();
    CHECK(cache_files(other.path() + "/cache").empty());
  }
}

TEST_CASE("the default symbol cache is under XDG_CACHE_HOME, else ~/.cache") {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  CHECK(default_symbol_cache_dir() == "/x/cache/sprof");
  ::unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') {
    CHECK(default_symbol_cache_dir() == std::string(home) + "/.cache/sprof");
  }
  if (xdg) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

}  // namespace
}  // namespace sprof::symbolicator
