#include "sprof/perf/record_parser.hpp"

#include <doctest/doctest.h>
#include <sys/mman.h>

#include "record_builder.hpp"
#include "sprof/arch/x86_64.hpp"

namespace perf = sprof::perf;
using sprof::Errc;
using sprof::test::make_layout;
using sprof::test::RecordBuilder;
using sprof::test::SampleSpec;

namespace {

// The sample_type sprof opens with (perf_event.cpp), without and with DWARF unwinding data.
constexpr uint64_t kBasicSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
constexpr uint64_t kDwarfSampleType =
    kBasicSampleType | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
constexpr uint64_t kRegsMask = sprof::arch::x86_64::kUnwindRegsMask;

perf::SampleId some_id() { return perf::SampleId{100, 101, 123456789, 1}; }

perf::Record parse_ok(const std::vector<uint8_t>& bytes, const perf::SampleLayout& layout) {
  auto r = perf::parse_record(perf::RawRecord{bytes}, layout);
  if (!r) FAIL(r.error().message);
  return *r;
}

sprof::Error parse_error(const std::vector<uint8_t>& bytes, const perf::SampleLayout& layout) {
  auto r = perf::parse_record(perf::RawRecord{bytes}, layout);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

perf::SampleRecord basic_sample() {
  perf::SampleRecord s;
  s.id = some_id();
  s.ip = 0x401234;
  s.period = 1000000;
  s.callchain = {PERF_CONTEXT_USER, 0x401234, 0x401100, 0x400f00};
  return s;
}

void check_same_id(const perf::SampleId& a, const perf::SampleId& b) {
  CHECK(a.pid == b.pid);
  CHECK(a.tid == b.tid);
  CHECK(a.time == b.time);
  CHECK(a.cpu == b.cpu);
}

// Sets the length field that follows `offset` bytes of body to `value`.
void poke_u64(std::vector<uint8_t>& bytes, size_t offset_in_record, uint64_t value) {
  std::memcpy(bytes.data() + offset_in_record, &value, sizeof value);
}

}  // namespace

TEST_CASE("parser decodes a sample with ip, tid, time, cpu, period and callchain") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  SampleSpec spec;
  spec.record = basic_sample();
  spec.misc = PERF_RECORD_MISC_KERNEL;
  const auto rec = parse_ok(b.sample(spec), layout);
  const auto& s = std::get<perf::SampleRecord>(rec);
  check_same_id(s.id, some_id());
  CHECK(s.ip == 0x401234);
  CHECK(s.period == 1000000);
  CHECK(s.kernel_mode);
  CHECK(s.callchain == spec.record.callchain);
  CHECK(s.regs_user.empty());
  CHECK(s.stack_user.empty());
  CHECK(perf::record_time(rec) == some_id().time);
}

TEST_CASE("parser decodes user registers and the stack copy trimmed to dyn_size") {
  const auto layout = make_layout(kDwarfSampleType, true, kRegsMask);
  REQUIRE(layout.regs_user_count() == 17);
  RecordBuilder b(layout);
  SampleSpec spec;
  spec.record = basic_sample();
  spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
  for (uint64_t i = 0; i < 17; ++i) spec.record.regs_user.push_back(0x1000 + i);

  SUBCASE("dyn_size below size keeps only the filled part") {
    spec.record.stack_user = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    spec.stack_size = 64;
    spec.stack_dyn_size = 12;
    const auto s = std::get<perf::SampleRecord>(parse_ok(b.sample(spec), layout));
    CHECK(s.regs_user_abi == PERF_SAMPLE_REGS_ABI_64);
    CHECK(s.regs_user == spec.record.regs_user);
    CHECK(s.stack_user == spec.record.stack_user);
    CHECK(s.callchain == spec.record.callchain);
  }
  SUBCASE("dyn_size above size is bounded by size") {
    spec.record.stack_user = std::vector<uint8_t>(32, 0x42);
    spec.stack_size = 32;
    spec.stack_dyn_size = 4096;
    const auto s = std::get<perf::SampleRecord>(parse_ok(b.sample(spec), layout));
    CHECK(s.stack_user.size() == 32);
  }
  SUBCASE("a kernel thread has ABI_NONE, no registers, and a zero-size stack without dyn_size") {
    spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_NONE;
    spec.record.regs_user.clear();
    spec.record.stack_user.clear();
    spec.stack_size = 0;
    const auto bytes = b.sample(spec);
    const auto s = std::get<perf::SampleRecord>(parse_ok(bytes, layout));
    CHECK(s.regs_user_abi == PERF_SAMPLE_REGS_ABI_NONE);
    CHECK(s.regs_user.empty());
    CHECK(s.stack_user.empty());
    // header + ip + tid + time + cpu + period + (nr + 4 ips) + abi + stack size
    CHECK(bytes.size() == 8 + 8 + 8 + 8 + 8 + 8 + 5 * 8 + 8 + 8);
  }
}

