#include "sprof/elf/debug_file_locator.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cctype>
#include <filesystem>
#include <cerrno>

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

// The first 16 build-id bytes a breakpad id encodes, as lowercase hex (contract section 3.4:
// undo the u32/u16/u16 byte swap of a little-endian file; the result is verified afterwards).
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

bool identity_matches(const std::string& path, std::string_view breakpad_id,
                      ModuleIdentity* out = nullptr) {
  auto identity = read_module_identity(path);
  if (!identity) return false;
  if (!breakpad_ids_equal(identity->breakpad_id(), breakpad_id)) {
    log::debug("symbol file " + path + " has id " + identity->breakpad_id() + ", want " +
               std::string(breakpad_id));
    return false;
  }
  if (out != nullptr) *out = std::move(*identity);
  return true;
}

}  // namespace

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

std::string DebugFileLocator::find_debug_file(
    const std::string& binary_path, const ModuleIdentity& binary,
    std::span<const std::string> candidate_debug_files) const {
  if (binary.has_gnu_build_id) {
    const std::string hex = binary.build_id.code_id();
    if (hex.size() > 2) {
      const std::string relative = hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
      for (const std::string& root : build_id_roots()) {
        const std::string candidate = root + "/" + relative;
        ModuleIdentity debug;
        if (is_regular_file(candidate) && identity_matches(candidate, binary.breakpad_id(), &debug) &&
            debug.has_debug_info) {
          return candidate;
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
      if (candidate == binary_path || !is_regular_file(candidate)) continue;
      auto debug = read_module_identity(candidate);
      if (!debug || !debug->has_debug_info) continue;
      const bool matches = debug->has_gnu_build_id
                               ? debug->build_id == binary.build_id
                               : file_crc32(candidate) == binary.debuglink_crc;
      if (matches) return candidate;
      log::debug("debuglink candidate " + candidate + " does not match " + binary_path);
    }
  }
  for (const std::string& candidate : candidate_debug_files) {
    ModuleIdentity debug;
    if (is_regular_file(candidate) &&
        identity_matches(candidate, binary.breakpad_id(), &debug) && debug.has_debug_info) {
      return candidate;
    }
  }
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
    if (!is_regular_file(path) || !identity_matches(path, breakpad_id, &found.identity)) continue;
    found.binary_path = path;
    found.debug_path = found.identity.has_debug_info
                           ? path
                           : find_debug_file(path, found.identity, candidate_debug_files);
    // A separate debug file normally keeps the full .symtab; a stripped binary may only have
    // .dynsym.
    found.symbols_path = found.identity.has_symtab || found.debug_path.empty() ? path
                                                                               : found.debug_path;
    return found;
  }

  // No binary: a given debug file, or one whose build-id starts with the breakpad id's 16 bytes.
  for (const std::string& candidate : candidate_debug_files) {
    LocatedModule found;
    if (!is_regular_file(candidate) || !identity_matches(candidate, breakpad_id, &found.identity) ||
        !found.identity.has_debug_info) {
      continue;
    }
    found.debug_path = candidate;
    found.symbols_path = candidate;
    return found;
  }
  const std::string prefix = build_id_prefix_hex(breakpad_id);
  if (!prefix.empty()) {
    for (const std::string& root : build_id_roots()) {
      const fs::path dir = fs::path(root) / prefix.substr(0, 2);
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix.substr(2), 0) != 0 || !name.ends_with(".debug")) continue;
        LocatedModule found;
        if (!identity_matches(entry.path().string(), breakpad_id, &found.identity)) continue;
        found.debug_path = entry.path().string();
        found.symbols_path = found.debug_path;
        return found;
      }
    }
  }
  return fail(Errc::kNotFound, "no file for module " + std::string(debug_name) + "/" +
                                   std::string(breakpad_id));
}

}  // namespace sprof::elf
