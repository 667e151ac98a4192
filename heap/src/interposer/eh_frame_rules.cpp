// heap/src/interposer/eh_frame_rules.cpp
//
// Formats: `.eh_frame_hdr` and `.eh_frame` as the Linux Standard Base (Core, x86-64, "Exception
// Frames") lays them out, with the call frame instructions of DWARF 4 section 6.4.2.
// docs/heap.md ("The in-process stack walk") says what is read and what is left to sprof.
#include "interposer/eh_frame_rules.hpp"

#include <cstring>

namespace sprof::heap::interposer {
namespace {

// DW_EH_PE_* pointer encodings: the low nibble is the value's format, bits 4-6 what it is
// relative to, bit 7 an indirection.
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeFormatMask = 0x0f;
constexpr uint8_t kPeApplicationMask = 0x70;
constexpr uint8_t kPeIndirect = 0x80;
constexpr uint8_t kPeAbsolute = 0x00;
constexpr uint8_t kPePcRelative = 0x10;
constexpr uint8_t kPeDataRelative = 0x30;
// The binary search table's usual encoding (DW_EH_PE_datarel | DW_EH_PE_sdata4), the only one
// GNU ld, gold, lld and mold write; others make the table unsupported.
constexpr uint8_t kTableEncoding = 0x3b;

// Reads inside [at, end), which lies inside the image.
class Cursor {
 public:
  Cursor(const CfiImage& image, uint64_t at, uint64_t end) : image_(image), at_(at), end_(end) {
    const uint64_t image_end = image.address + image.size;
    ok_ = image.address <= at && at <= end && end <= image_end && image_end >= image.address;
  }
  bool ok() const { return ok_; }
  uint64_t at() const { return at_; }
  uint64_t end() const { return end_; }
  bool at_end() const { return at_ >= end_; }

  bool bytes(void* out, uint64_t n) {
    if (!ok_ || end_ - at_ < n) return ok_ = false;
    std::memcpy(out, image_.data + (at_ - image_.address), n);
    at_ += n;
    return true;
  }
  bool skip(uint64_t n) {
    if (!ok_ || end_ - at_ < n) return ok_ = false;
    at_ += n;
    return true;
  }
  template <typename T>
  bool fixed(T& value) {
    return bytes(&value, sizeof value);
  }
  bool uleb(uint64_t& value) {
    value = 0;
    for (unsigned shift = 0;; shift += 7) {
      uint8_t byte = 0;
      if (!fixed(byte)) return false;
      if (shift < 64) value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
      if (shift > 70) return ok_ = false;  // longer than any 64-bit value needs
    }
  }
  bool sleb(int64_t& value) {
    uint64_t bits = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
      if (!fixed(byte) || shift > 70) return ok_ = false;
      if (shift < 64) bits |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
    } while ((byte & 0x80) != 0);
    if (shift < 64 && (byte & 0x40) != 0) bits |= ~uint64_t{0} << shift;
    value = static_cast<int64_t>(bits);
    return true;
  }

  // A pointer in `encoding`; `data_base` is what DW_EH_PE_datarel is relative to (0: not
  // allowed here). False with `unsupported` set for encodings that are valid but not read.
  bool pointer(uint8_t encoding, uint64_t data_base, uint64_t& value, bool& unsupported) {
    const uint64_t field = at_;
    uint64_t raw = 0;
    switch (encoding & kPeFormatMask) {
      case 0x00: raw = read_as<uint64_t>(); break;
      case 0x01: uleb(raw); break;
      case 0x02: raw = read_as<uint16_t>(); break;
      case 0x03: raw = read_as<uint32_t>(); break;
      case 0x04: raw = read_as<uint64_t>(); break;
      case 0x09: {
        int64_t s = 0;
        sleb(s);
        raw = static_cast<uint64_t>(s);
        break;
      }
      case 0x0a: raw = static_cast<uint64_t>(int64_t{read_as<int16_t>()}); break;
      case 0x0b: raw = static_cast<uint64_t>(int64_t{read_as<int32_t>()}); break;
      case 0x0c: raw = read_as<uint64_t>(); break;
      default: return ok_ = false;
    }
    if (!ok_) return false;
    switch (encoding & kPeApplicationMask) {
      case kPeAbsolute: value = raw; break;
      case kPePcRelative: value = field + raw; break;
      case kPeDataRelative:
        if (data_base == 0) return !(unsupported = true);
        value = data_base + raw;
        break;
      default: return !(unsupported = true);  // textrel, funcrel, aligned: not on x86-64
    }
    return true;
  }

