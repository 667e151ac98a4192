// symbolicator/elf/src/eh_frame_hdr_check.cpp
//
// Header layout (LSB 5.0): u8 version (1), u8 eh_frame_ptr_enc, u8 fde_count_enc, u8 table_enc,
// encoded eh_frame_ptr, encoded fde_count, then fde_count pairs (initial_location, fde_address)
// in table_enc, sorted by initial_location. Data-relative values are relative to the header's
// own address.
#include "eh_frame_hdr_check.hpp"

#include <vector>

namespace sprof::elf::detail {
namespace {

constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeUleb128 = 0x01;
constexpr uint8_t kPeSigned = 0x08;

}  // namespace

std::string eh_frame_hdr_problem(const EhFrameHdr& hdr, const CfiSectionIndex& eh_frame) {
  const auto& b = hdr.bytes;
  if (b.size() < 4) return ".eh_frame_hdr is shorter than its header";
  // libdw fails the whole .eh_frame on these two (parse_eh_frame_hdr returns -1).
  if (b[0] != 1) return ".eh_frame_hdr has version " + std::to_string(b[0]);
  const uint8_t eh_frame_ptr_encoding = b[1];
  const uint8_t fde_count_encoding = b[2];
  const uint8_t table_encoding = b[3];
  size_t pos = 4;
  const auto eh_frame_ptr = read_encoded_value(b, pos, eh_frame_ptr_encoding, hdr.address_size,
                                               hdr.address, hdr.address);
  if (!eh_frame_ptr) return ".eh_frame_hdr's eh_frame_ptr does not decode";

  // The cases in which libdw ignores the table and scans .eh_frame itself.
  if (fde_count_encoding == kPeOmit || table_encoding == kPeOmit ||
      (table_encoding & ~kPeSigned) == kPeUleb128 || *eh_frame_ptr != hdr.eh_frame_address) {
    return {};
  }
  const auto fde_count = read_encoded_value(b, pos, fde_count_encoding, hdr.address_size,
                                            hdr.address, hdr.address);
  if (!fde_count) return ".eh_frame_hdr's fde_count does not decode";
  if (*fde_count == 0) return {};
  const auto value_size = encoded_value_size(table_encoding, hdr.address_size);
  if (!value_size) return ".eh_frame_hdr's table encoding has no fixed size";
  if (*fde_count > (b.size() - pos) / (2u * *value_size)) {
    return ".eh_frame_hdr claims " + std::to_string(*fde_count) + " entries, more than it holds";
  }

  std::vector<bool> listed(eh_frame.fdes.size(), false);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < *fde_count; ++i) {
    const auto initial = read_encoded_value(b, pos, table_encoding, hdr.address_size,
                                            hdr.address, hdr.address);
    const auto fde_address = read_encoded_value(b, pos, table_encoding, hdr.address_size,
                                                hdr.address, hdr.address);
    const std::string entry = ".eh_frame_hdr entry " + std::to_string(i);
    if (!initial || !fde_address) return entry + " does not decode";
    if (i > 0 && *initial < previous) return entry + " is out of order";
    previous = *initial;
    const FdeEntry* fde = fde_address >= hdr.eh_frame_address
                              ? fde_at_offset(eh_frame, *fde_address - hdr.eh_frame_address)
                              : nullptr;
    if (fde == nullptr) return entry + " does not point at an FDE";
    if (fde->pc_begin != *initial) return entry + " disagrees with its FDE's start";
    listed[static_cast<size_t>(fde - eh_frame.fdes.data())] = true;
  }
  for (size_t i = 0; i < eh_frame.fdes.size(); ++i) {
    if (!listed[i] && eh_frame.fdes[i].pc_range != 0) {
      return ".eh_frame_hdr's table leaves out the FDE at .eh_frame offset " +
             std::to_string(eh_frame.fdes[i].offset);
    }
  }
  return {};
}

}  // namespace sprof::elf::detail