TEST_CASE("parser walks every supported sample field in uapi order") {
  // Fields the parser skips are filler; skipping one with the wrong size would shift the
  // fields sprof keeps (several come after them) and the checks below would fail.
  const uint64_t every = perf::SampleLayout::kSupportedSampleType & ~PERF_SAMPLE_WEIGHT;
  const uint64_t read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                               PERF_FORMAT_ID | PERF_FORMAT_LOST;

  SUBCASE("read_format without group") {
    const auto layout =
        make_layout(every, true, kRegsMask, read_format, 0x3, PERF_SAMPLE_BRANCH_HW_INDEX);
    REQUIRE(layout.branch_hw_index());
    RecordBuilder b(layout);
    SampleSpec spec;
    spec.record = basic_sample();
    spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
    spec.record.regs_user.assign(17, 7);
    spec.record.stack_user = {9, 9, 9, 9, 9, 9, 9, 9};
    spec.raw_size = 12;
    spec.branch_nr = 3;
    const auto s = std::get<perf::SampleRecord>(parse_ok(b.sample(spec), layout));
    check_same_id(s.id, some_id());
    CHECK(s.ip == spec.record.ip);
    CHECK(s.period == spec.record.period);
    CHECK(s.callchain == spec.record.callchain);
    CHECK(s.regs_user == spec.record.regs_user);
    CHECK(s.stack_user == spec.record.stack_user);
  }
  SUBCASE("read_format with group, weight instead of weight_struct, regs_intr ABI_NONE") {
    const uint64_t type = (every & ~PERF_SAMPLE_WEIGHT_STRUCT) | PERF_SAMPLE_WEIGHT;
    const auto layout = make_layout(type, true, kRegsMask, read_format | PERF_FORMAT_GROUP, 0xff);
    RecordBuilder b(layout);
    SampleSpec spec;
    spec.record = basic_sample();
    spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
    spec.record.regs_user.assign(17, 3);
    spec.read_group_nr = 3;
    spec.regs_intr_abi = PERF_SAMPLE_REGS_ABI_NONE;
    const auto s = std::get<perf::SampleRecord>(parse_ok(b.sample(spec), layout));
    check_same_id(s.id, some_id());
    CHECK(s.callchain == spec.record.callchain);
    CHECK(s.regs_user == spec.record.regs_user);
  }
}

TEST_CASE("sample layout rejects sample_type and read_format bits it cannot walk") {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_IP | (1ULL << 40);
  auto l = perf::SampleLayout::from_attr(attr);
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().code == Errc::kUnsupported);
  CHECK(l.error().message.find("0x10000000000") != std::string::npos);

  attr.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
  CHECK_FALSE(perf::SampleLayout::from_attr(attr).has_value());

  attr.sample_type = PERF_SAMPLE_READ;
  attr.read_format = 1ULL << 20;
  CHECK_FALSE(perf::SampleLayout::from_attr(attr).has_value());
}

