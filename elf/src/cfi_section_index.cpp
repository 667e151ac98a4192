// elf/src/cfi_section_index.cpp
//
// See cfi_section_index.hpp. Every read goes through a bounded `ByteReader` over one entry, so
// a length or LEB128 operand that points outside the entry fails the entry, never the process.
#include "cfi_section_index.hpp"

#include <elf.h>

#include <algorithm>
#include <unordered_map>

#include "sprof/core/byte_reader.hpp"
#include "sprof/core/hex.hpp"

namespace sprof::elf::detail {
namespace {

// DW_EH_PE_* (LSB 5.0, "DWARF Exception Header Encoding").
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeIndirect = 0x80;
constexpr uint8_t kPeFormatMask = 0x0f;
constexpr uint8_t kPeApplicationMask = 0x70;
constexpr uint8_t kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03,
                  kPeUdata8 = 0x04, kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b,
                  kPeSdata8 = 0x0c;
constexpr uint8_t kPePcrel = 0x10, kPeTextrel = 0x20, kPeDatarel = 0x30;

// Nesting of DW_CFA_remember_state. Compilers nest one or two levels; libdw copies the whole
// row for each level, so an unbounded run of them would cost memory per lookup.
constexpr int kMaxRememberStateDepth = 64;

// DWARF 5 section 7.24 (call frame instruction encodings) plus the GNU extensions GCC emits.
enum : uint8_t {
  kCfaAdvanceLoc = 0x40,
  kCfaOffset = 0x80,
  kCfaRestore = 0xc0,  // high two bits
  kCfaNop = 0x00,
  kCfaSetLoc = 0x01,
  kCfaAdvanceLoc1 = 0x02,
  kCfaAdvanceLoc2 = 0x03,
  kCfaAdvanceLoc4 = 0x04,
  kCfaOffsetExtended = 0x05,
  kCfaRestoreExtended = 0x06,
  kCfaUndefined = 0x07,
  kCfaSameValue = 0x08,
  kCfaRegister = 0x09,
  kCfaRememberState = 0x0a,
  kCfaRestoreState = 0x0b,
  kCfaDefCfa = 0x0c,
  kCfaDefCfaRegister = 0x0d,
  kCfaDefCfaOffset = 0x0e,
  kCfaDefCfaExpression = 0x0f,
  kCfaExpression = 0x10,
  kCfaOffsetExtendedSf = 0x11,
  kCfaDefCfaSf = 0x12,
  kCfaDefCfaOffsetSf = 0x13,
  kCfaValOffset = 0x14,
  kCfaValOffsetSf = 0x15,
  kCfaValExpression = 0x16,
  kCfaMipsAdvanceLoc8 = 0x1d,
  kCfaGnuWindowSave = 0x2d,
  kCfaGnuArgsSize = 0x2e,
  kCfaGnuNegativeOffsetExtended = 0x2f,
};

// One CIE or FDE, delimited by its length field.
struct Entry {
  uint64_t offset = 0;       // of the length field
  uint64_t body_offset = 0;  // of the CIE id / CIE pointer
  std::span<const uint8_t> body;
  bool dwarf64 = false;
  uint64_t id = 0;
};

enum class EntryRead { kOk, kEnd, kTruncated };

EntryRead read_entry(std::span<const uint8_t> section, uint64_t offset, Entry& out) {
  if (offset >= section.size()) return EntryRead::kEnd;
  ByteReader r(section.subspan(offset));
  const uint32_t length32 = r.u32();
  if (!r.ok()) return EntryRead::kTruncated;
  if (length32 == 0) return EntryRead::kEnd;  // .eh_frame's terminator
  uint64_t length = length32;
  out.dwarf64 = length32 == 0xffffffff;
  if (out.dwarf64) {
    length = r.u64();
    if (!r.ok()) return EntryRead::kTruncated;
  } else if (length32 >= 0xfffffff0) {
    return EntryRead::kTruncated;  // reserved lengths (DWARF 5 section 7.4)
  }
  const uint64_t header = r.position();
  if (length > section.size() - offset - header) return EntryRead::kTruncated;
  out.offset = offset;
  out.body_offset = offset + header;
  out.body = section.subspan(out.body_offset, length);
  ByteReader id(out.body);
  out.id = out.dwarf64 ? id.u64() : id.u32();
  if (!id.ok()) out.id = 0;
  return EntryRead::kOk;
}

bool is_cie(const Entry& e, CfiFormat format) {
  if (e.body.size() < (e.dwarf64 ? 8u : 4u)) return false;
  if (format == CfiFormat::kEhFrame) return e.id == 0;
  return e.id == (e.dwarf64 ? ~uint64_t{0} : uint64_t{0xffffffff});
}

struct Cie {
  bool valid = false;
  std::string problem;
  std::vector<SectionSpan> dropped;  // of its initial instructions
  std::string first_dropped;
  uint8_t fde_encoding = kPeAbsptr;    // 'R'
  bool has_augmentation_data = false;  // 'z'
  uint8_t address_size = 8;
  std::span<const uint8_t> initial_instructions;
};

// The outcome of checking one instruction sequence.
struct CheckResult {
  std::string problem;               // empty when usable
  std::vector<SectionSpan> dropped;  // instructions to replace by DW_CFA_nop
  std::string first_dropped;
};

class InstructionCheck {
 public:
  InstructionCheck(const CfiSection& section, const Cie& cie) : section_(section), cie_(cie) {}

