// sprof/perfdata/build_id_checked_files.hpp
//
// The converter's `HostFiles` for an import: this machine's files (another HostFiles, e.g.
// recorder::LocalFiles), but a binary is only used when it is the one that was recorded. Where the
// perf.data file recorded a build-id for a path, the local file at that path must have it;
// otherwise (rebuilt, upgraded, another machine's file) it is refused: its mapping has no lib and
// no CFI, so stacks through it stop there. Binaries the file has no build-id for (perf record
// keeps only those with samples, so a DWARF stack's callers often have none) are used as they are
// and reported as unverified. The vdso is checked the same way against "[vdso]"'s build-id.
// Marker files, perf maps and jitdumps are read through unchanged.
//
// `checks()` lists every binary asked for and what became of it, for the import's summary.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/perfdata/recorded_build_ids.hpp"

namespace sprof::perfdata {

struct BinaryCheck {
  enum class Outcome { kMatched, kRefused, kMissing, kUnverified };
  std::string path;
  Outcome outcome = Outcome::kMissing;
  std::string detail;  // why refused or missing
};

class BuildIdCheckedFiles final : public convert::HostFiles {
 public:
  // `local` and `recorded` must outlive this; `recorded` may grow while records are read.
  BuildIdCheckedFiles(convert::HostFiles& local, const RecordedBuildIds& recorded)
      : local_(local), recorded_(recorded) {}

  Result<elf::ModuleIdentity> module_identity(const std::string& path) override;
  Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) override;
  Result<std::vector<elf::ElfSymbol>> function_symbols(const std::string& path) override;
  std::shared_ptr<const std::vector<uint8_t>> vdso_image() override;
  Result<std::string> read_file(const std::string& path, size_t max_bytes) override {
    return local_.read_file(path, max_bytes);
  }
  std::optional<double> modified_wall_ms(const std::string& path) override {
    return local_.modified_wall_ms(path);
  }

  // Every binary asked for, by path.
  std::vector<BinaryCheck> checks() const;

 private:
  struct Checked {
    Result<elf::ModuleIdentity> identity;
    BinaryCheck check;
  };
  const Checked& check(const std::string& path);

  convert::HostFiles& local_;
  const RecordedBuildIds& recorded_;
  std::map<std::string, Checked> checked_;
  std::optional<BinaryCheck> vdso_check_;
};

// "[vdso]": the name perf's build-id list gives the vdso.
inline constexpr const char* kVdsoName = "[vdso]";

}  // namespace sprof::perfdata
