#include "perf_data_input.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>

#include "sprof/perfdata/perf_data_import.hpp"
#include "sprof/perfdata/perf_file_format.hpp"
#include "sprof/recorder/local_files.hpp"

namespace sprof::cli {

bool looks_like_perf_data(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[sizeof(uint64_t)] = {};
  if (!in.read(head, sizeof head)) return false;
  uint64_t magic = 0;
  std::memcpy(&magic, head, sizeof magic);
  namespace format = perfdata::format;
  return magic == format::kMagic || magic == format::kMagicSwapped ||
         magic == format::kMagicVersion1;
}

Result<profile::Profile> import_perf_data_file(const std::string& path,
                                               const SymbolSources& symbols) {
  SPROF_TRY(perfdata::FileBytes bytes, perfdata::FileBytes::open(path));
  recorder::LocalFiles local(symbols.symbol_dirs);  // also the unwinder's debug files
  perfdata::ImportOptions options;
  // A long recording's samples wait on disk, as in `sprof import`, not all in memory.
  options.sample_spill = profile::SampleSpill::open_temporary();
  SPROF_TRY(perfdata::ImportedProfile imported, perfdata::import_perf_data(bytes, local, options));
  return std::move(imported.profile);
}

}  // namespace sprof::cli