TEST_CASE("sample layout computes the sample_id trailer size from sample_type") {
  CHECK(make_layout(kBasicSampleType).sample_id_trailer_bytes() == 24);  // tid, time, cpu
  CHECK(make_layout(kBasicSampleType, false).sample_id_trailer_bytes() == 0);
  CHECK(make_layout(kBasicSampleType | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                    PERF_SAMPLE_IDENTIFIER)
            .sample_id_trailer_bytes() == 48);
}

TEST_CASE("parser decodes MMAP2 records, including the build-id variant") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::Mmap2Record m;
  m.id = some_id();
  m.pid = 100;
  m.tid = 100;
  m.addr = 0x7f0000001000;
  m.len = 0x5000;
  m.pgoff = 0x1000;
  m.prot = PROT_READ | PROT_EXEC;
  m.flags = MAP_PRIVATE;
  m.filename = "/usr/lib/x86_64-linux-gnu/libc.so.6";

  SUBCASE("device and inode") {
    m.maj = 8;
    m.min = 1;
    m.ino = 424242;
    m.ino_generation = 7;
    const auto r = std::get<perf::Mmap2Record>(parse_ok(b.mmap2(m), layout));
    check_same_id(r.id, m.id);
    CHECK(r.pid == 100);
    CHECK(r.addr == m.addr);
    CHECK(r.len == m.len);
    CHECK(r.pgoff == m.pgoff);
    CHECK(r.maj == 8);
    CHECK(r.min == 1);
    CHECK(r.ino == 424242);
    CHECK(r.ino_generation == 7);
    CHECK(r.prot == m.prot);
    CHECK(r.flags == m.flags);
    CHECK(r.executable);
    CHECK(r.build_id.empty());
    CHECK(r.filename == m.filename);
  }
  SUBCASE("PERF_RECORD_MISC_MMAP_BUILD_ID puts a build-id where maj/min/ino were") {
    std::vector<uint8_t> id;
    for (uint8_t i = 0; i < 20; ++i) id.push_back(static_cast<uint8_t>(0xa0 + i));
    m.build_id = sprof::BuildId(id);
    m.prot = PROT_READ;
    const auto r = std::get<perf::Mmap2Record>(parse_ok(b.mmap2(m), layout));
    CHECK(r.build_id == m.build_id);
    CHECK(r.maj == 0);
    CHECK(r.ino == 0);
    CHECK_FALSE(r.executable);
    CHECK(r.filename == m.filename);
    check_same_id(r.id, m.id);
  }
  SUBCASE("a short build-id keeps only build_id_size bytes") {
    m.build_id = sprof::BuildId({1, 2, 3, 4, 5, 6, 7, 8});
    const auto r = std::get<perf::Mmap2Record>(parse_ok(b.mmap2(m), layout));
    CHECK(r.build_id.bytes().size() == 8);
    CHECK(r.build_id == m.build_id);
  }
  SUBCASE("a filename that fills its padding exactly") {
    m.filename = "1234567";  // 7 chars + NUL = 8
    const auto r = std::get<perf::Mmap2Record>(parse_ok(b.mmap2(m), layout));
    CHECK(r.filename == "1234567");
  }
}

TEST_CASE("parser decodes old MMAP records and their data flag") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::Mmap2Record m;
  m.id = some_id();
  m.pid = 5;
  m.tid = 6;
  m.addr = 0x1000;
  m.len = 0x2000;
  m.filename = "[vdso]";
  auto r = std::get<perf::Mmap2Record>(parse_ok(b.mmap(m), layout));
  CHECK(r.executable);
  CHECK(r.filename == "[vdso]");
  CHECK(r.tid == 6);
  check_same_id(r.id, m.id);
  r = std::get<perf::Mmap2Record>(parse_ok(b.mmap(m, true), layout));
  CHECK_FALSE(r.executable);
}