 private:
  template <typename T>
  T read_as() {
    T v{};
    fixed(v);
    return v;
  }

  const CfiImage& image_;
  uint64_t at_;
  uint64_t end_;
  bool ok_ = false;
};

// One CIE or FDE: the bytes after its length field up to its end.
bool entry_bounds(const CfiImage& image, uint64_t at, uint64_t& body, uint64_t& end) {
  Cursor c(image, at, image.address + image.size);
  uint32_t length32 = 0;
  if (!c.fixed(length32) || length32 == 0) return false;  // 0: the terminator, not an entry
  uint64_t length = length32;
  if (length32 == 0xffffffff && !c.fixed(length)) return false;
  body = c.at();
  if (length > c.end() - body) return false;
  end = body + length;
  return true;
}

struct Cie {
  uint64_t code_alignment = 0;
  int64_t data_alignment = 0;
  uint8_t fde_encoding = kPeAbsolute;
  bool augmented = false;  // 'z': FDEs carry an augmentation length
  uint64_t instructions = 0;
  uint64_t instructions_end = 0;
};

RuleStatus read_cie(const CfiImage& image, uint64_t at, Cie& cie) {
  uint64_t body = 0, end = 0;
  if (!entry_bounds(image, at, body, end)) return RuleStatus::kMalformed;
  Cursor c(image, body, end);
  uint32_t id = 1;
  uint8_t version = 0;
  if (!c.fixed(id) || id != 0 || !c.fixed(version)) return RuleStatus::kMalformed;
  if (version != 1 && version != 3) return RuleStatus::kUnsupported;
  char augmentation[8] = {};
  for (size_t i = 0;; ++i) {
    uint8_t ch = 0;
    if (!c.fixed(ch)) return RuleStatus::kMalformed;
    if (ch == 0) break;
    if (i + 1 >= sizeof augmentation) return RuleStatus::kUnsupported;
    augmentation[i] = static_cast<char>(ch);
  }
  uint64_t return_register = 0;
  if (!c.uleb(cie.code_alignment) || !c.sleb(cie.data_alignment)) return RuleStatus::kMalformed;
  if (version == 1) {
    uint8_t r = 0;
    if (!c.fixed(r)) return RuleStatus::kMalformed;
    return_register = r;
  } else if (!c.uleb(return_register)) {
    return RuleStatus::kMalformed;
  }
  if (return_register != kDwarfReturnAddress) return RuleStatus::kUnsupported;
  uint64_t instructions = c.at();
  if (augmentation[0] == 'z') {
    cie.augmented = true;
    uint64_t length = 0;
    if (!c.uleb(length)) return RuleStatus::kMalformed;
    Cursor data(image, c.at(), c.at() + length);
    if (!data.ok() || data.end() > end) return RuleStatus::kMalformed;
    for (const char* a = augmentation + 1; *a != 0; ++a) {
      bool unsupported = false;
      if (*a == 'R') {
        if (!data.fixed(cie.fde_encoding)) return RuleStatus::kMalformed;
      } else if (*a == 'L') {
        uint8_t lsda_encoding = 0;
        if (!data.fixed(lsda_encoding)) return RuleStatus::kMalformed;
      } else if (*a == 'P') {
        uint8_t personality_encoding = 0;
        uint64_t personality = 0;
        if (!data.fixed(personality_encoding)) return RuleStatus::kMalformed;
        // Only read past: the indirection is not followed.
        if (!data.pointer(static_cast<uint8_t>(personality_encoding & ~kPeIndirect), 0, personality,
                          unsupported)) {
          return unsupported ? RuleStatus::kUnsupported : RuleStatus::kMalformed;
        }
      } else if (*a != 'B' && *a != 'G') {
        // 'S', a signal frame (sprof's unwinder knows those), or a letter not known here.
        return RuleStatus::kUnsupported;
      }
    }
    instructions = c.at() + length;
  } else if (augmentation[0] != 0) {
    return RuleStatus::kUnsupported;  // e.g. GCC 2's "eh"
  }
  cie.instructions = instructions;
  cie.instructions_end = end;
  return RuleStatus::kFound;
}

// The state the call frame instructions build, for the registers the walk needs.
struct RegisterRule {
  SavedAt saved = SavedAt::kSameValue;
  int64_t offset = 0;
  bool unsupported = false;
  bool mentioned = false;
};

struct Row {
  uint64_t cfa_register = kDwarfRsp;
  int64_t cfa_offset = 0;
  bool cfa_unsupported = false;
  RegisterRule bp;
  RegisterRule return_address;
};

RegisterRule* rule_for(Row& row, uint64_t reg) {
  if (reg == kDwarfRbp) return &row.bp;
  if (reg == kDwarfReturnAddress) return &row.return_address;
  return nullptr;  // a register the walk does not follow
}

// operand * data alignment, wrapping like the unsigned arithmetic it is (bytes that overflow
// give a value no row can use, which rule_from_row refuses).
int64_t factored(uint64_t operand, int64_t alignment) {
  return static_cast<int64_t>(operand * static_cast<uint64_t>(alignment));
}

class FrameProgram {
 public:
  FrameProgram(const CfiImage& image, const Cie& cie, uint64_t pc)
      : image_(image), cie_(cie), pc_(pc) {}

