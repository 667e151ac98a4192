// Fuzz target: call frame information (.eh_frame, .eh_frame_hdr, .debug_frame) of the binaries
// sprof unwinds through, read by CfiModule (libdw's CFI reader and sprof's row translation).
#include "cfi_template_elf.hpp"
#include "sprof/elf/cfi_module.hpp"

namespace fuzz = sprof::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> image = fuzz::cfi_template_image({data, size});
  auto module = sprof::elf::CfiModule::open_image(image);
  if (!module) return 0;
  (void)(*module)->has_cfi();
  // Every 8th byte of the first KiB of .text (the seeds' code), the ends of .text, PLT entries
  // and addresses outside any section: enough to walk every FDE without slowing each run.
  for (uint64_t i = 0; i < 128; ++i)
    (void)(*module)->find_rule(sprof::Svma{fuzz::kTemplateTextAddr + 8 * i});
  for (const uint64_t pc :
       {uint64_t{0}, fuzz::kTemplateTextAddr - 1, fuzz::kTemplatePltAddr - 1,
        fuzz::kTemplatePltAddr, fuzz::kTemplatePltAddr + 0x10, fuzz::kTemplateEhFrameAddr}) {
    (void)(*module)->find_rule(sprof::Svma{pc});
  }
  uint8_t code[16];
  (void)(*module)->read_code(sprof::Svma{fuzz::kTemplateTextAddr + fuzz::kTemplateTextSize - 8},
                             code);
  return 0;
}
