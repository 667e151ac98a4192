// tests/targets/unwind/unwind_snapshot.cpp
#include "unwind_snapshot.hpp"

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sprof/elf/module_identity.hpp"

extern char** environ;

namespace sprof::test {
namespace {

using sprof::unwind::MappedFile;
using sprof::unwind::UserRegs;
using namespace unwind_snapshot;

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Errc::kNotFound, "cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// svma of the first byte of a mapping at file offset `pgoff`, through the PT_LOAD holding it.
Result<Svma> svma_of_offset(const elf::ModuleIdentity& id, uint64_t pgoff) {
  auto svma = id.svma_of_mapping(FileOffset{pgoff}, /*executable=*/true);
  if (!svma) return fail(Errc::kMalformed, "no PT_LOAD maps the offset");
  return *svma;
}

Result<std::vector<UnwindSnapshot>> parse_samples(const std::vector<uint8_t>& bytes) {
  SnapshotFileHeader file{};
  if (bytes.size() < sizeof file) return fail(Errc::kMalformed, "samples.bin too short");
  std::memcpy(&file, bytes.data(), sizeof file);
  if (std::memcmp(file.magic, kMagic, sizeof kMagic) != 0) {
    return fail(Errc::kMalformed, "samples.bin: bad magic");
  }
  std::vector<UnwindSnapshot> out;
  size_t at = sizeof file;
  for (uint32_t i = 0; i < file.sample_count; ++i) {
    SnapshotSampleHeader h{};
    if (bytes.size() - at < sizeof h) return fail(Errc::kMalformed, "samples.bin truncated");
    std::memcpy(&h, bytes.data() + at, sizeof h);
    at += sizeof h;
    if (bytes.size() - at < h.stack_size) return fail(Errc::kMalformed, "stack truncated");
    UnwindSnapshot s;
    s.phase = static_cast<Phase>(h.phase);
    std::copy(std::begin(h.regs), std::end(h.regs), s.regs.regs.begin());
    s.regs.valid = h.regs_mask;
    s.stack_start = h.stack_start;
    s.stack_top = h.stack_top;
    s.stack.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                   bytes.begin() + static_cast<std::ptrdiff_t>(at + h.stack_size));
    at += h.stack_size;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<MapsAddressSpace> MapsAddressSpace::parse(
    const std::string& maps_text, std::shared_ptr<const std::vector<uint8_t>> vdso_image) {
  MapsAddressSpace space;
  std::istringstream lines(maps_text);
  std::string line;
  while (std::getline(lines, line)) {
    // start-end perms offset dev inode [path]
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty()) continue;
    MappedFile file;
    file.start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    file.end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    file.path = path;
    const uint64_t pgoff = std::stoull(offset, nullptr, 16);
    Result<elf::ModuleIdentity> id = fail(Errc::kNotFound, "unmapped");
    if (path == "[vdso]") {
      if (!vdso_image) continue;
      file.vdso_image = vdso_image;
      id = elf::read_module_identity(std::span<const uint8_t>(*vdso_image));
    } else if (path[0] == '/') {
      id = elf::read_module_identity(path);
    } else {
      continue;  // [vsyscall] and friends
    }
    if (!id) return unexpected(id.error().with_context("maps: " + path));
    SPROF_TRY(const Svma svma, svma_of_offset(*id, pgoff));
    file.bias = file.start - svma.value;
    space.mappings_.push_back(std::move(file));
  }
  std::sort(space.mappings_.begin(), space.mappings_.end(),
            [](const MappedFile& a, const MappedFile& b) { return a.start < b.start; });
  return space;
}

const MappedFile* MapsAddressSpace::find(uint64_t avma) const {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), avma,
                             [](uint64_t a, const MappedFile& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return avma < it->end ? &*it : nullptr;
}

std::string SymbolLookup::module_of(uint64_t avma) const {
  const MappedFile* m = space_.find(avma);
  return m ? m->path : std::string();
}

std::string SymbolLookup::name_of(uint64_t avma) {
  const MappedFile* m = space_.find(avma);
  if (m == nullptr || m->vdso_image) return {};
  auto [it, inserted] = symbols_.try_emplace(m->path);
  if (inserted) {
    auto symbols = elf::read_symbols(m->path);
    if (symbols) it->second = std::move(*symbols);
    std::sort(
        it->second.begin(), it->second.end(),
        [](const elf::ElfSymbol& a, const elf::ElfSymbol& b) { return a.address < b.address; });
  }
  const uint64_t svma = m->to_svma(Avma{avma}).value;
  const auto& table = it->second;
  auto sym = std::upper_bound(table.begin(), table.end(), svma,
                              [](uint64_t a, const elf::ElfSymbol& s) { return a < s.address; });
  // Several symbols can share an address; any sized one containing svma will do.
  while (sym != table.begin()) {
    --sym;
    if (sym->size != 0 && svma < sym->address + sym->size) return sym->name;
    if (sym->address + 0x100000 < svma) break;
  }
  return {};
}

Result<SnapshotRun> load_snapshot_run(const std::string& dir) {
  SPROF_TRY(auto sample_bytes, read_file(dir + "/samples.bin"));
  SPROF_TRY(auto maps_bytes, read_file(dir + "/maps.txt"));
  std::shared_ptr<const std::vector<uint8_t>> vdso;
  if (auto vdso_bytes = read_file(dir + "/vdso.bin")) {
    vdso = std::make_shared<const std::vector<uint8_t>>(std::move(*vdso_bytes));
  }
  SnapshotRun run;
  run.dir = dir;
  SPROF_TRY(run.samples, parse_samples(sample_bytes));
  SPROF_TRY(run.space,
            MapsAddressSpace::parse(std::string(maps_bytes.begin(), maps_bytes.end()), vdso));
  return run;
}

Result<SnapshotRun> record_snapshot_run(const std::string& target, int phase_ms) {
  std::string dir_template = "/tmp/sprof-unwind-XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) return unexpected(Error::from_errno("mkdtemp"));
  const std::string ms = std::to_string(phase_ms);
  std::vector<char*> argv = {const_cast<char*>(target.c_str()), dir_template.data(),
                             const_cast<char*>(ms.c_str()), nullptr};
  pid_t pid = 0;
  if (int err = posix_spawn(&pid, target.c_str(), nullptr, nullptr, argv.data(), environ)) {
    return unexpected(Error::from_errno("posix_spawn " + target, err));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return unexpected(Error::from_errno("waitpid"));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return fail(Errc::kInternal, target + " failed with status " + std::to_string(status));
  }
  auto run = load_snapshot_run(dir_template);
  std::error_code ignored;
  std::filesystem::remove_all(dir_template, ignored);  // everything is in memory now
  return run;
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kIdle: return "idle";
    case Phase::kLeaf: return "leaf";
    case Phase::kSharedLib: return "shared-lib";
    case Phase::kLibm: return "libm";
    case Phase::kSignal: return "signal";
    case Phase::kRecursion: return "recursion";
    case Phase::kThread: return "thread";
    case Phase::kVdso: return "vdso";
    case Phase::kQsort: return "qsort";
    case Phase::kCount: break;
  }
  return "?";
}

}  // namespace sprof::test
