// elf/src/eh_frame_hdr_check.cpp
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

// The header as libdw's parse_eh_frame_hdr reads it.
struct DecodedHeader {
  std::string problem;  // libdw rejects the header (and with it the whole .eh_frame)
  // Set when libdw searches the table rather than scanning .eh_frame.
  std::optional<SearchTableLayout> table;
};

struct TableEntry {
  uint64_t initial = 0;
  uint64_t fde_address = 0;
};

// Entry `i` of the table (below `table.count`), both values decoded; nullopt when either does
// not decode.
std::optional<TableEntry> table_entry(const EhFrameHdr& hdr, const SearchTableLayout& table,
                                      uint64_t i) {
  size_t pos = table.first + static_cast<size_t>(i) * 2u * table.value_size;
  const auto initial = read_encoded_value(hdr.bytes, pos, table.encoding, hdr.address_size,
                                          hdr.address, hdr.address);
  const auto fde_address = read_encoded_value(hdr.bytes, pos, table.encoding, hdr.address_size,
                                              hdr.address, hdr.address);
  if (!initial || !fde_address) return std::nullopt;
  return TableEntry{*initial, *fde_address};
}

DecodedHeader decode_header(const EhFrameHdr& hdr) {
  DecodedHeader out;
  const auto& b = hdr.bytes;
  if (b.size() < 4) {
    out.problem = ".eh_frame_hdr is shorter than its header";
    return out;
  }
  // libdw fails the whole .eh_frame on these two (parse_eh_frame_hdr returns -1).
  if (b[0] != 1) {
    out.problem = ".eh_frame_hdr has version " + std::to_string(b[0]);
    return out;
  }
  const uint8_t eh_frame_ptr_encoding = b[1];
  const uint8_t fde_count_encoding = b[2];
  const uint8_t table_encoding = b[3];
  size_t pos = 4;
  const auto eh_frame_ptr =
      read_encoded_value(b, pos, eh_frame_ptr_encoding, hdr.address_size, hdr.address, hdr.address);
  if (!eh_frame_ptr) {
    out.problem = ".eh_frame_hdr's eh_frame_ptr does not decode";
    return out;
  }
  // The cases in which libdw ignores the table and scans .eh_frame itself.
  if (fde_count_encoding == kPeOmit || table_encoding == kPeOmit ||
      (table_encoding & ~kPeSigned) == kPeUleb128 || *eh_frame_ptr != hdr.eh_frame_address) {
    return out;
  }
  const auto fde_count =
      read_encoded_value(b, pos, fde_count_encoding, hdr.address_size, hdr.address, hdr.address);
  if (!fde_count) {
    out.problem = ".eh_frame_hdr's fde_count does not decode";
    return out;
  }
  if (*fde_count == 0) return out;
  const auto value_size = encoded_value_size(table_encoding, hdr.address_size);
  if (!value_size) {
    out.problem = ".eh_frame_hdr's table encoding has no fixed size";
    return out;
  }
  if (*fde_count > (b.size() - pos) / (2 * size_t{*value_size})) {
    out.problem =
        ".eh_frame_hdr claims " + std::to_string(*fde_count) + " entries, more than it holds";
    return out;
  }
  out.table = SearchTableLayout{table_encoding, *value_size, *fde_count, pos};
  return out;
}

}  // namespace

std::string eh_frame_hdr_problem(const EhFrameHdr& hdr, const CfiSectionIndex& eh_frame) {
  const DecodedHeader header = decode_header(hdr);
  if (!header.problem.empty() || !header.table) return header.problem;
  std::vector<bool> listed(eh_frame.fdes.size(), false);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < header.table->count; ++i) {
    const auto e = table_entry(hdr, *header.table, i);
    // Built only for a message: this loop runs once per FDE of the file.
    auto entry = [i] { return ".eh_frame_hdr entry " + std::to_string(i); };
    if (!e) return entry() + " does not decode";
    if (i > 0 && e->initial < previous) return entry() + " is out of order";
    previous = e->initial;
    const FdeEntry* fde = e->fde_address >= hdr.eh_frame_address
                              ? fde_at_offset(eh_frame, e->fde_address - hdr.eh_frame_address)
                              : nullptr;
    if (fde == nullptr) return entry() + " does not point at an FDE";
    if (fde->pc_begin != e->initial) return entry() + " disagrees with its FDE's start";
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

std::optional<EhFrameSearchTable> EhFrameSearchTable::searchable(const EhFrameHdr& hdr,
                                                                 uint64_t eh_frame_size) {
  const DecodedHeader header = decode_header(hdr);
  if (!header.problem.empty() || !header.table) return std::nullopt;
  const EhFrameSearchTable table(hdr, *header.table);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < table.layout_.count; ++i) {
    const auto hit = table.entry(i);
    if (!hit || (i > 0 && hit->start < previous) || hit->fde_offset >= eh_frame_size) {
      return std::nullopt;
    }
    previous = hit->start;
  }
  return table;
}

std::optional<EhFrameSearchTable::Hit> EhFrameSearchTable::entry(uint64_t i) const {
  const auto e = table_entry(hdr_, layout_, i);
  if (!e || e->fde_address < hdr_.eh_frame_address) return std::nullopt;
  return Hit{e->fde_address - hdr_.eh_frame_address, e->initial};
}

std::optional<EhFrameSearchTable::Hit> EhFrameSearchTable::find(uint64_t address) const {
  // The first entry that starts after `address`; the one before it covers `address`. With the
  // entries in order (checked by `searchable`) that is the entry libdw's bisection stops at,
  // including among equal starts, where both take the last.
  uint64_t low = 0, high = layout_.count;
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    const auto hit = entry(mid);
    if (!hit) return std::nullopt;  // not reached: `searchable` decoded every entry
    if (address < hit->start) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  if (low == 0) return std::nullopt;
  return entry(low - 1);
}

}  // namespace sprof::elf::detail
