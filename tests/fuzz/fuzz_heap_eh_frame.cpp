// Fuzz target: the interposer's reader of `.eh_frame_hdr` and `.eh_frame`
// (heap/src/interposer/eh_frame_rules.hpp), which runs inside the recorded program over that
// program's own loaded image. Input: 8 bytes of the code address asked about, then the image
// (placed at kImageAddress, its `.eh_frame_hdr` first). Every read must stay inside the image.
#include <cstdint>
#include <cstring>
#include <vector>

#include "interposer/eh_frame_rules.hpp"

namespace interposer = sprof::heap::interposer;

namespace {
// Where the seeds' images lie: the CFI seed program's .eh_frame_hdr (tests/fuzz/seeds).
constexpr uint64_t kImageAddress = 0x2800;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < sizeof(uint64_t)) return 0;
  uint64_t pc = 0;
  std::memcpy(&pc, data, sizeof pc);
  // A copy of exactly the image's bytes, so that a read past them is ASan's to report.
  const std::vector<uint8_t> image(data + sizeof pc, data + size);
  interposer::FrameRule rule{};
  (void)interposer::find_frame_rule({image.data(), image.size(), kImageAddress}, kImageAddress, pc,
                                    rule);
  return 0;
}