  // Runs [from, to) starting at code address `loc`; stops once the row for pc_ is complete.
  // False on bytes that are not instructions.
  bool run(uint64_t from, uint64_t to, uint64_t& loc) {
    Cursor c(image_, from, to);
    if (!c.ok()) return false;
    while (!c.at_end()) {
      uint8_t op = 0;
      if (!c.fixed(op)) return false;
      const uint8_t high = op & 0xc0;
      const uint8_t low = op & 0x3f;
      uint64_t reg = 0, u = 0;
      int64_t s = 0;
      if (high == 0x40) {  // DW_CFA_advance_loc
        if (!advance(loc, low)) return true;
        continue;
      }
      if (high == 0x80) {  // DW_CFA_offset
        if (!c.uleb(u)) return false;
        save_at(low, factored(u, cie_.data_alignment));
        continue;
      }
      if (high == 0xc0) {  // DW_CFA_restore
        restore(low);
        continue;
      }
      switch (op) {
        case 0x00: break;  // DW_CFA_nop
        case 0x01: {       // DW_CFA_set_loc
          bool unsupported = false;
          uint64_t to_loc = 0;
          if (!c.pointer(cie_.fde_encoding, 0, to_loc, unsupported)) return false;
          if (to_loc > pc_) return true;
          loc = to_loc;
          break;
        }
        case 0x02: {
          uint8_t d = 0;
          if (!c.fixed(d)) return false;
          if (!advance(loc, d)) return true;
          break;
        }
        case 0x03: {
          uint16_t d = 0;
          if (!c.fixed(d)) return false;
          if (!advance(loc, d)) return true;
          break;
        }
        case 0x04: {
          uint32_t d = 0;
          if (!c.fixed(d)) return false;
          if (!advance(loc, d)) return true;
          break;
        }
        case 0x05:  // DW_CFA_offset_extended
          if (!c.uleb(reg) || !c.uleb(u)) return false;
          save_at(reg, factored(u, cie_.data_alignment));
          break;
        case 0x06:  // DW_CFA_restore_extended
          if (!c.uleb(reg)) return false;
          restore(reg);
          break;
        case 0x07:  // DW_CFA_undefined
          if (!c.uleb(reg)) return false;
          set(reg, SavedAt::kUndefined, 0, false);
          break;
        case 0x08:  // DW_CFA_same_value
          if (!c.uleb(reg)) return false;
          set(reg, SavedAt::kSameValue, 0, reg == kDwarfReturnAddress);
          break;
        case 0x09:  // DW_CFA_register: kept in another register
          if (!c.uleb(reg) || !c.uleb(u)) return false;
          set(reg, SavedAt::kSameValue, 0, true);
          break;
        case 0x0a:  // DW_CFA_remember_state
          if (depth_ == kMaxRemembered) return false;
          remembered_[depth_++] = row_;
          break;
        case 0x0b:  // DW_CFA_restore_state
          if (depth_ == 0) return false;
          row_ = remembered_[--depth_];
          break;
        case 0x0c:  // DW_CFA_def_cfa
          if (!c.uleb(reg) || !c.uleb(u)) return false;
          def_cfa(reg, static_cast<int64_t>(u));
          break;
        case 0x0d:  // DW_CFA_def_cfa_register
          if (!c.uleb(reg)) return false;
          row_.cfa_register = reg;
          break;
        case 0x0e:  // DW_CFA_def_cfa_offset
          if (!c.uleb(u)) return false;
          row_.cfa_offset = static_cast<int64_t>(u);
          break;
        case 0x0f:  // DW_CFA_def_cfa_expression
          if (!c.uleb(u) || !c.skip(u)) return false;
          row_.cfa_unsupported = true;
          break;
        case 0x10:  // DW_CFA_expression
        case 0x16:  // DW_CFA_val_expression
          if (!c.uleb(reg) || !c.uleb(u) || !c.skip(u)) return false;
          set(reg, SavedAt::kSameValue, 0, true);
          break;
        case 0x11:  // DW_CFA_offset_extended_sf
          if (!c.uleb(reg) || !c.sleb(s)) return false;
          save_at(reg, factored(static_cast<uint64_t>(s), cie_.data_alignment));
          break;
        case 0x12:  // DW_CFA_def_cfa_sf
          if (!c.uleb(reg) || !c.sleb(s)) return false;
          def_cfa(reg, factored(static_cast<uint64_t>(s), cie_.data_alignment));
          break;
        case 0x13:  // DW_CFA_def_cfa_offset_sf
          if (!c.sleb(s)) return false;
          row_.cfa_offset = factored(static_cast<uint64_t>(s), cie_.data_alignment);
          break;
        case 0x14:  // DW_CFA_val_offset
          if (!c.uleb(reg) || !c.uleb(u)) return false;
          set(reg, SavedAt::kSameValue, 0, true);
          break;
        case 0x15:  // DW_CFA_val_offset_sf
          if (!c.uleb(reg) || !c.sleb(s)) return false;
          set(reg, SavedAt::kSameValue, 0, true);
          break;
        case 0x2e:  // DW_CFA_GNU_args_size
          if (!c.uleb(u)) return false;
          break;
        case 0x2f:  // DW_CFA_GNU_negative_offset_extended
          if (!c.uleb(reg) || !c.uleb(u)) return false;
          save_at(reg, factored(0 - u, cie_.data_alignment));
          break;
        default: return false;
      }
    }
    return true;
  }

