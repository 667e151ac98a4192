#include "sprof/elf/debug_file_locator.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cctype>
#include <cerrno>
#include <filesystem>

#include "elf_file.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::elf {
namespace {

namespace fs = std::filesystem;

bool is_regular_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The .gnu_debuglink CRC is the standard CRC-32 (the same polynomial zlib's crc32 computes).
std::optional<uint32_t> file_crc32(const std::string& path) {
  auto file = open_untrusted_file(path, Symlinks::kFollow);
  if (!file) return std::nullopt;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const ssize_t n = ::read(file->fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

// The first 16 build-id bytes a breakpad id encodes, as lowercase hex
// (docs/firefox-profiler-format.md, "breakpadId and codeId": undo the u32/u16/u16 byte swap of a
// little-endian file; the result is verified afterwards).
std::string build_id_prefix_hex(std::string_view breakpad_id) {
  if (breakpad_id.size() < 32) return {};
  std::string hex;
  auto take = [&](size_t start, size_t bytes, bool reverse) {
    for (size_t i = 0; i < bytes; ++i) {
      const size_t byte = reverse ? bytes - 1 - i : i;
      for (size_t c = 0; c < 2; ++c) {
        hex.push_back(static_cast<char>(std::tolower(breakpad_id[start + byte * 2 + c])));
      }
    }
  };
  take(0, 4, true);
  take(8, 2, true);
  take(12, 2, true);
  take(16, 8, false);
  for (char c : hex) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
  }
  return hex;
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

SharedElfFile DebugFileLocator::accept(std::string_view module, const std::string& path,
                                       std::string_view breakpad_id, std::string_view role,
                                       bool need_debug_info, ModuleIdentity& identity) const {
  if (!is_regular_file(path)) {
    trace(module, path, "no such file");
    return nullptr;
  }
  auto file = ElfFile::open_shared(path);
  if (!file) {
    trace(module, path, "not readable as ELF: " + file.error().message);
    return nullptr;
  }
  ModuleIdentity read = read_module_identity(**file);
  if (!breakpad_ids_equal(read.breakpad_id(), breakpad_id)) {
    log::debug("symbol file " + path + " has id " + read.breakpad_id() + ", want " +
               std::string(breakpad_id));
    trace(module, path, "build-id differs (" + read.breakpad_id() + ")");
    return nullptr;
  }
  if (need_debug_info && !read.has_debug_info) {
    trace(module, path, "build-id matches, but no debug info");
    return nullptr;
  }
  identity = std::move(read);
  std::string verdict = std::string(role) + ", build-id matches";
  if (!need_debug_info)
    verdict += identity.has_debug_info ? ", with debug info" : ", no debug info";
  trace(module, path, verdict);
  return std::move(*file);
}

bool breakpad_ids_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> DebugFileLocator::build_id_roots() const {
  std::vector<std::string> roots;
  for (const std::string& dir : options_.symbol_dirs) {
    roots.push_back(dir + "/.build-id");
    roots.push_back(dir);  // the user may pass the .build-id directory itself
  }
  for (const std::string& dir : options_.debug_roots) roots.push_back(dir + "/.build-id");
  return roots;
}

LocatedFile DebugFileLocator::find_debug_file(
    const std::string& binary_path, const ModuleIdentity& binary,
    std::span<const std::string> candidate_debug_files) const {
  const std::string_view module = basename_of(binary_path);
  if (binary.has_gnu_build_id) {
    const std::string hex = binary.build_id.code_id();
    if (hex.size() > 2) {
      const std::string relative = hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
      for (const std::string& root : build_id_roots()) {
        const std::string candidate = root + "/" + relative;
        ModuleIdentity debug;
        if (auto file =
                accept(module, candidate, binary.breakpad_id(), "debug file", true, debug)) {
          return {candidate, std::move(file)};
        }
      }
    }
  }
  if (!binary.debuglink.empty()) {
    const fs::path dir = fs::path(binary_path).parent_path();
    std::vector<std::string> candidates = {
        (dir / binary.debuglink).string(),
        (dir / ".debug" / binary.debuglink).string(),
    };
    for (const std::string& root : options_.debug_roots) {
      candidates.push_back(root + fs::absolute(dir).string() + "/" + binary.debuglink);
    }
    for (const std::string& sym_dir : options_.symbol_dirs) {
      candidates.push_back(sym_dir + "/" + binary.debuglink);
    }
    for (const std::string& candidate : candidates) {
      if (candidate == binary_path) continue;
      if (!is_regular_file(candidate)) {
        trace(module, candidate, "no such file (.gnu_debuglink)");
        continue;
      }
      auto file = ElfFile::open_shared(candidate);
      const std::optional<ModuleIdentity> debug =
          file ? std::optional(read_module_identity(**file)) : std::nullopt;
      if (!debug || !debug->has_debug_info) {
        trace(module, candidate, "no debug info (.gnu_debuglink)");
        continue;
      }
      const bool matches = debug->has_gnu_build_id ? debug->build_id == binary.build_id
                                                   : file_crc32(candidate) == binary.debuglink_crc;
      if (matches) {
        trace(module, candidate, "debug file (.gnu_debuglink), matches");
        return {candidate, std::move(*file)};
      }
      log::debug("debuglink candidate " + candidate + " does not match " + binary_path);
      trace(module, candidate, "does not match the binary (.gnu_debuglink)");
    }
  }
  for (const std::string& candidate : candidate_debug_files) {
    ModuleIdentity debug;
    if (auto file = accept(module, candidate, binary.breakpad_id(), "debug file", true, debug)) {
      return {candidate, std::move(file)};
    }
  }
  trace(module, binary_path, "no separate debug file found");
  return {};
}

Result<LocatedModule> DebugFileLocator::locate(
    std::string_view debug_name, std::string_view breakpad_id,
    std::span<const std::string> candidate_binaries,
    std::span<const std::string> candidate_debug_files) const {
  std::vector<std::string> binaries(candidate_binaries.begin(), candidate_binaries.end());
  for (const std::string& dir : options_.symbol_dirs) {
    binaries.push_back(dir + "/" + std::string(debug_name));
  }
  for (const std::string& path : binaries) {
    LocatedModule found;
    found.binary = accept(debug_name, path, breakpad_id, "binary", false, found.identity);
    if (!found.binary) continue;
    found.binary_path = path;
    LocatedFile debug = found.identity.has_debug_info
                            ? LocatedFile{path, found.binary}
                            : find_debug_file(path, found.identity, candidate_debug_files);
    found.debug_path = std::move(debug.path);
    found.debug = std::move(debug.file);
    // A separate debug file normally keeps the full .symtab; a stripped binary may only have
    // .dynsym.
    const bool symbols_in_binary = found.identity.has_symtab || found.debug_path.empty();
    found.symbols_path = symbols_in_binary ? path : found.debug_path;
    found.symbols = symbols_in_binary ? found.binary : found.debug;
    return found;
  }

  // No binary: a given debug file, or one whose build-id starts with the breakpad id's 16 bytes.
  for (const std::string& candidate : candidate_debug_files) {
    LocatedModule found;
    found.debug = accept(debug_name, candidate, breakpad_id, "debug file", true, found.identity);
    if (!found.debug) continue;
    found.debug_path = candidate;
    found.symbols_path = candidate;
    found.symbols = found.debug;
    return found;
  }
  const std::string prefix = build_id_prefix_hex(breakpad_id);
  if (!prefix.empty()) {
    for (const std::string& root : build_id_roots()) {
      const fs::path dir = fs::path(root) / prefix.substr(0, 2);
      std::error_code ec;
      bool any = false;
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix.substr(2), 0) != 0 || !name.ends_with(".debug")) continue;
        any = true;
        LocatedModule found;
        found.debug = accept(debug_name, entry.path().string(), breakpad_id, "debug file", false,
                             found.identity);
        if (!found.debug) continue;
        found.debug_path = entry.path().string();
        found.symbols_path = found.debug_path;
        found.symbols = found.debug;
        return found;
      }
      if (!any) trace(debug_name, (dir / (prefix.substr(2) + "*.debug")).string(), "no such file");
    }
  }
  trace(debug_name, "", "no file with this build-id found");
  return fail(Errc::kNotFound,
              "no file for module " + std::string(debug_name) + "/" + std::string(breakpad_id));
}

}  // namespace sprof::elf
