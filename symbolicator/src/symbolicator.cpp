// The Symbolicator: a thread-safe cache of SymbolMaps keyed by (debugName, breakpadId).
// The cache mutex is held only to find or insert an entry; each entry is built once, outside the
// cache lock, under its own once-flag, so different modules build in parallel and concurrent
// requests for the same module wait for one build. An entry built while a debuginfod download
// for its module was still running is provisional: the first request after the download
// finished replaces it with a fresh build.
#include "sprof/symbolicator/symbolicator.hpp"

#include <atomic>
#include <cctype>
#include <map>
#include <mutex>

#include "cache_filler.hpp"
#include "debuginfod_fetcher.hpp"
#include "jit_symbol_map.hpp"
#include "kernel_symbol_map.hpp"
#include "module_index_codec.hpp"
#include "module_symbol_map.hpp"
#include "sprof/core/build_id.hpp"
#include "sprof/core/log.hpp"
#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "symbol_cache.hpp"

namespace sprof::symbolicator {
namespace {

using MapResult = Result<std::shared_ptr<const SymbolMap>>;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

struct Symbolicator::Impl {
  struct Entry {
    std::once_flag once;
    std::optional<MapResult> result;
    std::string pending_download;  // build-id whose download was still running when built
    std::atomic<bool> built{false};
  };
  using Key = std::pair<std::string, std::string>;  // (debug name, uppercase breakpad id)

  explicit Impl(SymbolicatorOptions o)
      : options(std::move(o)),
        locator(
            elf::LocatorOptions{options.symbol_dirs, options.debug_roots, options.search_trace}) {
    if (!options.symbol_cache_dir.empty()) {
      symbol_cache = std::make_unique<detail::SymbolCache>(options.symbol_cache_dir,
                                                           options.symbol_cache_max_bytes);
      cache_filler = std::make_unique<detail::CacheFiller>(*symbol_cache);
    }
    if (!options.debuginfod.urls.empty()) {
      fetcher = std::make_unique<detail::DebuginfodFetcher>(options.debuginfod);
    }
  }