  CheckResult check(std::span<const uint8_t> code) const {
    CheckResult result;
    const auto base = static_cast<uint64_t>(code.data() - section_.bytes.data());
    ByteReader r(code);
    int depth = 0;
    std::string& problem = result.problem;
    bool drop = false;  // the current instruction only describes a register the machine lacks
    auto lacks = [&](uint64_t n) { return n >= section_.register_count; };
    auto missing = [&](uint64_t n) {
      return "DWARF register " + std::to_string(n) + ", which this machine lacks";
    };
    // The register whose rule the instruction gives: dropping the instruction loses nothing.
    auto target = [&](uint64_t n) {
      if (lacks(n)) {
        drop = true;
        if (result.first_dropped.empty()) result.first_dropped = "has a rule for " + missing(n);
      }
    };
    // A register the rule reads: without it the row cannot be computed.
    auto source = [&](uint64_t n) {
      if (lacks(n) && problem.empty()) problem = "computes a rule from " + missing(n);
    };
    auto block = [&] { r.skip(static_cast<size_t>(std::min<uint64_t>(r.uleb128(), SIZE_MAX))); };
    while (r.ok() && r.remaining() > 0 && problem.empty()) {
      const size_t start = r.position();
      drop = false;
      decode_one(r, code, depth, problem, target, source, block);
      if (drop && problem.empty() && r.ok()) {
        result.dropped.push_back({base + start, r.position() - start});
      }
    }
    if (problem.empty() && !r.ok()) problem = "has an instruction that runs past its entry";
    return result;
  }

 private:
  template <class Target, class Source, class Block>
  void decode_one(ByteReader& r, std::span<const uint8_t> code, int& depth, std::string& problem,
                  Target& target, Source& source, Block& block) const {
    const uint8_t op = r.u8();
    switch (op & 0xc0) {
      case kCfaAdvanceLoc: return;
      case kCfaOffset:
        target(op & 0x3f);
        r.uleb128();
        return;
      case kCfaRestore: target(op & 0x3f); return;
      default: break;
    }
    switch (op) {
      case kCfaNop:
      case kCfaGnuWindowSave: break;
      case kCfaSetLoc: skip_address(code, r); break;
      case kCfaAdvanceLoc1: r.u8(); break;
      case kCfaAdvanceLoc2: r.u16(); break;
      case kCfaAdvanceLoc4: r.u32(); break;
      case kCfaMipsAdvanceLoc8: r.u64(); break;
      case kCfaOffsetExtended:
      case kCfaValOffset:
      case kCfaGnuNegativeOffsetExtended:
        target(r.uleb128());
        r.uleb128();
        break;
      case kCfaDefCfa:
        source(r.uleb128());
        r.uleb128();
        break;
      case kCfaOffsetExtendedSf:
      case kCfaValOffsetSf:
        target(r.uleb128());
        r.sleb128();
        break;
      case kCfaDefCfaSf:
        source(r.uleb128());
        r.sleb128();
        break;
      case kCfaRestoreExtended:
      case kCfaUndefined:
      case kCfaSameValue: target(r.uleb128()); break;
      case kCfaDefCfaRegister: source(r.uleb128()); break;
      case kCfaRegister:
        target(r.uleb128());
        source(r.uleb128());
        break;
      case kCfaRememberState:
        if (++depth > kMaxRememberStateDepth) {
          problem =
              "nests DW_CFA_remember_state deeper than " + std::to_string(kMaxRememberStateDepth);
        }
        break;
      case kCfaRestoreState: depth = std::max(depth - 1, 0); break;
      case kCfaDefCfaOffset:
      case kCfaGnuArgsSize: r.uleb128(); break;
      case kCfaDefCfaOffsetSf: r.sleb128(); break;
      case kCfaDefCfaExpression: block(); break;
      case kCfaExpression:
      case kCfaValExpression:
        target(r.uleb128());
        block();
        break;
      default: problem = "has unknown CFA opcode " + to_hex_number(op); break;
    }
  }

