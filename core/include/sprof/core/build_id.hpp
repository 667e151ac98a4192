// sprof/core/build_id.hpp
//
// Module identities as the Firefox Profiler and the symbol server exchange them:
//   BuildId    - the raw NT_GNU_BUILD_ID note bytes (usually 20).
//   breakpadId - 33 uppercase hex characters: the first 16 bytes with the first three fields
//                (u32, u16, u16) byte-swapped from the ELF's endianness to big-endian, then the
//                age "0" (docs/firefox-profiler-format.md, "breakpadId and codeId"; matches samply
//                and Breakpad).
//   codeId     - the full build-id as lowercase hex.
// Files without a build-id get an identity from XOR-folding the first 4096 bytes of .text into
// 16 bytes (samply's fallback), so identical files still share an identity.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sprof {

class BuildId {
 public:
  BuildId() = default;
  explicit BuildId(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

  // XOR-folds `text` (the first 4096 bytes of .text are used) into a 16-byte identity.
  static BuildId from_text_fold(std::span<const uint8_t> text);
  // Parses lowercase or uppercase hex; nullopt on odd length or a non-hex character.
  static std::optional<BuildId> from_hex(std::string_view hex);

  bool empty() const { return bytes_.empty(); }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // The 33-character breakpad debug id. `little_endian` is the ELF file's data encoding.
  std::string breakpad_id(bool little_endian = true) const;
  // Lowercase hex of all bytes.
  std::string code_id() const;

  bool operator==(const BuildId&) const = default;

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace sprof