TEST_CASE("parser decodes COMM records with and without the exec flag") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::CommRecord c;
  c.id = some_id();
  c.pid = 100;
  c.tid = 102;
  c.comm = "worker-thread";
  for (bool exec : {false, true}) {
    CAPTURE(exec);
    c.exec = exec;
    const auto r = std::get<perf::CommRecord>(parse_ok(b.comm(c), layout));
    CHECK(r.pid == 100);
    CHECK(r.tid == 102);
    CHECK(r.comm == "worker-thread");
    CHECK(r.exec == exec);
    check_same_id(r.id, c.id);
  }
}

TEST_CASE("parser decodes FORK and EXIT records") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::ForkRecord f;
  f.id = some_id();
  f.pid = 100;
  f.ppid = 100;
  f.tid = 103;
  f.ptid = 100;
  f.time = 555;
  const auto fr = std::get<perf::ForkRecord>(parse_ok(b.fork(f), layout));
  CHECK(fr.pid == 100);
  CHECK(fr.ppid == 100);
  CHECK(fr.tid == 103);
  CHECK(fr.ptid == 100);
  CHECK(fr.time == 555);
  check_same_id(fr.id, f.id);

  perf::ExitRecord e;
  e.id = some_id();
  e.pid = 100;
  e.ppid = 1;
  e.tid = 100;
  e.ptid = 1;
  e.time = 777;
  const auto er = std::get<perf::ExitRecord>(parse_ok(b.exit(e), layout));
  CHECK(er.ppid == 1);
  CHECK(er.time == 777);
  check_same_id(er.id, e.id);
}

TEST_CASE("parser decodes LOST, LOST_SAMPLES, THROTTLE and UNTHROTTLE records") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::LostRecord lost;
  lost.id = some_id();
  lost.lost = 42;
  CHECK(std::get<perf::LostRecord>(parse_ok(b.lost(lost), layout)).lost == 42);

  perf::LostSamplesRecord ls;
  ls.id = some_id();
  ls.lost = 9;
  const auto lsr = std::get<perf::LostSamplesRecord>(parse_ok(b.lost_samples(ls), layout));
  CHECK(lsr.lost == 9);
  check_same_id(lsr.id, ls.id);

  for (bool throttled : {true, false}) {
    perf::ThrottleRecord t;
    t.id = some_id();
    t.time = 999;
    t.throttled = throttled;
    const auto tr = std::get<perf::ThrottleRecord>(parse_ok(b.throttle(t), layout));
    CHECK(tr.throttled == throttled);
    CHECK(tr.time == 999);
    check_same_id(tr.id, t.id);
  }
}

TEST_CASE("parser decodes SWITCH and SWITCH_CPU_WIDE records") {
  const auto layout = make_layout(kBasicSampleType);
  RecordBuilder b(layout);
  perf::SwitchRecord sw;
  sw.id = some_id();
  sw.out = true;
  sw.preempted = true;
  auto r = std::get<perf::SwitchRecord>(parse_ok(b.context_switch(sw, false), layout));
  CHECK(r.out);
  CHECK(r.preempted);
  CHECK_FALSE(r.cpu_wide);
  check_same_id(r.id, sw.id);

  sw.out = false;
  sw.preempted = false;
  sw.next_prev_pid = 300;
  sw.next_prev_tid = 301;
  r = std::get<perf::SwitchRecord>(parse_ok(b.context_switch(sw, true), layout));
  CHECK_FALSE(r.out);
  CHECK(r.cpu_wide);
  CHECK(r.next_prev_pid == 300);
  CHECK(r.next_prev_tid == 301);
}

