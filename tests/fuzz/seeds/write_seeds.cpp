// tests/fuzz/seeds/write_seeds.cpp
//
// Writes the binary seed corpora of the fuzz targets at build time, from the same builders the
// unit tests use (record_builder.hpp, jit_test_bytes.hpp) and from the seed programs' CFI, so the
// seeds follow the formats as the code base understands them. Text seeds are committed under
// tests/fuzz/corpus/ instead.
//
//   sprof_fuzz_seed_writer OUT_DIR GOLDEN_PROFILE EH_FRAME_HDR EH_FRAME DEBUG_FRAME DWARF_ELF...
#include <elf.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cfi_rule_input.hpp"
#include "eh_frame_builder.hpp"
#include "heap_record_builder.hpp"
#include "jit_test_bytes.hpp"
#include "module_index_codec.hpp"
#include "module_symbol_map.hpp"
#include "perf_data_writer.hpp"
#include "perf_record_input.hpp"
#include "record_builder.hpp"
#include "sprof/arch/x86_64.hpp"
#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "sprof_test/sample_profile.hpp"
#include "symbol_cache.hpp"

namespace fs = std::filesystem;
namespace perf = sprof::perf;
using Bytes = std::vector<uint8_t>;

namespace {

fs::path g_out;

void write(const std::string& target, const std::string& name, const Bytes& bytes) {
  fs::create_directories(g_out / target);
  std::ofstream(g_out / target / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}
void write(const std::string& target, const std::string& name, const std::string& text) {
  write(target, name, Bytes(text.begin(), text.end()));
}

Bytes read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sprof_fuzz_seed_writer: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

template <typename T>
void append(Bytes& out, T value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

// ---- perf records -------------------------------------------------------------------------

sprof::fuzz::PerfRecordInputHead head_for(uint64_t sample_type, bool sample_id_all,
                                          uint64_t regs_user = 0, uint64_t read_format = 0) {
  sprof::fuzz::PerfRecordInputHead h;
  h.sample_type = sample_type;
  h.sample_id_all = sample_id_all ? 1 : 0;
  h.sample_regs_user = regs_user;
  h.read_format = read_format;
  return h;
}

// `sample` with user registers (all set to a stack address) and `stack_bytes` of user stack.
sprof::test::SampleSpec with_user_state(const perf::SampleRecord& sample,
                                        const perf::SampleLayout& layout, size_t stack_bytes) {
  sprof::test::SampleSpec spec;
  spec.record = sample;
  spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
  spec.record.regs_user.assign(layout.regs_user_count(), 0x7ffd0000);
  spec.record.stack_user.assign(stack_bytes, 0x42);
  return spec;
}

void write_perf_record_seeds() {
  constexpr uint64_t kBasic = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                              PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  constexpr uint64_t kDwarf = kBasic | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  constexpr uint64_t kRegs = sprof::arch::x86_64::kUnwindRegsMask;
  const perf::SampleId id{100, 101, 123456789, 1};

  perf::SampleRecord sample;
  sample.id = id;
  sample.ip = 0x401234;
  sample.period = 1000000;
  sample.callchain = {PERF_CONTEXT_USER, 0x401234, 0x401100, 0x400f00};

  perf::Mmap2Record mmap;
  mmap.id = id;
  mmap.pid = 100;
  mmap.tid = 101;
  mmap.addr = 0x400000;
  mmap.len = 0x2000;
  mmap.prot = 5;
  mmap.filename = "/usr/bin/target";
  perf::Mmap2Record mmap_build_id = mmap;
  mmap_build_id.build_id = *sprof::BuildId::from_hex("0123456789abcdef0123456789abcdef01234567");
  perf::CommRecord comm{id, 100, 101, true, "target"};
  perf::ForkRecord fork{id, 102, 100, 102, 101, 5};
  perf::ExitRecord exit{id, 102, 100, 102, 101, 6};
  perf::SwitchRecord switch_out{id, true, true, false, 7, 8};

  // What sprof opens with frame pointers, every non-sample record sprof decodes.
  {
    const auto head = head_for(kBasic, true);
    const auto layout = perf::SampleLayout::from_attr(head.attr());
    const sprof::test::RecordBuilder b(*layout);
    sprof::test::SampleSpec spec;
    spec.record = sample;
    write(
        "perf_record", "seed-fp-stream",
        sprof::fuzz::join_perf_record_input(
            head, {b.comm(comm), b.mmap2(mmap), b.mmap2(mmap_build_id), b.mmap(mmap, true),
                   b.sample(spec), b.fork(fork), b.exit(exit), b.lost({id, 3}),
                   b.lost_samples({id, 4}), b.throttle({id, 9, true}), b.throttle({id, 10, false}),
                   b.context_switch(switch_out, false), b.context_switch(switch_out, true),
                   sprof::test::RecordBuilder::opaque(PERF_RECORD_KSYMBOL, 24)}));
  }
  // What sprof opens for DWARF unwinding: registers and a stack copy.
  {
    const auto head = head_for(kDwarf, true, kRegs);
    const auto layout = perf::SampleLayout::from_attr(head.attr());
    const sprof::test::RecordBuilder b(*layout);
    const auto spec = with_user_state(sample, *layout, 256);
    sprof::test::SampleSpec kernel_thread = spec;
    kernel_thread.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_NONE;
    kernel_thread.record.stack_user.clear();
    kernel_thread.stack_size = 0;
    write("perf_record", "seed-dwarf-samples",
          sprof::fuzz::join_perf_record_input(head, {b.sample(spec), b.sample(kernel_thread)}));
  }
  // Every field a sample can carry, with group reads and a sample_id trailer on everything.
  {
    const uint64_t every =
        perf::SampleLayout::kSupportedSampleType & ~uint64_t{PERF_SAMPLE_WEIGHT_STRUCT};
    const uint64_t read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                                 PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
    auto head = head_for(every, true, kRegs, read_format);
    head.sample_regs_intr = 0x3;
    head.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
    const auto layout = perf::SampleLayout::from_attr(head.attr());
    const sprof::test::RecordBuilder b(*layout);
    const auto spec = with_user_state(sample, *layout, 24);
    write("perf_record", "seed-every-field",
          sprof::fuzz::join_perf_record_input(head, {b.sample(spec), b.comm(comm)}));
  }
  // No sample_id_all: non-sample records end right after their body.
  {
    const auto head = head_for(kBasic, false);
    const auto layout = perf::SampleLayout::from_attr(head.attr());
    const sprof::test::RecordBuilder b(*layout);
    write("perf_record", "seed-no-sample-id-all",
          sprof::fuzz::join_perf_record_input(head, {b.mmap2(mmap), b.comm(comm), b.fork(fork)}));
  }
}

// ---- perf.data files (sprof import) ------------------------------------------------------

// perf.data files in file and pipe mode, as `perf record -g` and `--call-graph dwarf` write
// them: one cpu-clock event with its id, features, and the records of one short process.
void write_perf_data_seeds() {
  constexpr uint64_t kBasic = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                              PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  constexpr uint64_t kDwarf = kBasic | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  constexpr uint64_t kEventId = 77;
  for (const bool dwarf : {false, true}) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.freq = 1;
    attr.sample_freq = 4000;
    attr.sample_type = dwarf ? kDwarf : kBasic;
    attr.sample_id_all = 1;
    attr.mmap = attr.comm = attr.task = attr.mmap2 = attr.comm_exec = 1;
    if (dwarf) {
      attr.sample_regs_user = sprof::arch::x86_64::kUnwindRegsMask;
      attr.sample_stack_user = 256;
    }
    const auto layout = perf::SampleLayout::from_attr(attr);
    const sprof::test::RecordBuilder b(*layout, kEventId);
    sprof::test::PerfDataWriter w;
    w.add_event(attr, {kEventId});
    w.feature_string(sprof::test::PerfDataWriter::kHostname, "seed-host");
    w.feature_string(sprof::test::PerfDataWriter::kVersion, "6.1.187");
    w.feature_strings(sprof::test::PerfDataWriter::kCmdline, {"/usr/bin/perf", "record", "-g"});
    perf::Mmap2Record mmap;
    mmap.id = {100, 100, 1000, 0};
    mmap.pid = mmap.tid = 100;
    mmap.addr = 0x400000;
    mmap.len = 0x2000;
    mmap.prot = 5;
    mmap.filename = "/usr/bin/target";
    w.add_record(b.comm({{100, 100, 900, 0}, 100, 100, true, "target"}));
    w.add_record(b.mmap2(mmap));
    for (uint64_t i = 0; i < 3; ++i) {
      perf::SampleRecord sample;
      sample.id = {100, 100, 2000 + i, 0};
      sample.ip = 0x401234 + i;
      sample.period = 250000;
      sample.callchain = {PERF_CONTEXT_USER, 0x401234 + i, 0x401100};
      const auto spec =
          dwarf ? with_user_state(sample, *layout, 256) : sprof::test::SampleSpec{sample};
      w.add_record(b.sample(spec));
    }
    w.finished_round();
    w.add_record(b.exit({{100, 100, 3000, 0}, 100, 1, 100, 1, 3000}));
    const std::string kind = dwarf ? "dwarf" : "fp";
    write("perf_data", "seed-file-" + kind, w.file_bytes());
    write("perf_data", "seed-pipe-" + kind, w.pipe_bytes());
  }
}

// ---- JIT files, kernel notes, gzip -------------------------------------------------------

void write_jitdump_seeds() {
  sprof::test::JitDumpWriter w;
  w.code_load(0x7f0000001000, 16, 1, "jitted_function");
  w.code_load(0x7f0000002000, 8, 2, "_ZN3foo3barEv");
  w.code_move(0x7f0000001000, 0x7f0000003000, 16, 1);
  w.record(2, Bytes(24, 0));  // JIT_CODE_DEBUG_INFO cut in its first entry
  w.record(3, {});            // JIT_CODE_CLOSE
  write("jitdump", "seed-load-move", w.bytes());
  Bytes truncated = w.bytes();
  truncated.resize(truncated.size() - 20);  // a JIT still writing it
  write("jitdump", "seed-truncated", truncated);

  // Line tables: DEBUG_INFO before the load it describes, "\xff" for the previous file, a
  // move sharing the table.
  sprof::test::JitDumpWriter lines;
  lines.debug_info(0x7f0000004000, {{0x7f0000004000, 10, "app.js"},
                                    {0x7f0000004004, 11, "\xff"},
                                    {0x7f0000004008, 20, "lib/util.js"}});
  lines.code_load(0x7f0000004000, 16, 1, "hot");
  lines.code_move(0x7f0000004000, 0x7f0000006000, 16, 1);
  write("jitdump", "seed-debug-info", lines.bytes());
}

Bytes note(uint32_t type, const std::string& name, const Bytes& desc) {
  Bytes out;
  append<uint32_t>(out, static_cast<uint32_t>(name.size() + 1));
  append<uint32_t>(out, static_cast<uint32_t>(desc.size()));
  append<uint32_t>(out, type);
  out.insert(out.end(), name.begin(), name.end());
  out.push_back(0);
  while (out.size() % 4 != 0) out.push_back(0);
  out.insert(out.end(), desc.begin(), desc.end());
  while (out.size() % 4 != 0) out.push_back(0);
  return out;
}

void write_kernel_notes_seeds() {
  Bytes build_id(20);
  for (size_t i = 0; i < build_id.size(); ++i) build_id[i] = static_cast<uint8_t>(0xa0 + i);
  // What /sys/kernel/notes holds on a Xen-capable kernel: Xen notes, then the GNU build-id.
  Bytes notes = note(0x13, "Xen", {0, 0, 0, 0});
  const Bytes gnu = note(3, "GNU", build_id);  // NT_GNU_BUILD_ID
  notes.insert(notes.end(), gnu.begin(), gnu.end());
  write("kernel_notes", "seed-xen-gnu", notes);
  write("kernel_notes", "seed-gnu-only", gnu);
  write("kernel_notes", "seed-linux-version", note(6, "Linux", {0, 1, 2, 3, 4, 5}));
}

Bytes gzip(const Bytes& bytes) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    std::exit(1);
  }
  Bytes out(deflateBound(&z, bytes.size()));
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::exit(1);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void write_profile_seeds(const std::string& golden_profile) {
  const Bytes profile = read(golden_profile);
  write("gecko_profile", "seed-golden-profile", profile);
  // The profile tests' sample profile, as a Gecko file and as a self-contained one.
  const auto sample = sprof::test::make_sample_profile();
  write("gecko_profile", "seed-sample-profile", sprof::profile::gecko_json_string(sample));
  const std::string processed =
      sprof::profile::processed_json_string(sample, sprof::test::make_sample_symbols(sample));
  write("gecko_profile", "seed-self-contained-profile", processed);
  write("processed_profile", "seed-self-contained-profile", processed);
  write("gzip_profile", "seed-golden-profile", profile);  // plain JSON is accepted too
  const Bytes compressed = gzip(profile);
  write("gzip_profile", "seed-golden-profile-gz", compressed);
  write("gzip_profile", "seed-truncated-gz", Bytes(compressed.begin(), compressed.end() - 9));
}

// ---- CFI ------------------------------------------------------------------------------------

// Layouts of cfi_template_elf.hpp: 0 .eh_frame, 1 .debug_frame, 2 .eh_frame_hdr + .eh_frame.
void write_cfi_module_seeds(const std::string& hdr_path, const std::string& eh_path,
                            const std::string& debug_path) {
  const Bytes hdr = read(hdr_path);
  const Bytes eh = read(eh_path);
  const Bytes debug = read(debug_path);
  Bytes eh_only{0};
  eh_only.insert(eh_only.end(), eh.begin(), eh.end());
  write("cfi_module", "seed-eh-frame", eh_only);
  Bytes debug_only{1};
  debug_only.insert(debug_only.end(), debug.begin(), debug.end());
  write("cfi_module", "seed-debug-frame", debug_only);
  Bytes with_hdr{2, static_cast<uint8_t>(hdr.size() & 0xff), static_cast<uint8_t>(hdr.size() >> 8)};
  with_hdr.insert(with_hdr.end(), hdr.begin(), hdr.end());
  with_hdr.insert(with_hdr.end(), eh.begin(), eh.end());
  write("cfi_module", "seed-eh-frame-hdr", with_hdr);
}

void write_cfi_rule_seeds() {
  using Head = sprof::fuzz::CfiRuleInputHead;
  using Kind = sprof::elf::RegisterRule::Kind;
  constexpr uint64_t kStack = 0x7ffd0000;
  const auto tracked = [](sprof::elf::DwarfReg r) {
    return *sprof::elf::FrameRule::tracked_index(r);
  };
  Bytes stack;
  for (uint64_t slot = 0; slot < 16; ++slot) append<uint64_t>(stack, 0x401000 + slot * 0x10);

  Head base;
  base.valid_regs = (1u << 7) | (1u << 6) | (1u << 16);  // rsp, rbp, rip
  base.values[7] = kStack;
  base.values[6] = kStack + 0x40;
  base.values[16] = 0x401234;
  base.stack_start = kStack;
  for (auto& r : base.regs) r.kind = static_cast<uint8_t>(Kind::kSameValue);
  // CFA = register `cfa_reg` + `cfa_offset`; register `saved` stored at CFA + `saved_offset`.
  const auto cfa_rule = [&](uint8_t cfa_reg, int64_t cfa_offset, sprof::elf::DwarfReg saved,
                            int32_t saved_offset) {
    Head h = base;
    h.cfa_reg = cfa_reg;
    h.cfa_offset = cfa_offset;
    h.regs[tracked(saved)] = {static_cast<uint8_t>(Kind::kOffset), 0, 0, 0, 0, saved_offset};
    return h;
  };

  // A function body: CFA = rsp + 8, return address at CFA - 8.
  Head call = cfa_rule(7, 8, sprof::elf::DwarfReg::kRip, -8);
  write("cfi_rule", "seed-rsp-offset", sprof::fuzz::join_cfi_rule_input(call, stack));

  // A frame-pointer frame: CFA = rbp + 16, rbp saved at CFA - 16, return address at CFA - 8.
  Head fp = cfa_rule(6, 16, sprof::elf::DwarfReg::kRbp, -16);
  fp.regs[tracked(sprof::elf::DwarfReg::kRip)] = call.regs[tracked(sprof::elf::DwarfReg::kRip)];
  write("cfi_rule", "seed-rbp-frame", sprof::fuzz::join_cfi_rule_input(fp, stack));

  // ld's PLT rule: CFA = rsp + 8 + ((rip & 15) >= 11) << 3, an expression.
  Head plt = call;
  plt.cfa_kind = 1;
  plt.op_count = 9;
  const auto op = [](sprof::elf::CfiOpcode code, uint64_t a = 0) {
    return Head::Op{static_cast<uint64_t>(code), a, 0};
  };
  using Op = sprof::elf::CfiOpcode;
  const Head::Op ops[] = {op(static_cast<Op>(0x77), 8),  // DW_OP_breg7 (rsp) 8
                          op(Op::kBregx, 16),            // rip + 0
                          op(static_cast<Op>(0x3f)),     // DW_OP_lit15
                          op(Op::kAnd),
                          op(static_cast<Op>(0x3b)),  // DW_OP_lit11
                          op(Op::kGe),
                          op(static_cast<Op>(0x33)),  // DW_OP_lit3
                          op(Op::kShl),
                          op(Op::kPlus)};
  for (size_t i = 0; i < std::size(ops); ++i) plt.ops[i] = ops[i];
  plt.cfa_expr_first = 0;
  plt.cfa_expr_count = 9;
  write("cfi_rule", "seed-plt-expression", sprof::fuzz::join_cfi_rule_input(plt, stack));

  // A signal frame whose registers are read through expressions over the CFA (the sigreturn
  // trampoline's shape): rip at *(CFA + 0xa8), deref'd.
  Head signal = call;
  signal.signal_frame = 1;
  signal.op_count = 3;
  signal.ops[0] = op(Op::kCallFrameCfa);
  signal.ops[1] = op(Op::kPlusUconst, 0x10);
  signal.ops[2] = op(Op::kDeref);
  signal.regs[tracked(sprof::elf::DwarfReg::kRip)] = {
      static_cast<uint8_t>(Kind::kExpression), 0, 0, 2, 0, 0};
  signal.regs[tracked(sprof::elf::DwarfReg::kRbx)] = {
      static_cast<uint8_t>(Kind::kValExpression), 0, 0, 3, 0, 0};
  write("cfi_rule", "seed-signal-expressions", sprof::fuzz::join_cfi_rule_input(signal, stack));

  // The outermost frame: the return address is undefined.
  Head outermost = call;
  outermost.regs[tracked(sprof::elf::DwarfReg::kRip)].kind = static_cast<uint8_t>(Kind::kUndefined);
  write("cfi_rule", "seed-outermost", sprof::fuzz::join_cfi_rule_input(outermost, stack));
}

// ---- heap ring ------------------------------------------------------------------------------

// fuzz_heap_ring.cpp reads each input as one record, and as ring contents behind four control
// bytes (start offset, head mode, every how many records one is left uncommitted).
void write_heap_ring_seeds() {
  namespace heap = sprof::heap::test;
  const Bytes attach = heap::attach_record("/usr/bin/target");
  const Bytes alloc = heap::alloc_record(heap::AllocSpec{});
  const Bytes free = heap::free_record(heap::AllocSpec::default_fields().address);
  write("heap_ring", "seed-attach-record", attach);
  write("heap_ring", "seed-alloc-record", alloc);
  write("heap_ring", "seed-free-record", free);
  // A free recorded with its stack (--heap-free-stacks).
  const Bytes stacked_free = heap::stacked_free_record(heap::StackedFreeSpec{});
  write("heap_ring", "seed-stacked-free-record", stacked_free);
  // Stacks walked in the process: return addresses instead of a stack copy.
  Bytes walked_pcs;
  for (const uint64_t pc : {0x5555'0000'1234ULL, 0x5555'0000'2345ULL, 0x7f00'0000'3456ULL}) {
    heap::append(walked_pcs, pc);
  }
  heap::AllocSpec walked_alloc;
  walked_alloc.flags = sprof::heap::kFlagWalkedStack | sprof::heap::kFlagAllMode;
  walked_alloc.stack = walked_pcs;
  write("heap_ring", "seed-walked-alloc-record", heap::alloc_record(walked_alloc));
  heap::StackedFreeSpec walked_free;
  walked_free.flags = sprof::heap::kFlagFreeStack | sprof::heap::kFlagWalkedStack;
  walked_free.stack = walked_pcs;
  write("heap_ring", "seed-walked-free-record", heap::stacked_free_record(walked_free));
  Bytes ring{0, 0, 0, 0};
  for (const Bytes* record : {&attach, &alloc, &free, &alloc, &stacked_free}) {
    ring.insert(ring.end(), record->begin(), record->end());
  }
  write("heap_ring", "seed-ring", ring);
  Bytes wrapping = ring;
  wrapping[0] = 0xfe;  // start (in 8-byte units, modulo the 64 KiB ring): 16 bytes before the
  wrapping[1] = 0xff;  // end, so the records wrap
  wrapping[3] = 2;     // every second record left uncommitted
  write("heap_ring", "seed-ring-wrapping-uncommitted", wrapping);

  // One process's allocations and frees, then many process images: fork children and exec'd
  // programs announcing themselves, as a shell loop leaves them (the ring carries no exits:
  // those come from perf). The sequence behind a recording of many short-lived images.
  Bytes images{0, 0, 0, 0};
  for (int i = 0; i < 8; ++i) {
    heap::AllocSpec spec;
    spec.fields.address += 0x100 * i;
    const Bytes a = heap::alloc_record(spec);
    const Bytes f = heap::free_record(spec.fields.address);
    images.insert(images.end(), a.begin(), a.end());
    images.insert(images.end(), f.begin(), f.end());
  }
  for (uint32_t child = 0; child < 200; ++child) {
    const auto how =
        child % 2 == 0 ? sprof::heap::AttachHow::kFork : sprof::heap::AttachHow::kStart;
    Bytes a = heap::attach_record("/bin/true", how);
    heap::poke(a, sizeof(sprof::heap::RecordHeader) + offsetof(sprof::heap::EventFields, pid),
               uint32_t{1000 + child / 2});
    images.insert(images.end(), a.begin(), a.end());
  }
  write("heap_ring", "seed-ring-many-images", images);
}

// ---- the interposer's .eh_frame reader ------------------------------------------------------

// fuzz_heap_eh_frame.cpp: 8 bytes of pc, then an image at 0x2800 that starts with .eh_frame_hdr.
// The CFI seed program's own sections (.eh_frame_hdr at 0x2800, .eh_frame at 0x3000) asked about
// addresses across its .text (0x1000 on), and made-up images with each kind of row.
void write_heap_eh_frame_seeds(const std::string& hdr_path, const std::string& eh_path) {
  constexpr uint64_t kImage = 0x2800;
  const auto seed = [](uint64_t pc, const Bytes& image) {
    Bytes out(sizeof pc);
    std::memcpy(out.data(), &pc, sizeof pc);
    out.insert(out.end(), image.begin(), image.end());
    return out;
  };
  Bytes program = read(hdr_path);
  if (program.size() <= 0x800) {
    program.resize(0x800, 0);
    const Bytes eh = read(eh_path);
    program.insert(program.end(), eh.begin(), eh.end());
    for (uint64_t pc = 0x1000; pc < 0x1100; pc += 0x20) {
      write("heap_eh_frame", "seed-program-" + std::to_string(pc), seed(pc, program));
    }
  }
  namespace heap = sprof::heap::test;
  const std::vector<uint8_t> prologue{0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06,
                                      0x0a, 0x4a, 0x0c, 0x07, 0x08, 0xc6, 0x41, 0x0b};
  heap::EhFrameBuilder frame_pointer(kImage, heap::x86_64_cie_instructions());
  frame_pointer.add({0x1000, 0x40, prologue});
  frame_pointer.add({0x1100, 0x20, {0x07, 0x10}});                          // the outermost frame
  frame_pointer.add({0x1200, 0x20, {0x41, 0x0f, 0x03, 0x76, 0x78, 0x06}});  // CFA expression
  const Bytes image = frame_pointer.build();
  for (const uint64_t pc : {0x1000, 0x1001, 0x1004, 0x100f, 0x1104, 0x1202}) {
    write("heap_eh_frame", "seed-built-" + std::to_string(pc), seed(pc, image));
  }
  heap::EhFrameBuilder signal(kImage, heap::x86_64_cie_instructions(), "zRS");
  signal.add({0x1000, 0x10, {}});
  write("heap_eh_frame", "seed-signal-frame", seed(0x1000, signal.build()));
}

// ---- symbol server requests -----------------------------------------------------------------

void write_source_v1_seeds() {
  write(
      "source_v1", "seed-permitted-file",
      std::string(R"({"debugName": "fuzz", "debugId": "0C", "moduleOffset": "0x1004", "file": ")") +
          SPROF_FUZZ_SOURCE_FILE + R"("})");
  write("source_v1", "seed-inlined-file",
        std::string(R"({"debugName": "fuzz", "debugId": "0C", "moduleOffset": 4160, "file": ")") +
            SPROF_FUZZ_SOURCE_FILE + R"("})");
}

