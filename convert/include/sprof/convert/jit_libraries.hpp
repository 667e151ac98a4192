// sprof/convert/jit_libraries.hpp
//
// Libs for JIT code, so its frames are symbolicated through the symbol server like any other
// (docs/firefox-profiler-format.md, "Frames in no lib (JIT)"). A JIT names its code in a perf map
// (/tmp/perf-<pid>.map, found by pid) or a jitdump (jit-<pid>.dump, found through the MMAP
// record of the JIT mapping it); see sprof/core/jit_symbol_file.hpp for both formats.
//
// For each such file of a process, the converter adds libs covering the code the file names:
//   name = debugName = the file's basename ("perf-1234.map"; the symbolicator recognises it),
//   path = debugPath = the file,
//   breakpadId = jit_breakpad_id(base, hash of the file): the front end keeps relative
//   addresses in 32 bits, so relative = AVMA - base, and the symbolicator reads the base back
//   from the id. Code spread over more than 4 GiB gets one base (and id) per window.
// Libs must not overlap (docs/firefox-profiler-format.md, "libs"): code ranges are grouped into one
// lib per run of ranges with no real lib between them, and ranges overlapping a real lib are left
// out.
//
// The files are read through the host (host.hpp) when the recording ends, and again by the
// symbolicator when the profile is
// served: symbols resolve while the files exist (JITs leave them in /tmp; sprof does not copy
// them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/core/jit_symbol_file.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

class JitLibraries {
 public:
  struct Options {
    std::string perf_map_dir = "/tmp";
    // A perf map last written before this wall-clock time belongs to an earlier process that
    // had the same pid; ignored (except for attached processes, which predate the recording).
    double min_mtime_wall_ms = 0;
  };
  JitLibraries(Options options, HostFiles& files) : options_(std::move(options)), files_(files) {}
  // Perf maps in /tmp, written since `origin_wall_ms` (less a second: file times come from a
  // coarse clock that may lag the recorder's reading).
  static JitLibraries for_recording(double origin_wall_ms, HostFiles& files) {
    return JitLibraries(Options{"/tmp", origin_wall_ms - 1000.0}, files);
  }

  // Remembers `path` if it is a jitdump; true if it is.
  bool note_mmap(uint32_t pid, const std::string& path);
  void note_attached(uint32_t pid) { attached_.insert(pid); }

  // Adds libs for `pid`'s JIT code to `libs`; `libs` stays sorted by start. Returns the libs
  // it added (for `mark_jit_frames`).
  std::vector<profile::Library> add_libraries(uint32_t pid,
                                              std::vector<profile::Library>& libs) const;

 private:
  std::vector<std::string> files_of(uint32_t pid) const;

  Options options_;
  HostFiles& files_;
  std::unordered_map<uint32_t, std::vector<std::string>> jitdumps_;  // pid -> paths
  std::unordered_set<uint32_t> attached_;
};

// The libs for `symbols` (read from `path`, whose content hashes to `content_hash`), avoiding
// every range in `existing`. Pure.
std::vector<profile::Library> jit_libraries_for(const std::vector<JitSymbol>& symbols,
                                                const std::string& path, uint64_t content_hash,
                                                const std::vector<profile::Library>& existing);

// Puts `thread`'s User frames whose address lies in one of `jit_libs` into the JIT category, so
// the Firefox Profiler's category graph and call tree show JIT code as such (the stack table's
// category follows its frame's in both writers). Frames are interned as User while converting
// because the JIT ranges are only known once the recording ends; this pass runs then. Idle
// (off-CPU leaf) and Kernel frames keep their category.
void mark_jit_frames(const std::vector<profile::Library>& jit_libs, profile::Thread& thread);

}  // namespace sprof::convert