  // The CIE's initial instructions have run: what DW_CFA_restore goes back to.
  void mark_initial() { initial_ = row_; }
  const Row& row() const { return row_; }

 private:
  static constexpr unsigned kMaxRemembered = 8;

  // False once the location passes pc_: the current row is the one for pc_.
  bool advance(uint64_t& loc, uint64_t delta) {
    const uint64_t step = delta * cie_.code_alignment;
    if (step > pc_ - loc) return false;  // loc <= pc_ holds here
    loc += step;
    return true;
  }
  void def_cfa(uint64_t reg, int64_t offset) {
    row_.cfa_register = reg;
    row_.cfa_offset = offset;
    row_.cfa_unsupported = false;
  }
  void save_at(uint64_t reg, int64_t offset) { set(reg, SavedAt::kCfaOffset, offset, false); }
  void set(uint64_t reg, SavedAt saved, int64_t offset, bool unsupported) {
    if (RegisterRule* r = rule_for(row_, reg)) *r = RegisterRule{saved, offset, unsupported, true};
  }
  void restore(uint64_t reg) {
    RegisterRule* r = rule_for(row_, reg);
    if (r != nullptr) *r = *rule_for(initial_, reg);
  }

  const CfiImage& image_;
  const Cie& cie_;
  const uint64_t pc_;
  Row row_;
  Row initial_;
  Row remembered_[kMaxRemembered];
  unsigned depth_ = 0;
};

bool fits_int32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

RuleStatus rule_from_row(const Row& row, FrameRule& rule) {
  if (row.cfa_unsupported || (row.cfa_register != kDwarfRsp && row.cfa_register != kDwarfRbp) ||
      !fits_int32(row.cfa_offset) || row.bp.unsupported || row.return_address.unsupported ||
      !row.return_address.mentioned || !fits_int32(row.bp.offset) ||
      !fits_int32(row.return_address.offset)) {
    return RuleStatus::kUnsupported;
  }
  rule = FrameRule{};
  rule.cfa_register = static_cast<uint8_t>(row.cfa_register);
  rule.cfa_offset = static_cast<int32_t>(row.cfa_offset);
  rule.bp = row.bp.saved;
  rule.bp_offset = static_cast<int32_t>(row.bp.offset);
  rule.return_address = row.return_address.saved;
  rule.return_address_offset = static_cast<int32_t>(row.return_address.offset);
  return RuleStatus::kFound;
}

// The FDE whose initial location is the last one at or below pc, from the binary search table.
RuleStatus find_fde(const CfiImage& image, uint64_t hdr, uint64_t pc, uint64_t& fde) {
  Cursor c(image, hdr, image.address + image.size);
  uint8_t version = 0, eh_frame_encoding = 0, count_encoding = 0, table_encoding = 0;
  if (!c.fixed(version) || !c.fixed(eh_frame_encoding) || !c.fixed(count_encoding) ||
      !c.fixed(table_encoding)) {
    return RuleStatus::kMalformed;
  }
  if (version != 1) return RuleStatus::kMalformed;
  if (eh_frame_encoding == kPeOmit || count_encoding == kPeOmit || table_encoding == kPeOmit) {
    return RuleStatus::kUnsupported;  // no table: only a linear scan would find the FDE
  }
  bool unsupported = false;
  uint64_t eh_frame = 0, count = 0;
  if (!c.pointer(eh_frame_encoding, hdr, eh_frame, unsupported) ||
      !c.pointer(count_encoding, hdr, count, unsupported)) {
    return unsupported ? RuleStatus::kUnsupported : RuleStatus::kMalformed;
  }
  if (table_encoding != kTableEncoding) return RuleStatus::kUnsupported;
  const uint64_t table = c.at();
  const uint64_t image_end = image.address + image.size;
  if (count == 0) return RuleStatus::kNoFde;
  if (count > (image_end - table) / 8) return RuleStatus::kMalformed;
  const auto entry = [&](uint64_t i, int32_t& loc, int32_t& at) {
    Cursor e(image, table + i * 8, table + i * 8 + 8);
    return e.fixed(loc) && e.fixed(at);
  };
  // Last entry whose location is <= pc.
  uint64_t lo = 0, hi = count;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    int32_t loc = 0, at = 0;
    if (!entry(mid, loc, at)) return RuleStatus::kMalformed;
    if (hdr + static_cast<uint64_t>(int64_t{loc}) <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return RuleStatus::kNoFde;
  int32_t loc = 0, at = 0;
  if (!entry(lo - 1, loc, at)) return RuleStatus::kMalformed;
  fde = hdr + static_cast<uint64_t>(int64_t{at});
  return RuleStatus::kFound;
}

}  // namespace

RuleStatus find_frame_rule(const CfiImage& image, uint64_t eh_frame_hdr, uint64_t pc,
                           FrameRule& rule) {
  uint64_t fde = 0;
  if (const RuleStatus s = find_fde(image, eh_frame_hdr, pc, fde); s != RuleStatus::kFound) {
    return s;
  }
  uint64_t body = 0, end = 0;
  if (!entry_bounds(image, fde, body, end)) return RuleStatus::kMalformed;
  Cursor c(image, body, end);
  uint32_t cie_pointer = 0;
  if (!c.fixed(cie_pointer) || cie_pointer == 0) return RuleStatus::kMalformed;
  if (cie_pointer > body) return RuleStatus::kMalformed;
  Cie cie;
  if (const RuleStatus s = read_cie(image, body - cie_pointer, cie); s != RuleStatus::kFound) {
    return s;
  }
  bool unsupported = false;
  uint64_t begin = 0, range = 0;
  if (!c.pointer(cie.fde_encoding, 0, begin, unsupported) ||
      !c.pointer(static_cast<uint8_t>(cie.fde_encoding & kPeFormatMask), 0, range, unsupported)) {
    return unsupported ? RuleStatus::kUnsupported : RuleStatus::kMalformed;
  }
  if (pc < begin || pc - begin >= range) return RuleStatus::kNoFde;
  if (cie.augmented) {
    uint64_t length = 0;
    if (!c.uleb(length) || !c.skip(length)) return RuleStatus::kMalformed;
  }
  FrameProgram program(image, cie, pc);
  uint64_t loc = begin;
  if (!program.run(cie.instructions, cie.instructions_end, loc)) return RuleStatus::kMalformed;
  program.mark_initial();
  loc = begin;
  if (!program.run(c.at(), end, loc)) return RuleStatus::kMalformed;
  return rule_from_row(program.row(), rule);
}

}  // namespace sprof::heap::interposer