// ---- symbol cache files -------------------------------------------------------------------

// The seed library's index as a command that ended after one lookup saves it: a partial file
// (module_index_codec.hpp), whose units and trees are in part left to the module's DWARF.
void write_partial_symbol_cache_seed(const std::string& binary,
                                     const sprof::elf::ModuleIdentity& identity) {
  const sprof::elf::DebugFileLocator locator(sprof::elf::LocatorOptions{{}, {}, {}});
  const std::vector<std::string> candidates{binary};
  const std::string name = fs::path(binary).filename().string();
  const auto located = locator.locate(name, identity.breakpad_id(), candidates);
  if (!located) std::exit(1);
  namespace detail = sprof::symbolicator::detail;
  const auto map = detail::ModuleSymbolMap::build(*located, name);
  if (!map) std::exit(1);
  (void)(*map)->lookup(sprof::RelativeAddress{0x1004});  // what the v5 seeds ask for
  write("symbol_cache", "seed-partial-file",
        detail::encode_module_index(**map, detail::SymbolCache::key_for(*located)));
}

// The seed library's index as the symbolicator saves it: as a whole file (its first byte, 'S',
// is odd: fuzz_symbol_cache.cpp reads it whole), and as a prelude and units after an even byte
// and the byte that splits them (read past both checksums).
void write_symbol_cache_seeds() {
  const fs::path cache = g_out / "symbol-cache-scratch";
  fs::remove_all(cache);
  const std::string binary = SPROF_FUZZ_BINARY_FILE;
  const auto identity = sprof::elf::read_module_identity(binary);
  if (!identity) {
    std::fprintf(stderr, "sprof_fuzz_seed_writer: %s: %s\n", binary.c_str(),
                 identity.error().message.c_str());
    std::exit(1);
  }
  sprof::symbolicator::SymbolicatorOptions options;
  options.debug_roots.clear();
  options.symbol_cache_dir = cache.string();
  {
    sprof::symbolicator::Symbolicator symbolicator(options);
    const std::string name = fs::path(binary).filename().string();
    symbolicator.add_hint({name, identity->breakpad_id(), binary});
    if (!symbolicator.module(name, identity->breakpad_id())) std::exit(1);
    symbolicator.wait_for_symbol_cache();
  }
  for (const auto& entry : fs::directory_iterator(cache)) {
    if (entry.path().extension() != ".idx") continue;
    const Bytes file = read(entry.path().string());
    write("symbol_cache", "seed-whole-file", file);
    // The prelude and units, where the header says they are.
    const auto layout = sprof::symbolicator::detail::module_index_layout(file);
    if (!layout) std::exit(1);
    const Bytes body(file.begin() + static_cast<std::ptrdiff_t>(layout->prelude_offset),
                     file.end());
    Bytes split = {
        0, static_cast<uint8_t>(layout->prelude_size * 256 / std::max<size_t>(body.size(), 1))};
    split.insert(split.end(), body.begin(), body.end());
    write("symbol_cache", "seed-prelude-and-units", split);
  }
  fs::remove_all(cache);
  write_partial_symbol_cache_seed(binary, *identity);
}