  ~Impl() {
    if (!cache_filler) return;
    auto unsaved = cache_filler->stop();
    // The directory is there for whoever saves them (sprof cache fill makes none).
    if (!unsaved.empty() && options.unsaved_symbol_cache && symbol_cache->make_directory()) {
      options.unsaved_symbol_cache(std::move(unsaved));
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  MapResult build(const std::string& debug_name, const std::string& breakpad_id,
                  const std::vector<std::string>& candidates, const std::string& code_id,
                  Entry& entry) const {
    if (debug_name == elf::kKernelDebugName) return build_kernel(breakpad_id, candidates);
    if (detail::JitSymbolMap::handles(debug_name)) {
      return build_jit(debug_name, breakpad_id, candidates);
    }
    auto located = locator.locate(debug_name, breakpad_id, candidates);
    if (fetcher) {
      located =
          with_downloads(debug_name, breakpad_id, candidates, code_id, std::move(located), entry);
    }
    if (!located) return std::move(located).error();
    // A map built while a download was pending is replaced once it finishes: not worth saving.
    const bool provisional = !entry.pending_download.empty();
    return build_located(*located, debug_name, breakpad_id, provisional);
  }

  // The module's map from the symbol cache, else from its files (queued to be saved).
  MapResult build_located(const elf::LocatedModule& located, const std::string& debug_name,
                          const std::string& breakpad_id, bool provisional) const {
    if (!symbol_cache) return build_from_files(located, debug_name);
    const std::string key = detail::SymbolCache::key_for(located);
    std::shared_ptr<const detail::ModuleSymbolMap> shared = load_module(key, located, debug_name);
    if (!shared) {
      auto map = detail::ModuleSymbolMap::build(located, debug_name);
      if (!map) return std::move(map).error();
      shared = std::move(*map);
    }
    // A map from a partial file is completed and saved the same way as one built from the files.
    if (!provisional && !shared->from_whole_cache_file()) {
      SymbolCacheRequest request{debug_name, breakpad_id, located.binary_path, located.debug_path};
      cache_filler->add(
          {std::move(request), key,
           [shared, key](const std::atomic<bool>& stop) -> std::optional<std::string> {
             if (!shared->read_all(stop)) return std::nullopt;
             return detail::encode_module_index(*shared, key);
           },
           [shared, key]() -> std::optional<std::string> {
             // A partial file's map that read nothing more would write the same file again.
             if (shared->from_symbol_cache() && shared->read_from_dwarf() == 0) {
               return std::nullopt;
             }
             return detail::encode_module_index(*shared, key);
           }});
    }
    return std::shared_ptr<const SymbolMap>(std::move(shared));
  }

  static MapResult build_from_files(const elf::LocatedModule& located,
                                    const std::string& debug_name) {
    auto map = detail::ModuleSymbolMap::build(located, debug_name);
    if (!map) return std::move(map).error();
    return std::shared_ptr<const SymbolMap>(std::move(*map));
  }

  std::shared_ptr<const detail::ModuleSymbolMap> load_module(const std::string& key,
                                                             const elf::LocatedModule& located,
                                                             const std::string& debug_name) const {
    const std::string& debug_file =
        located.debug_path.empty() ? located.symbols_path : located.debug_path;
    return load(key, [&](detail::ModuleIndexFile file) {
      return detail::decode_module_index(std::move(file), key,
                                         {debug_name, debug_file, located.binary_path,
                                          located.debug, located.identity.base_vaddr});
    });
  }

  std::optional<MapResult> load_kernel(const std::string& key, const std::string& path) const {
    auto map = load(key, [&](detail::ModuleIndexFile file) {
      return detail::decode_kernel_index(std::move(file), key, path);
    });
    if (!map) return std::nullopt;
    return std::shared_ptr<const SymbolMap>(std::move(map));
  }

  // The map in the cache's file for `key`, decoded by `decode`; null when there is none. The
  // file is outside input: one that does not decode is logged and rebuilt; one that does is
  // marked used (evicted last).
  template <typename Decode>
  auto load(const std::string& key, const Decode& decode) const
      -> std::remove_cvref_t<decltype(*decode(std::declval<detail::ModuleIndexFile>()))> {
    auto file = symbol_cache->open(key);
    if (!file) return nullptr;
    auto map = decode(detail::ModuleIndexFile{std::move(*file), symbol_cache->path_for(key)});
    if (!map) {
      log::debug("symbol cache: " + symbol_cache->path_for(key) + ": " + map.error().message +
                 "; rebuilding it");
      return nullptr;
    }
    symbol_cache->mark_used(key);
    return std::move(*map);
  }

  // sprof cache fill: the request's files, read whole and saved now.
  Result<bool> fill(const SymbolCacheRequest& request) {
    if (!symbol_cache) return fail(Errc::kInvalidArgument, "no symbol cache directory");
    MapResult map = fail(Errc::kNotFound, request.debug_name);
    if (request.debug_name == elf::kKernelDebugName) {
      map = build_kernel(request.breakpad_id, {request.binary_path});
    } else {
      std::vector<std::string> binaries;
      if (!request.binary_path.empty()) binaries.push_back(request.binary_path);
      std::vector<std::string> debug_files;
      if (!request.debug_path.empty()) debug_files.push_back(request.debug_path);
      SPROF_TRY(const elf::LocatedModule located,
                locator.locate(request.debug_name, request.breakpad_id, binaries, debug_files));
      map = build_located(located, request.debug_name, request.breakpad_id, false);
    }
    if (!map) return std::move(map).error();
    // A module's partial file is completed (build_located queued it); a whole one is done.
    const auto* module = dynamic_cast<const detail::ModuleSymbolMap*>(map->get());
    if (module ? module->from_whole_cache_file() : (*map)->from_symbol_cache()) return false;
    cache_filler->wait_idle();
    return true;
  }

  // Adds what debuginfod has for a module whose debug info or binary is not local: the files
  // if the downloads finish within `wait`, else the local result (and the entry is marked
  // provisional so that a later request rebuilds it).
  Result<elf::LocatedModule> with_downloads(const std::string& debug_name,
                                            const std::string& breakpad_id,
                                            const std::vector<std::string>& candidates,
                                            const std::string& code_id,
                                            Result<elf::LocatedModule> located,
                                            Entry& entry) const {
    const bool need_debug_info = !located || located->debug_path.empty();
    const bool need_executable = !located || located->binary_path.empty();
    if (!need_debug_info && !need_executable) return located;
    // debuginfod knows files by their full build-id: the local file's, else the profile's
    // codeId (checked against the requested breakpad id).
    std::string build_id;
    if (located && located->identity.has_gnu_build_id) {
      build_id = located->identity.build_id.code_id();
    } else if (auto id = BuildId::from_hex(code_id);
               id && elf::breakpad_ids_equal(id->breakpad_id(), breakpad_id)) {
      build_id = id->code_id();
    }
    if (build_id.empty()) return located;
    auto files = fetcher->files(debug_name, build_id, need_debug_info, need_executable,
                                options.debuginfod.wait);
    if (!files) {
      entry.pending_download = build_id;
      return located;
    }
    std::vector<std::string> binaries = candidates;
    if (!files->executable.empty()) binaries.push_back(files->executable);
    std::vector<std::string> debug_files;
    if (!files->debug_info.empty()) debug_files.push_back(files->debug_info);
    if (binaries.size() == candidates.size() && debug_files.empty()) return located;
    auto with_files = locator.locate(debug_name, breakpad_id, binaries, debug_files);
    return with_files ? std::move(with_files) : std::move(located);
  }

  MapResult build_kernel(const std::string& breakpad_id,
                         const std::vector<std::string>& candidates) const {
    // A hinted file path is a saved kallsyms (a profile from an earlier boot); else the live one.
    // Profiles name the kernel lib's path "[kernel.kallsyms]", which is no file.
    std::string path = options.kallsyms_path;
    for (const auto& candidate : candidates) {
      if (!candidate.empty() && candidate.front() == '/') {
        path = candidate;
        break;
      }
    }
    auto notes_id = elf::read_kernel_build_id(options.kernel_notes_path);
    if (notes_id && !elf::breakpad_ids_equal(notes_id->breakpad_id(true), breakpad_id)) {
      return fail(Errc::kNotFound, "kernel build-id " + notes_id->breakpad_id(true) +
                                       " does not match requested " + breakpad_id);
    }
    // The running kernel's symbols are cached under its build-id (symbol_cache.hpp); a saved
    // kallsyms, from another boot, is read as it is.
    const bool cacheable = symbol_cache && notes_id && path == options.kallsyms_path;
    const std::string key = cacheable ? detail::SymbolCache::kernel_key(*notes_id) : "";
    if (cacheable) {
      if (auto cached = load_kernel(key, path)) return std::move(*cached);
    }
    auto text = elf::read_text_file(path);
    if (!text) return std::move(text).error();
    const auto symbols = elf::KernelSymbols::parse(*text);
    auto image = elf::kernel_image_from(symbols, notes_id ? std::move(*notes_id) : BuildId());
    if (!image) return std::move(image).error();
    auto map = detail::KernelSymbolMap::build(symbols, *image, path);
    if (!map) return std::move(map).error();
    if (cacheable) {
      std::shared_ptr<const detail::KernelSymbolMap> shared = *map;
      cache_filler->add(
          {SymbolCacheRequest{std::string(elf::kKernelDebugName), breakpad_id, path, ""}, key,
           [shared, key](const std::atomic<bool>&) -> std::optional<std::string> {
             return detail::encode_kernel_index(*shared, key);
           },
           // The kernel's index takes a few ms: a command that ends first saves it still.
           [shared, key]() -> std::optional<std::string> {
             return detail::encode_kernel_index(*shared, key);
           }});
    }
    return std::shared_ptr<const SymbolMap>(std::move(*map));
  }

  // perf maps and jitdumps are found only through the path the recorder wrote into the lib. The
  // breakpadId's content hash is not checked (the JIT may have appended to the file since); its
  // base address is used (jit_symbol_map.hpp).
  MapResult build_jit(const std::string& debug_name, const std::string& breakpad_id,
                      const std::vector<std::string>& candidates) const {
    if (candidates.empty()) return fail(Errc::kNotFound, debug_name + ": no recorded path");
    auto map = detail::JitSymbolMap::build(candidates.front(), breakpad_id);
    if (!map) return std::move(map).error();
    return std::shared_ptr<const SymbolMap>(std::move(*map));
  }

  // Hinted paths for a module: exact (name, id) matches first, then same-name hints (the
  // locator verifies ids, so a stale hint is harmless).
  std::vector<std::string> candidates_for(const std::string& debug_name,
                                          const std::string& breakpad_id) const {
    std::vector<std::string> exact;
    std::vector<std::string> by_name;
    for (const ModuleHint& hint : options.hints) {
      if (hint.debug_name != debug_name || hint.path.empty()) continue;
      (elf::breakpad_ids_equal(hint.breakpad_id, breakpad_id) ? exact : by_name)
          .push_back(hint.path);
    }
    exact.insert(exact.end(), by_name.begin(), by_name.end());
    return exact;
  }

  // The full build-id a hint gives for the module, if any.
  std::string code_id_for(const std::string& debug_name, const std::string& breakpad_id) const {
    for (const ModuleHint& hint : options.hints) {
      if (hint.debug_name == debug_name && !hint.code_id.empty() &&
          elf::breakpad_ids_equal(hint.breakpad_id, breakpad_id)) {
        return hint.code_id;
      }
    }
    return {};
  }

  // A provisional entry whose download has finished since is stale.
  bool stale(const Entry& entry) const {
    return fetcher && entry.built.load(std::memory_order_acquire) &&
           !entry.pending_download.empty() && fetcher->finished(entry.pending_download);
  }

  SymbolicatorOptions options;
  elf::DebugFileLocator locator;
  std::mutex mutex;  // guards `cache` and `options.hints`
  std::map<Key, std::shared_ptr<Entry>> cache;
  std::unique_ptr<detail::SymbolCache> symbol_cache;  // null without --symbol-cache
  std::unique_ptr<detail::CacheFiller> cache_filler;  // with symbol_cache; destroyed before it
  // Last member: destroyed first, so its thread stops before the rest goes.
  std::unique_ptr<detail::DebuginfodFetcher> fetcher;
};

Symbolicator::Symbolicator(SymbolicatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

Symbolicator::~Symbolicator() = default;

void Symbolicator::add_hint(ModuleHint hint) {
  std::lock_guard lock(impl_->mutex);
  // A module that was not found before may be findable with the new hint.
  const Impl::Key key{hint.debug_name, upper(hint.breakpad_id)};
  if (auto it = impl_->cache.find(key); it != impl_->cache.end()) {
    const auto& entry = it->second;
    if (entry->built.load(std::memory_order_acquire) && !entry->result->has_value()) {
      impl_->cache.erase(it);
    }
  }
  impl_->options.hints.push_back(std::move(hint));
}

void Symbolicator::wait_for_symbol_cache() {
  if (impl_->cache_filler) impl_->cache_filler->wait_idle();
}

Result<bool> Symbolicator::fill_symbol_cache(const SymbolCacheRequest& request) {
  return impl_->fill(request);
}

bool Symbolicator::wait_for_downloads(std::chrono::milliseconds timeout) {
  return !impl_->fetcher || impl_->fetcher->wait_for_all(timeout);
}

Result<std::shared_ptr<const SymbolMap>> Symbolicator::module(const std::string& debug_name,
                                                              const std::string& breakpad_id) {
  std::shared_ptr<Impl::Entry> entry;
  std::vector<std::string> candidates;
  std::string code_id;
  {
    std::lock_guard lock(impl_->mutex);
    auto& slot = impl_->cache[Impl::Key{debug_name, upper(breakpad_id)}];
    if (!slot || impl_->stale(*slot)) slot = std::make_shared<Impl::Entry>();
    entry = slot;
    if (!entry->built.load(std::memory_order_acquire)) {
      candidates = impl_->candidates_for(debug_name, breakpad_id);
      code_id = impl_->code_id_for(debug_name, breakpad_id);
    }
  }
  std::call_once(entry->once, [&] {
    entry->result.emplace(impl_->build(debug_name, breakpad_id, candidates, code_id, *entry));
    if (!entry->result->has_value()) {
      log::debug("symbolicator: " + debug_name + "/" + breakpad_id + ": " +
                 entry->result->error().message);
    }
    entry->built.store(true, std::memory_order_release);
  });
  return *entry->result;
}

}  // namespace sprof::symbolicator