TEST_CASE("without sample_id_all, non-sample records have a zero sample id") {
  const auto layout = make_layout(kBasicSampleType, false);
  RecordBuilder b(layout);
  perf::CommRecord c;
  c.id = some_id();
  c.pid = 1;
  c.tid = 2;
  c.comm = "x";
  const auto bytes = b.comm(c);
  CHECK(bytes.size() == 8 + 8 + 8);  // header, pid/tid, "x\0" padded
  const auto r = std::get<perf::CommRecord>(parse_ok(bytes, layout));
  CHECK(r.comm == "x");
  CHECK(r.id.time == 0);
  CHECK(r.id.tid == 0);
}

TEST_CASE("unknown record types are skipped, not malformed") {
  const auto layout = make_layout(kBasicSampleType);
  const auto bytes = RecordBuilder::opaque(PERF_RECORD_KSYMBOL, 32);
  const auto e = parse_error(bytes, layout);
  CHECK(e.code == Errc::kUnsupported);
  CHECK(perf::is_skipped_record(e));
}

TEST_CASE("truncated and oversized records are malformed") {
  const auto layout = make_layout(kDwarfSampleType, true, kRegsMask);
  RecordBuilder b(layout);
  SampleSpec spec;
  spec.record = basic_sample();
  spec.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
  spec.record.regs_user.assign(17, 1);
  spec.record.stack_user.assign(64, 2);
  const auto good = b.sample(spec);
  REQUIRE(perf::parse_record(perf::RawRecord{good}, layout).has_value());

  SUBCASE("shorter than a header") {
    const std::vector<uint8_t> tiny(good.begin(), good.begin() + 4);
    CHECK(parse_error(tiny, layout).code == Errc::kMalformed);
  }
  SUBCASE("header.size larger than the bytes") {
    std::vector<uint8_t> cut(good.begin(), good.end() - 8);
    CHECK(parse_error(cut, layout).code == Errc::kMalformed);
  }
  SUBCASE("every truncation of the sample fails cleanly") {
    for (size_t len = 8; len < good.size(); len += 8) {
      CAPTURE(len);
      std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
      const uint16_t size = static_cast<uint16_t>(len);
      std::memcpy(cut.data() + 6, &size, 2);  // a consistent header.size
      CHECK(parse_error(cut, layout).code == Errc::kMalformed);
    }
  }
  SUBCASE("callchain nr larger than the record") {
    auto bad = good;
    poke_u64(bad, 8 + 8 + 8 + 8 + 8 + 8, 1ULL << 40);  // after header, ip, tid, time, cpu, period
    CHECK(parse_error(bad, layout).code == Errc::kMalformed);
  }
  SUBCASE("stack size larger than the record") {
    auto bad = good;
    const size_t stack_size_at = 8 + 5 * 8 + 8 + 4 * 8 + 8 + 17 * 8;
    uint64_t size = 0;
    std::memcpy(&size, bad.data() + stack_size_at, 8);
    REQUIRE(size == 64);
    poke_u64(bad, stack_size_at, 0xFFFFFFFFFFFF);
    CHECK(parse_error(bad, layout).code == Errc::kMalformed);
  }
  SUBCASE("non-sample records shorter than their fields and trailer") {
    perf::ForkRecord f;
    f.id = some_id();
    auto fork = b.fork(f);
    std::vector<uint8_t> cut(fork.begin(), fork.end() - 16);
    const uint16_t size = static_cast<uint16_t>(cut.size());
    std::memcpy(cut.data() + 6, &size, 2);
    CHECK(parse_error(cut, layout).code == Errc::kMalformed);
  }
  SUBCASE("an MMAP2 build-id size above 20") {
    perf::Mmap2Record m;
    m.filename = "/bin/x";
    m.build_id = sprof::BuildId(std::vector<uint8_t>(20, 1));
    auto bytes = b.mmap2(m);
    bytes[8 + 8 + 24] = 21;  // build_id_size after pid/tid, addr, len, pgoff
    CHECK(parse_error(bytes, layout).code == Errc::kMalformed);
  }
}