// The named section's bytes in a 64-bit little-endian ELF file (the seed programs), read with
// <elf.h>'s layouts alone; empty when it is absent or compressed.
Bytes elf_section(const Bytes& file, const std::string& name) {
  Elf64_Ehdr header;
  if (file.size() < sizeof header) return {};
  std::memcpy(&header, file.data(), sizeof header);
  const auto section_header = [&](size_t index, Elf64_Shdr& out) {
    const uint64_t at = header.e_shoff + index * sizeof(Elf64_Shdr);
    if (index >= header.e_shnum || at + sizeof out > file.size()) return false;
    std::memcpy(&out, file.data() + at, sizeof out);
    return out.sh_offset + out.sh_size <= file.size();
  };
  Elf64_Shdr names;
  if (!section_header(header.e_shstrndx, names)) return {};
  for (size_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!section_header(i, section) || section.sh_name >= names.sh_size) continue;
    const char* section_name =
        reinterpret_cast<const char*>(file.data() + names.sh_offset + section.sh_name);
    if (name != section_name || section.sh_type == SHT_NOBITS ||
        (section.sh_flags & SHF_COMPRESSED) != 0) {
      continue;
    }
    return Bytes(file.begin() + static_cast<ptrdiff_t>(section.sh_offset),
                 file.begin() + static_cast<ptrdiff_t>(section.sh_offset + section.sh_size));
  }
  return {};
}

