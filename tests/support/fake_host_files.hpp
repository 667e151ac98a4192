// tests/support/fake_host_files.hpp
//
// A `convert::HostFiles` that serves only what a test put in it, from memory: binaries as ELF
// bytes (identity and CFI are read from the bytes by sprof::elf, as for the vdso), text files
// with their modification times, and a vdso image. Everything else is missing, as a file that
// was deleted after the recording would be. Converter tests use it instead of the disk.
#pragma once

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/host.hpp"

namespace sprof::test {

class FakeHostFiles final : public convert::HostFiles {
 public:
  void add_binary(const std::string& path, std::vector<uint8_t> elf) {
    binaries_[path] = std::make_shared<const std::vector<uint8_t>>(std::move(elf));
  }
  // A binary with the bytes of a real file (e.g. the test's own executable), under its path.
  void add_binary_from_disk(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    add_binary(path, std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
  }
  void add_file(const std::string& path, std::string content, double modified_wall_ms = 0) {
    files_[path] = File{std::move(content), modified_wall_ms};
  }
  void set_vdso(std::vector<uint8_t> image) {
    vdso_ = std::make_shared<const std::vector<uint8_t>>(std::move(image));
  }

  // Every path the converter asked about, in order (binaries and files alike).
  const std::vector<std::string>& requests() const { return requests_; }

  Result<elf::ModuleIdentity> module_identity(const std::string& path) override {
    requests_.push_back(path);
    const auto it = binaries_.find(path);
    if (it == binaries_.end()) return missing(path);
    return elf::read_module_identity(std::span<const uint8_t>(*it->second));
  }
  Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) override {
    requests_.push_back(path);
    const auto it = binaries_.find(path);
    if (it == binaries_.end()) return missing(path);
    return elf::CfiModule::open_image(*it->second);
  }
  std::shared_ptr<const std::vector<uint8_t>> vdso_image() override { return vdso_; }
  Result<std::string> read_file(const std::string& path, size_t max_bytes) override {
    requests_.push_back(path);
    const auto it = files_.find(path);
    if (it == files_.end()) return missing(path);
    if (it->second.content.size() > max_bytes) return fail(Errc::kMalformed, path + ": too large");
    return it->second.content;
  }
  std::optional<double> modified_wall_ms(const std::string& path) override {
    const auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second.modified_wall_ms;
  }

 private:
  struct File {
    std::string content;
    double modified_wall_ms = 0;
  };
  static Unexpected missing(const std::string& path) {
    return fail(Errc::kNotFound, "not in the fake host: " + path);
  }

  std::map<std::string, std::shared_ptr<const std::vector<uint8_t>>> binaries_;
  std::map<std::string, File> files_;
  std::shared_ptr<const std::vector<uint8_t>> vdso_;
  std::vector<std::string> requests_;
};

}  // namespace sprof::test
