// Fuzz target: `sprof import`'s reader (sprof::perfdata): a perf.data file is whatever the user
// hands us (made by another perf version, cut short, or hostile). Each input is imported whole, as
// file bytes, twice: looked at in place (a mapped file) and read in small chunks (a file that could
// not be mapped), with no binaries on hand (the fake host has no files). Crashes, sanitizer
// reports, hangs and unbounded memory are findings; errors are the expected outcome for most
// inputs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "read_only_bytes.hpp"
#include "sprof/convert/host.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/perf_data_import.hpp"

using namespace sprof;

namespace {

// A machine without the recorded binaries: every lookup fails, as for a file from elsewhere.
class NoHostFiles final : public convert::HostFiles {
 public:
  Result<elf::ModuleIdentity> module_identity(const std::string& path) override {
    return fail(Errc::kNotFound, path);
  }
  Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) override {
    return fail(Errc::kNotFound, path);
  }
  std::shared_ptr<const std::vector<uint8_t>> vdso_image() override { return nullptr; }
  Result<std::string> read_file(const std::string& path, size_t) override {
    return fail(Errc::kNotFound, path);
  }
  std::optional<double> modified_wall_ms(const std::string&) override { return std::nullopt; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  NoHostFiles host;
  {
    perfdata::MemoryBytes in_place(bytes, "fuzz.data");
    (void)perfdata::import_perf_data(in_place, host, perfdata::ImportOptions{});
  }
  {
    test::ReadOnlyBytes chunked(bytes, "fuzz.data");
    perfdata::ImportOptions options;
    options.reading.chunk_bytes = 1;  // the smallest buffer: one maximal record
    options.reading.max_round_bytes = 4096;
    (void)perfdata::import_perf_data(chunked, host, options);
  }
  return 0;
}