// fuzz_dwarf_info's framing: nine u32 section lengths, then the sections.
void write_dwarf_info_seed(const std::string& elf_path, const std::string& name) {
  const Bytes file = read(elf_path);
  Bytes seed;
  Bytes bodies;
  for (const char* section :
       {".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
        ".debug_addr", ".debug_ranges", ".debug_rnglists", ".debug_line"}) {
    const Bytes bytes = elf_section(file, section);
    for (int shift = 0; shift < 32; shift += 8) {
      seed.push_back(static_cast<uint8_t>(bytes.size() >> shift));
    }
    bodies.insert(bodies.end(), bytes.begin(), bytes.end());
  }
  seed.insert(seed.end(), bodies.begin(), bodies.end());
  write("dwarf_info", name, seed);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(
        stderr, "usage: %s OUT_DIR GOLDEN_PROFILE EH_FRAME_HDR EH_FRAME DEBUG_FRAME DWARF_ELF...\n",
        argv[0]);
    return 2;
  }
  g_out = argv[1];
  write_perf_record_seeds();
  write_perf_data_seeds();
  write_jitdump_seeds();
  write_kernel_notes_seeds();
  write_profile_seeds(argv[2]);
  write_cfi_module_seeds(argv[3], argv[4], argv[5]);
  write_cfi_rule_seeds();
  write_heap_ring_seeds();
  write_heap_eh_frame_seeds(argv[3], argv[4]);
  write_source_v1_seeds();
  write_symbol_cache_seeds();
  for (int i = 6; i < argc; ++i) write_dwarf_info_seed(argv[i], "seed-" + std::to_string(i - 5));
  return 0;
}
