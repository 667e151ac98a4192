// sprof/elf/debug_file_locator.hpp
//
// Finds the files that describe a module the profile names as (debugName, breakpadId):
//   the binary  - a candidate path (from the profile's libs) or <symbol dir>/<debugName>, accepted
//                 only if its breakpad id equals the requested one;
//   debug info  - the binary itself if it has .debug_info; else a separate file from a build-id
//                 tree (<root>/.build-id/xx/rest.debug under each symbol dir and /usr/lib/debug),
//                 or via .gnu_debuglink (beside the binary, its .debug/ subdir,
//                 /usr/lib/debug/<binary dir>/, each symbol dir). A separate file is accepted only
//                 if its build-id matches (or, without a build-id, its CRC-32 matches the link).
// Without any binary, the build-id trees are searched by the breakpad id's 16-byte prefix.
// Debug files found elsewhere (downloaded from debuginfod) are passed as candidates and checked
// after the local places, by build-id like the rest.
// Each file is opened once: the file a search accepts is handed back opened, for the readers
// that follow (sprof/elf/elf_file_handle.hpp).
// Stateless apart from its options; safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/elf_file_handle.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::elf {

// Where a search looked and what it found there, for `sprof -v`: the module searched for (its
// debugName, or a binary's file name when looking for that binary's debug file), a file that was
// considered, and why it was taken or not ("no such file", "build-id differs", ...). Called from
// whichever thread searches.
using LocatorTrace =
    std::function<void(std::string_view module, std::string_view path, std::string_view verdict)>;

struct LocatorOptions {
  std::vector<std::string> symbol_dirs;  // searched before the system roots
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  LocatorTrace trace;  // optional
};

// A file a search accepted, and the handle it was opened through (null when none was found).
struct LocatedFile {
  std::string path;
  SharedElfFile file;
};

struct LocatedModule {
  std::string binary_path;   // empty when only a debug file was found
  std::string debug_path;    // a file with .debug_info; empty when there is none
  std::string symbols_path;  // the file whose .symtab/.dynsym to read
  ModuleIdentity identity;   // of the binary if found, else of the debug file
  // The files above as the search opened them (null where the path is empty); `symbols` is
  // one of the other two.
  SharedElfFile binary;
  SharedElfFile debug;
  SharedElfFile symbols;
};

class DebugFileLocator {
 public:
  explicit DebugFileLocator(LocatorOptions options) : options_(std::move(options)) {}

  // `candidate_binaries` are paths the module was loaded from, tried first. kNotFound if no file
  // with a matching id exists.
  Result<LocatedModule> locate(std::string_view debug_name, std::string_view breakpad_id,
                               std::span<const std::string> candidate_binaries,
                               std::span<const std::string> candidate_debug_files = {}) const;

  // The separate debug file for an already identified binary; an empty path if none is found.
  LocatedFile find_debug_file(const std::string& binary_path, const ModuleIdentity& binary,
                              std::span<const std::string> candidate_debug_files = {}) const;

 private:
  std::vector<std::string> build_id_roots() const;
  // `path` opened, if it is a regular file whose breakpad id is `breakpad_id` (filling
  // `identity`) and, with `need_debug_info`, has .debug_info; else null. Traced as a `role`
  // ("binary", "debug file").
  SharedElfFile accept(std::string_view module, const std::string& path,
                       std::string_view breakpad_id, std::string_view role, bool need_debug_info,
                       ModuleIdentity& identity) const;
  void trace(std::string_view module, std::string_view path, std::string_view verdict) const {
    if (options_.trace) options_.trace(module, path, verdict);
  }

  LocatorOptions options_;
};

// Breakpad ids compare case-insensitively (the profile echoes whatever the recorder wrote).
bool breakpad_ids_equal(std::string_view a, std::string_view b);

}  // namespace sprof::elf
