// Walks .eh_frame's CIEs and FDEs (LSB 5.0, "Exception Frames"; same layout as DWARF's
// .debug_frame except for the CIE id 0, the CIE pointer being relative, and the augmentation
// data that says how FDE addresses are encoded).
#include "sprof/elf/eh_frame_functions.hpp"

#include <dwarf.h>

#include <algorithm>
#include <span>
#include <unordered_map>

#include "elf_file.hpp"
#include "sprof/core/byte_reader.hpp"

namespace sprof::elf {
namespace {

// DW_EH_PE_* (dwarf.h): the low nibble is the value format, bits 4-6 the application.
constexpr uint8_t kFormatMask = 0x0f;
constexpr uint8_t kApplicationMask = 0x70;

bool read_uleb(ByteReader& in, uint64_t& out) {
  out = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    uint8_t byte = 0;
    if (!in.read(byte)) return false;
    out |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool read_sleb(ByteReader& in, int64_t& out) {
  uint64_t value = 0;
  unsigned shift = 0;
  uint8_t byte = 0x80;
  while ((byte & 0x80) != 0) {
    if (shift >= 64 || !in.read(byte)) return false;
    value |= uint64_t{byte & 0x7fu} << shift;
    shift += 7;
  }
  if (shift < 64 && (byte & 0x40) != 0) value |= ~uint64_t{0} << shift;
  out = static_cast<int64_t>(value);
  return true;
}

// Reads a value in `format` (the low nibble of a DW_EH_PE encoding), sign-extended where the
// format is signed. False for unknown formats or short input.
bool read_encoded(ByteReader& in, uint8_t format, bool elf64, uint64_t& out) {
  switch (format) {
    case DW_EH_PE_absptr: out = elf64 ? in.u64() : in.u32(); return in.ok();
    case DW_EH_PE_uleb128: return read_uleb(in, out);
    case DW_EH_PE_udata2: out = in.u16(); return in.ok();
    case DW_EH_PE_udata4: out = in.u32(); return in.ok();
    case DW_EH_PE_udata8: out = in.u64(); return in.ok();
    case DW_EH_PE_sleb128: {
      int64_t v = 0;
      if (!read_sleb(in, v)) return false;
      out = static_cast<uint64_t>(v);
      return true;
    }
    case DW_EH_PE_sdata2:
      out = static_cast<uint64_t>(int64_t{static_cast<int16_t>(in.u16())});
      return in.ok();
    case DW_EH_PE_sdata4:
      out = static_cast<uint64_t>(int64_t{static_cast<int32_t>(in.u32())});
      return in.ok();
    case DW_EH_PE_sdata8: out = in.u64(); return in.ok();
    default: return false;
  }
}

// What an FDE needs from its CIE: how its addresses are encoded.
struct CieInfo {
  bool valid = false;
  uint8_t fde_encoding = DW_EH_PE_absptr;
};

CieInfo parse_cie(std::span<const uint8_t> body, bool elf64) {
  ByteReader in(body);
  CieInfo cie;
  uint8_t version = 0;
  if (!in.read(version) || (version != 1 && version != 3 && version != 4)) return cie;
  std::string augmentation;
  for (uint8_t c = 0; in.read(c) && c != 0;) augmentation.push_back(static_cast<char>(c));
  if (!in.ok()) return cie;
  if (version == 4) in.skip(2);  // address_size, segment_selector_size
  uint64_t unused = 0;
  int64_t data_alignment = 0;
  if (!read_uleb(in, unused) || !read_sleb(in, data_alignment)) return cie;
  if (version == 1) {
    in.skip(1);  // return address register
  } else if (!read_uleb(in, unused)) {
    return cie;
  }
  // Without 'z' the augmentation data cannot be skipped safely unless there is none.
  if (augmentation.empty()) {
    cie.valid = true;
    return cie;
  }
  if (augmentation.front() != 'z') return cie;
  uint64_t data_length = 0;
  if (!read_uleb(in, data_length)) return cie;
  for (size_t i = 1; i < augmentation.size(); ++i) {
    switch (augmentation[i]) {
      case 'R': {
        uint8_t encoding = 0;
        if (!in.read(encoding)) return cie;
        cie.fde_encoding = encoding;
        break;
      }
      case 'P': {  // personality routine: its own encoding, then the pointer
        uint8_t encoding = 0;
        uint64_t pointer = 0;
        if (!in.read(encoding) || !read_encoded(in, encoding & kFormatMask, elf64, pointer)) {
          return cie;
        }
        break;
      }
      case 'L':  // LSDA encoding (used by FDEs' augmentation data, which 'z' lets us skip)
        in.skip(1);
        break;
      default:  // 'S', 'B', 'G': no data
        break;
    }
  }
  cie.valid = in.ok();
  return cie;
}

}  // namespace

Result<EhFrameFunctions> read_eh_frame_functions(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  if (!file.little_endian()) return fail(Errc::kUnsupported, path + ": big-endian .eh_frame");
  const bool elf64 = file.header().e_ident[EI_CLASS] == ELFCLASS64;
  EhFrameFunctions out;
  Elf_Scn* section = file.section_by_name(".eh_frame");
  GElf_Shdr shdr;
  if (section == nullptr || gelf_getshdr(section, &shdr) == nullptr) return out;
  const std::span<const uint8_t> bytes = file.section_bytes(section);

  std::unordered_map<uint64_t, CieInfo> cies;  // by offset in the section
  size_t offset = 0;
  while (offset + 4 <= bytes.size()) {
    ByteReader in(bytes.subspan(offset));
    uint64_t length = in.u32();
    if (length == 0) break;  // the zero terminator
    size_t header = 4;
    if (length == 0xffffffff) {
      length = in.u64();
      header = 12;
    }
    if (!in.ok() || length > bytes.size() - offset - header) break;  // truncated: stop here
    const size_t id_offset = offset + header;
    const size_t next = id_offset + length;
    const bool wide = header == 12;
    ByteReader entry(bytes.subspan(id_offset, length));
    const uint64_t id = wide ? entry.u64() : entry.u32();
    const size_t body = id_offset + (wide ? 8 : 4);
    if (!entry.ok()) break;
    if (id == 0) {
      cies[offset] = parse_cie(bytes.subspan(body, next - body), elf64);
    } else if (id <= id_offset) {
      // The CIE pointer is the distance back from this field to the CIE's length field.
      const auto cie = cies.find(id_offset - id);
      const uint8_t encoding = cie != cies.end() ? cie->second.fde_encoding
                                                  : static_cast<uint8_t>(DW_EH_PE_omit);
      const uint8_t application = encoding & kApplicationMask;
      uint64_t begin = 0;
      uint64_t range = 0;
      if (cie == cies.end() || !cie->second.valid || (encoding & DW_EH_PE_indirect) != 0 ||
          (application != DW_EH_PE_absptr && application != DW_EH_PE_pcrel) ||
          !read_encoded(entry, encoding & kFormatMask, elf64, begin) ||
          !read_encoded(entry, encoding & kFormatMask, elf64, range)) {
        ++out.skipped_fdes;
      } else {
        // pcrel: relative to the address of the pc_begin field itself.
        if (application == DW_EH_PE_pcrel) begin += shdr.sh_addr + body;
        if (range > 0) out.functions.push_back(FunctionRange{begin, begin + range});
      }
    } else {
      ++out.skipped_fdes;  // a CIE pointer before the section start
    }
    offset = next;
  }
  std::sort(out.functions.begin(), out.functions.end(),
            [](const FunctionRange& a, const FunctionRange& b) { return a.begin < b.begin; });
  return out;
}

}  // namespace sprof::elf
