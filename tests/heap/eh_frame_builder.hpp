// tests/heap/eh_frame_builder.hpp
//
// Writes an `.eh_frame_hdr` followed by an `.eh_frame` (one CIE, FDEs in address order) into one
// byte buffer placed at a chosen run-time address, as a linker lays them out: pointers pc-relative
// (DW_EH_PE_pcrel | sdata4), the search table DW_EH_PE_datarel | sdata4. For the tests of
// heap/src/interposer/eh_frame_rules.hpp and the seeds of its fuzz target.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sprof::heap::test {

class EhFrameBuilder {
 public:
  struct Fde {
    uint64_t begin;
    uint32_t length;
    std::vector<uint8_t> instructions;
  };

  // `cie_instructions` follow the usual x86-64 CIE head (code alignment 1, data alignment -8,
  // return address register 16); `augmentation` is "zR" unless a test asks for another.
  EhFrameBuilder(uint64_t address, std::vector<uint8_t> cie_instructions,
                 std::string augmentation = "zR")
      : address_(address),
        cie_(std::move(cie_instructions)),
        augmentation_(std::move(augmentation)) {}

  void add(Fde fde) { fdes_.push_back(std::move(fde)); }

  // The bytes; `hdr_address()` is their first byte's address.
  std::vector<uint8_t> build() const {
    std::vector<uint8_t> out;
    const size_t table_at = 12;
    const size_t eh_frame_at = table_at + 8 * fdes_.size();
    out.resize(eh_frame_at);
    out[0] = 1;     // version
    out[1] = 0x1b;  // eh_frame_ptr: pcrel | sdata4
    out[2] = 0x03;  // fde_count: udata4
    out[3] = 0x3b;  // table: datarel | sdata4
    put32(out, 4, static_cast<uint32_t>(eh_frame_at - 4));
    put32(out, 8, static_cast<uint32_t>(fdes_.size()));
    // The CIE.
    const size_t cie_at = out.size();
    std::vector<uint8_t> body{0, 0, 0, 0, 1};  // CIE id 0, version 1
    body.insert(body.end(), augmentation_.begin(), augmentation_.end());
    body.push_back(0);
    body.push_back(1);     // code alignment
    body.push_back(0x78);  // data alignment -8
    body.push_back(16);    // return address register
    if (!augmentation_.empty() && augmentation_[0] == 'z') {
      body.push_back(1);     // augmentation data length
      body.push_back(0x1b);  // R: FDE pointers pcrel | sdata4
    }
    body.insert(body.end(), cie_.begin(), cie_.end());
    append_entry(out, body);
    for (size_t i = 0; i < fdes_.size(); ++i) {
      const size_t fde_at = out.size();
      std::vector<uint8_t> fde(4 + 4 + 4 + 1);
      put32(fde, 0, static_cast<uint32_t>(fde_at + 4 - cie_at));  // back to the CIE
      // pc_begin, relative to its own field (at fde_at + 8 in the buffer).
      put32(fde, 4, static_cast<uint32_t>(fdes_[i].begin - (address_ + fde_at + 8)));
      put32(fde, 8, fdes_[i].length);
      fde[12] = 0;  // augmentation data length
      fde.insert(fde.end(), fdes_[i].instructions.begin(), fdes_[i].instructions.end());
      append_entry(out, fde);
      put32(out, table_at + 8 * i, static_cast<uint32_t>(fdes_[i].begin - address_));
      put32(out, table_at + 8 * i + 4, static_cast<uint32_t>(fde_at));
    }
    out.insert(out.end(), 4, 0);  // the terminator
    return out;
  }

 private:
  static void put32(std::vector<uint8_t>& v, size_t at, uint32_t value) {
    std::memcpy(v.data() + at, &value, 4);
  }
  // Length, then the body padded with DW_CFA_nop to a multiple of 8 (length included).
  static void append_entry(std::vector<uint8_t>& out, std::vector<uint8_t> body) {
    while ((body.size() + 4) % 8 != 0) body.push_back(0);
    const size_t at = out.size();
    out.resize(at + 4);
    put32(out, at, static_cast<uint32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }

  uint64_t address_;
  std::vector<uint8_t> cie_;
  std::string augmentation_;
  std::vector<Fde> fdes_;
};

// The CIE instructions every x86-64 compiler writes: CFA = %rsp + 8, return address at CFA - 8.
inline std::vector<uint8_t> x86_64_cie_instructions() { return {0x0c, 0x07, 0x08, 0x90, 0x01}; }

}  // namespace sprof::heap::test
