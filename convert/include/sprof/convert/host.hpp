// sprof/convert/host.hpp
//
// What the converter needs from the machine the records were recorded on and cannot find in the
// records themselves: the /proc view of processes the records do not describe (names, executable
// mappings and command lines of processes that already ran), and the files the processes used
// (their binaries, for libs and unwinding; the marker files, perf maps and jitdumps they wrote).
//
// The converter makes no system calls of its own; it asks through these two interfaces. A live
// recording answers from this machine (`recorder::LocalFiles`, `recorder::live_proc_access`),
// an import of a recorded file from what the file holds and from the binaries here whose
// build-ids match it, and tests from fakes. Binaries are handed over as sprof::elf objects:
// sprof::elf is the only code that parses ELF, whoever supplies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/cfi_module.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/unwind/module_cfi_source.hpp"

namespace sprof::convert {

// The name the kernel's idle task (pid 0, "swapper/N" on each CPU) gets in system-wide profiles,
// live or imported.
inline constexpr std::string_view kIdleProcessName = "System";

// /proc of the recorded machine, for tasks the record stream does not describe (threads that
// existed before recording started, mappings of attached processes, exec command lines). Each
// member may be unset: the converter then does without (a thread keeps its process's name, a
// mapping stays unknown, an exec marker shows the comm).
struct ProcAccess {
  std::function<std::optional<std::string>(uint32_t pid, uint32_t tid)> read_comm;
  // Executable mappings: (path, start, end, pgoff).
  struct Map {
    std::string path;
    uint64_t start, end, pgoff;
  };
  std::function<std::vector<Map>(uint32_t pid)> read_exec_maps;
  // The command line's arguments (argv), for exec markers and process names.
  std::function<std::optional<std::vector<std::string>>(uint32_t pid)> read_argv;
};

// The files the recorded processes used, by the path their records name. Also the unwinder's
// source of CFI (`unwind::ModuleCfiSource::module_cfi`, asked once per path).
class HostFiles : public unwind::ModuleCfiSource {
 public:
  // A mapped binary's ELF identity (build-id, load segments): the profile's lib and the
  // mapping's bias. An error means the binary is not available (deleted, unreadable, or not the
  // file that was recorded); the mapping then has no lib and no CFI.
  virtual Result<elf::ModuleIdentity> module_identity(const std::string& path) = 0;
  // A mapped binary's function symbols (.symtab and .dynsym), for the allocation wrappers'
  // addresses (allocator_frames.hpp). A host that has none to offer (a test's fake) leaves it:
  // allocation stacks then keep the wrappers' frames.
  virtual Result<std::vector<elf::ElfSymbol>> function_symbols(const std::string& path) {
    return fail(Errc::kNotFound, path + ": no symbols from this host");
  }
  // The vdso image the processes mapped ("[vdso]" is not a file), or nullptr when unknown.
  virtual std::shared_ptr<const std::vector<uint8_t>> vdso_image() = 0;

  // A file a program wrote for the profiler (a user marker file, a perf map, a jitdump), read
  // whole; an error when it is missing, unreadable or larger than `max_bytes`.
  virtual Result<std::string> read_file(const std::string& path, size_t max_bytes) = 0;
  // When that file was last written, in wall-clock ms since the epoch; nullopt when it does not
  // exist.
  virtual std::optional<double> modified_wall_ms(const std::string& path) = 0;
};

}  // namespace sprof::convert