  // DW_CFA_set_loc's operand: an address in the FDE's pointer encoding (.eh_frame) or of the
  // address size (.debug_frame).
  void skip_address(std::span<const uint8_t> code, ByteReader& r) const {
    size_t pos = r.position();
    const uint8_t encoding = section_.format == CfiFormat::kEhFrame ? cie_.fde_encoding : kPeAbsptr;
    if (!read_encoded_value(code, pos, encoding, cie_.address_size, 0, 0)) {
      r.skip(code.size());  // fails the reader
      return;
    }
    r.skip(pos - r.position());
  }

  const CfiSection& section_;
  const Cie& cie_;
};

Cie parse_cie(const CfiSection& section, uint64_t offset) {
  Cie cie;
  cie.address_size = section.address_size;
  Entry e;
  if (read_entry(section.bytes, offset, e) != EntryRead::kOk || !is_cie(e, section.format)) {
    cie.problem = "its CIE pointer does not point at a CIE";
    return cie;
  }
  ByteReader r(e.body);
  r.skip(e.dwarf64 ? 8 : 4);
  const uint8_t version = r.u8();
  const bool version_ok = section.format == CfiFormat::kEhFrame
                              ? (version == 1 || version == 3)
                              : (version == 1 || version == 3 || version == 4);
  if (!version_ok) {
    cie.problem = "its CIE has version " + std::to_string(version);
    return cie;
  }
  const std::string_view augmentation = r.c_string_aligned(1);
  if (version == 4) {
    cie.address_size = r.u8();
    const uint8_t segment_size = r.u8();
    if (cie.address_size != 4 && cie.address_size != 8) r.skip(e.body.size());
    if (segment_size != 0) r.skip(e.body.size());
  }
  r.uleb128();  // code alignment factor
  r.sleb128();  // data alignment factor
  const uint64_t return_address_register = version == 1 ? r.u8() : r.uleb128();
  if (!r.ok()) {
    cie.problem = "its CIE is cut short";
    return cie;
  }
  if (return_address_register >= section.register_count) {
    cie.problem = "its CIE names return address register " +
                  std::to_string(return_address_register) + ", which this machine lacks";
    return cie;
  }
  if (augmentation.starts_with('z')) {
    cie.has_augmentation_data = true;
    const uint64_t data_size = r.uleb128();
    if (!r.ok() || data_size > r.remaining()) {
      cie.problem = "its CIE's augmentation data is cut short";
      return cie;
    }
    const size_t data_start = r.position();
    const auto data = e.body.subspan(data_start, static_cast<size_t>(data_size));
    size_t pos = 0;
    for (char c : augmentation.substr(1)) {
      if (c == 'L' && pos < data.size()) {
        ++pos;  // LSDA encoding; the LSDA pointer itself is in each FDE's augmentation data
      } else if (c == 'P' && pos < data.size()) {
        const uint8_t encoding = data[pos++];
        if (!read_encoded_value(data, pos, encoding & ~kPeIndirect, cie.address_size, 0, 0)) {
          cie.problem = "its CIE's personality pointer does not decode";
          return cie;
        }
      } else if (c == 'R' && pos < data.size()) {
        cie.fde_encoding = data[pos++];
      } else if (c == 'S' || c == 'B' || c == 'G') {
        // signal frame, AArch64 BTI, AArch64 MTE: flags without data
      } else {
        break;  // unknown: 'z' says where the data ends, so the rest can be skipped
      }
    }
    r.skip(static_cast<size_t>(data_size));
  } else if (augmentation == "eh") {
    r.skip(cie.address_size);  // GCC 2.x's exception table pointer
  } else if (!augmentation.empty()) {
    cie.problem = "its CIE has augmentation \"" + std::string(augmentation) +
                  "\" without 'z', so its instructions cannot be found";
    return cie;
  }
  if (!r.ok()) {
    cie.problem = "its CIE is cut short";
    return cie;
  }
  cie.initial_instructions = e.body.subspan(r.position());
  CheckResult checked = InstructionCheck(section, cie).check(cie.initial_instructions);
  cie.valid = checked.problem.empty();
  if (!cie.valid) cie.problem = "its CIE " + checked.problem;
  cie.dropped = std::move(checked.dropped);
  if (!checked.first_dropped.empty()) cie.first_dropped = "its CIE " + checked.first_dropped;
  return cie;
}

// Decodes one FDE; `checked.problem` says why it is invalid (the entry is still indexed when its
// range decodes, so that the search table can be checked against it).
std::optional<FdeEntry> parse_fde(const CfiSection& section, const Entry& e, const Cie& cie,
                                  CheckResult& checked) {
  std::string& problem = checked.problem;
  FdeEntry fde;
  fde.offset = e.offset;
  const uint64_t body_address = section.address + e.body_offset;
  size_t pos = e.dwarf64 ? 8 : 4;
  const bool eh = section.format == CfiFormat::kEhFrame;
  const uint8_t encoding = eh ? cie.fde_encoding : kPeAbsptr;
  const auto begin = read_encoded_value(e.body, pos, encoding, cie.address_size, body_address, 0);
  const auto range =
      read_encoded_value(e.body, pos, encoding & kPeFormatMask, cie.address_size, 0, 0);
  if (!begin || !range) {
    problem = "its address range does not decode";
    return std::nullopt;
  }
  fde.pc_begin = *begin;
  fde.pc_range = *range;
  if (!cie.valid) {
    problem = cie.problem;
    return fde;
  }
  fde.cie_valid = true;
  if (eh && cie.has_augmentation_data) {
    ByteReader r(e.body.subspan(pos));
    const uint64_t data_size = r.uleb128();
    r.skip(static_cast<size_t>(std::min<uint64_t>(data_size, SIZE_MAX)));
    if (!r.ok()) {
      problem = "its augmentation data is cut short";
      return fde;
    }
    pos += r.position();
  }
  checked = InstructionCheck(section, cie).check(e.body.subspan(pos));
  fde.valid = checked.problem.empty();
  return fde;
}

// The CIEs of a section by offset, each parsed once.
using CieMap = std::unordered_map<uint64_t, Cie>;

// The CIE of FDE `e`, and whether this call parsed it (its dropped instructions are then new).
std::pair<const Cie&, bool> cie_of(const CfiSection& section, const Entry& e, CieMap& cies) {
  // The CIE pointer: back from the field in .eh_frame, a section offset in .debug_frame.
  uint64_t cie_offset = e.id;
  if (section.format == CfiFormat::kEhFrame) {
    cie_offset = e.id <= e.body_offset ? e.body_offset - e.id : section.bytes.size();
  }
  auto found = cies.find(cie_offset);
  if (found != cies.end()) return {found->second, false};
  return {cies.emplace(cie_offset, parse_cie(section, cie_offset)).first->second, true};
}

}  // namespace

std::optional<uint8_t> encoded_value_size(uint8_t encoding, uint8_t address_size) {
  switch (encoding & kPeFormatMask) {
    case kPeAbsptr: return address_size;
    case kPeUdata2:
    case kPeSdata2: return 2;
    case kPeUdata4:
    case kPeSdata4: return 4;
    case kPeUdata8:
    case kPeSdata8: return 8;
    default: return std::nullopt;
  }
}

std::optional<uint64_t> read_encoded_value(std::span<const uint8_t> bytes, size_t& pos,
                                           uint8_t encoding, uint8_t address_size,
                                           uint64_t base_address, uint64_t data_base) {
  if (encoding == kPeOmit || (encoding & kPeIndirect) != 0 || pos > bytes.size()) {
    return std::nullopt;
  }
  ByteReader r(bytes.subspan(pos));
  uint64_t value = 0;
  switch (encoding & kPeFormatMask) {
    case kPeAbsptr: value = address_size == 8 ? r.u64() : r.u32(); break;
    case kPeUleb128: value = r.uleb128(); break;
    case kPeUdata2: value = r.u16(); break;
    case kPeUdata4: value = r.u32(); break;
    case kPeUdata8: value = r.u64(); break;
    case kPeSleb128: value = static_cast<uint64_t>(r.sleb128()); break;
    case kPeSdata2: value = static_cast<uint64_t>(int64_t{static_cast<int16_t>(r.u16())}); break;
    case kPeSdata4: value = static_cast<uint64_t>(int64_t{static_cast<int32_t>(r.u32())}); break;
    case kPeSdata8: value = r.u64(); break;
    default: return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  const uint64_t field_address = base_address + pos;
  pos += r.position();
  switch (encoding & kPeApplicationMask) {
    case 0: return value;
    case kPePcrel: return value + field_address;
    case kPeTextrel: return value;
    case kPeDatarel: return value + data_base;
    default: return std::nullopt;  // funcrel, aligned: not used for these fields
  }
}

uint32_t dwarf_register_count(uint16_t e_machine) {
  switch (e_machine) {
    case EM_X86_64: return 146;
    case EM_AARCH64: return 128;
    default: return 288;
  }
}

CfiSectionIndex index_cfi_section(const CfiSection& section) {
  CfiSectionIndex index;
  CieMap cies;
  uint64_t offset = 0;
  for (;;) {
    Entry e;
    const EntryRead read = read_entry(section.bytes, offset, e);
    if (read == EntryRead::kEnd) break;
    if (read == EntryRead::kTruncated) {
      index.truncated = true;
      break;
    }
    const uint64_t next = e.body_offset + e.body.size();
    if (e.body.size() < (e.dwarf64 ? 8u : 4u) || is_cie(e, section.format)) {
      offset = next;
      continue;
    }
    const auto [cie, cie_is_new] = cie_of(section, e, cies);
    if (cie_is_new && cie.valid) {
      index.dropped_instructions.insert(index.dropped_instructions.end(), cie.dropped.begin(),
                                        cie.dropped.end());
      if (index.first_dropped.empty() && !cie.first_dropped.empty()) {
        index.first_dropped = "FDE at offset " + to_hex_number(e.offset) + " " + cie.first_dropped;
      }
    }
    CheckResult checked;
    if (auto fde = parse_fde(section, e, cie, checked)) index.fdes.push_back(*fde);
    auto where = [&] { return "FDE at offset " + to_hex_number(e.offset) + " "; };
    if (!checked.problem.empty()) {
      index.rejected_fdes.push_back({{e.body_offset, e.body.size()}, e.dwarf64});
      if (index.first_problem.empty()) index.first_problem = where() + checked.problem;
    } else {
      index.dropped_instructions.insert(index.dropped_instructions.end(), checked.dropped.begin(),
                                        checked.dropped.end());
      if (index.first_dropped.empty() && !checked.first_dropped.empty()) {
        index.first_dropped = where() + checked.first_dropped;
      }
    }
    offset = next;
  }
  return index;
}

const FdeEntry* fde_at_offset(const CfiSectionIndex& index, uint64_t offset) {
  const auto it = std::lower_bound(index.fdes.begin(), index.fdes.end(), offset,
                                   [](const FdeEntry& f, uint64_t o) { return f.offset < o; });
  return it != index.fdes.end() && it->offset == offset ? &*it : nullptr;
}

struct FdeChecker::Cies {
  CieMap by_offset;
};

FdeChecker::FdeChecker(const CfiSection& section)
    : section_(section), cies_(std::make_unique<Cies>()) {}
FdeChecker::~FdeChecker() = default;

std::optional<FdeEntry> FdeChecker::clean_fde_at(uint64_t offset) {
  Entry e;
  if (read_entry(section_.bytes, offset, e) != EntryRead::kOk ||
      e.body.size() < (e.dwarf64 ? 8u : 4u) || is_cie(e, section_.format)) {
    return std::nullopt;
  }
  const Cie& cie = cie_of(section_, e, cies_->by_offset).first;
  CheckResult checked;
  auto fde = parse_fde(section_, e, cie, checked);
  if (!fde || !fde->valid || !cie.dropped.empty() || !checked.dropped.empty()) return std::nullopt;
  return fde;
}

}  // namespace sprof::elf::detail
