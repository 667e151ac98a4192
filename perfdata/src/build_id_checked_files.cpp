#include "sprof/perfdata/build_id_checked_files.hpp"

#include <algorithm>

namespace sprof::perfdata {

namespace {

// Checks `identity` (of the local file standing for `path`) against what was recorded for it.
BinaryCheck compare(const std::string& path, const elf::ModuleIdentity& identity,
                    const std::vector<BuildId>* recorded) {
  BinaryCheck c;
  c.path = path;
  if (recorded == nullptr || recorded->empty()) {
    c.outcome = BinaryCheck::Outcome::kUnverified;
    return c;
  }
  const bool match = identity.has_gnu_build_id && std::find(recorded->begin(), recorded->end(),
                                                            identity.build_id) != recorded->end();
  if (match) {
    c.outcome = BinaryCheck::Outcome::kMatched;
    return c;
  }
  c.outcome = BinaryCheck::Outcome::kRefused;
  c.detail = "recorded build-id " + recorded->front().code_id() + ", the file here has " +
             (identity.has_gnu_build_id ? identity.build_id.code_id() : std::string("none"));
  return c;
}

}  // namespace

const BuildIdCheckedFiles::Checked& BuildIdCheckedFiles::check(const std::string& path) {
  const auto it = checked_.find(path);
  if (it != checked_.end()) return it->second;
  auto identity = local_.module_identity(path);
  Checked c{identity, {}};
  if (!identity) {
    c.check = BinaryCheck{path, BinaryCheck::Outcome::kMissing, identity.error().message};
  } else {
    c.check = compare(path, *identity, recorded_.find(path));
    if (c.check.outcome == BinaryCheck::Outcome::kRefused) {
      c.identity =
          fail(Errc::kNotFound, path + ": not the recorded binary (" + c.check.detail + ")");
    }
  }
  return checked_.emplace(path, std::move(c)).first->second;
}

Result<elf::ModuleIdentity> BuildIdCheckedFiles::module_identity(const std::string& path) {
  return check(path).identity;
}

Result<std::unique_ptr<elf::CfiModule>> BuildIdCheckedFiles::module_cfi(const std::string& path) {
  const Checked& c = check(path);
  if (!c.identity) return c.identity.error();
  return local_.module_cfi(path);
}

Result<std::vector<elf::ElfSymbol>> BuildIdCheckedFiles::function_symbols(const std::string& path) {
  const Checked& c = check(path);
  if (!c.identity) return c.identity.error();
  return local_.function_symbols(path);
}

std::shared_ptr<const std::vector<uint8_t>> BuildIdCheckedFiles::vdso_image() {
  auto image = local_.vdso_image();
  if (!image) {
    vdso_check_ = BinaryCheck{kVdsoName, BinaryCheck::Outcome::kMissing, "no vdso image here"};
    return nullptr;
  }
  auto identity = elf::read_module_identity(std::span<const uint8_t>(*image));
  if (!identity) {
    vdso_check_ = BinaryCheck{kVdsoName, BinaryCheck::Outcome::kMissing, identity.error().message};
    return nullptr;
  }
  vdso_check_ = compare(kVdsoName, *identity, recorded_.find(kVdsoName));
  if (vdso_check_->outcome == BinaryCheck::Outcome::kRefused) return nullptr;
  return image;
}

std::vector<BinaryCheck> BuildIdCheckedFiles::checks() const {
  std::vector<BinaryCheck> out;
  for (const auto& [path, c] : checked_) out.push_back(c.check);
  if (vdso_check_) out.push_back(*vdso_check_);
  return out;
}

}  // namespace sprof::perfdata
