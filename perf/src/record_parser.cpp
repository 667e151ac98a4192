#include "sprof/perf/record_parser.hpp"

#include <sys/mman.h>

#include <string>

#include "sprof/core/byte_reader.hpp"

namespace sprof::perf {

namespace {

// One `struct perf_branch_entry` (from, to, flags bitfield) per PERF_SAMPLE_BRANCH_STACK entry.
static_assert(sizeof(perf_branch_entry) == 24, "uapi perf_branch_entry is three u64");

Unexpected malformed(const char* record, const char* what) {
  return fail(Errc::kMalformed, std::string(record) + ": " + what);
}

// Skips `count` items of `item_bytes` each, refusing counts that would overflow or run past the
// end (a corrupt `nr` must not make us reserve or walk gigabytes).
bool skip_items(ByteReader& r, uint64_t count, uint64_t item_bytes) {
  if (item_bytes != 0 && count > r.remaining() / item_bytes) return r.skip(r.remaining() + 1);
  return r.skip(static_cast<size_t>(count * item_bytes));
}

// Reads `abi` and, unless it is PERF_SAMPLE_REGS_ABI_NONE (a kernel thread has no user
// registers), one u64 per bit of the register mask.
bool read_regs(ByteReader& r, uint32_t count, uint64_t& abi, std::vector<uint64_t>* out) {
  abi = r.u64();
  if (!r.ok() || abi == PERF_SAMPLE_REGS_ABI_NONE) return r.ok();
  if (out == nullptr) return skip_items(r, count, 8);
  if (count > r.remaining() / 8) return r.skip(r.remaining() + 1);
  out->resize(count);
  for (auto& v : *out) v = r.u64();
  return r.ok();
}

// The sample_id_all trailer (uapi `struct sample_id`) at the end of a non-sample record body.
// Returns the body without the trailer, or an empty optional when the body is too short.
std::optional<std::span<const uint8_t>> split_trailer(std::span<const uint8_t> body,
                                                      const SampleLayout& layout, SampleId& id) {
  const size_t trailer = layout.sample_id_trailer_bytes();
  if (body.size() < trailer) return std::nullopt;
  ByteReader r(body.subspan(body.size() - trailer));
  if (trailer != 0) {
    if (layout.has(PERF_SAMPLE_TID)) {
      id.pid = r.u32();
      id.tid = r.u32();
    }
    if (layout.has(PERF_SAMPLE_TIME)) id.time = r.u64();
    if (layout.has(PERF_SAMPLE_ID)) r.skip(8);
    if (layout.has(PERF_SAMPLE_STREAM_ID)) r.skip(8);
    if (layout.has(PERF_SAMPLE_CPU)) {
      id.cpu = r.u32();
      r.skip(4);  // res
    }
    if (layout.has(PERF_SAMPLE_IDENTIFIER)) r.skip(8);
  }
  return body.first(body.size() - trailer);
}

// PERF_RECORD_SAMPLE, fields in the order of the uapi comment on `PERF_RECORD_SAMPLE`.
Result<Record> parse_sample(uint16_t misc, std::span<const uint8_t> body, const SampleLayout& l,
                            StackCopy stack) {
  constexpr const char* kName = "PERF_RECORD_SAMPLE";
  ByteReader r(body);
  SampleRecord s;
  s.kernel_mode = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

  if (l.has(PERF_SAMPLE_IDENTIFIER)) s.event_id = r.u64();
  if (l.has(PERF_SAMPLE_IP)) s.ip = r.u64();
  if (l.has(PERF_SAMPLE_TID)) {
    s.id.pid = r.u32();
    s.id.tid = r.u32();
  }
  if (l.has(PERF_SAMPLE_TIME)) s.id.time = r.u64();
  if (l.has(PERF_SAMPLE_ADDR)) r.skip(8);
  if (l.has(PERF_SAMPLE_ID)) {
    // Same value as PERF_SAMPLE_IDENTIFIER when both are set.
    const uint64_t event_id = r.u64();
    if (!l.has(PERF_SAMPLE_IDENTIFIER)) s.event_id = event_id;
  }
  if (l.has(PERF_SAMPLE_STREAM_ID)) r.skip(8);
  if (l.has(PERF_SAMPLE_CPU)) {
    s.id.cpu = r.u32();
    r.skip(4);  // res
  }
  if (l.has(PERF_SAMPLE_PERIOD)) s.period = r.u64();
  if (l.has(PERF_SAMPLE_READ)) {
    if (l.read_format() & PERF_FORMAT_GROUP) {
      const uint64_t nr = r.u64();
      r.skip(l.read_fixed_bytes() - 8);
      skip_items(r, nr, l.read_group_entry_bytes());
    } else {
      // { u64 value; then the optional times, id and lost count }
      s.read_value = r.u64();
      r.skip(l.read_fixed_bytes() - 8);
    }
    if (!r.ok()) return malformed(kName, "truncated in read_format");
  }
  if (l.has(PERF_SAMPLE_CALLCHAIN)) {
    const uint64_t nr = r.u64();
    if (!r.ok() || nr > r.remaining() / 8) return malformed(kName, "callchain nr exceeds record");
    s.callchain.resize(static_cast<size_t>(nr));
    for (auto& ip : s.callchain) ip = r.u64();
  }
  if (l.has(PERF_SAMPLE_RAW)) {
    // u32 size; char data[size]; the kernel pads `size` so the pair ends u64-aligned.
    const uint32_t size = r.u32();
    if (!r.skip(size)) return malformed(kName, "raw size exceeds record");
  }
  if (l.has(PERF_SAMPLE_BRANCH_STACK)) {
    const uint64_t nr = r.u64();
    if (l.branch_hw_index()) r.skip(8);
    if (!skip_items(r, nr, sizeof(perf_branch_entry))) {
      return malformed(kName, "branch stack nr exceeds record");
    }
  }
  if (l.has(PERF_SAMPLE_REGS_USER) &&
      !read_regs(r, l.regs_user_count(), s.regs_user_abi, &s.regs_user)) {
    return malformed(kName, "truncated in regs_user");
  }
  if (!s.regs_user.empty()) s.sample_regs_user = l.sample_regs_user();
  if (l.has(PERF_SAMPLE_STACK_USER)) {
    // u64 size; char data[size]; u64 dyn_size — but only `size` when it is 0 (no user regs,
    // e.g. a kernel thread): the kernel then emits neither data nor dyn_size.
    const uint64_t size = r.u64();
    if (!r.ok() || size > r.remaining()) return malformed(kName, "stack_user size exceeds record");
    if (size != 0) {
      const auto data = r.bytes(static_cast<size_t>(size));
      const uint64_t dyn_size = r.u64();
      if (!r.ok()) return malformed(kName, "truncated at stack_user dyn_size");
      // dyn_size is how much of the copy the kernel actually filled; never trust it past `size`.
      const size_t used = static_cast<size_t>(dyn_size < size ? dyn_size : size);
      if (stack == StackCopy::kBorrow) {
        s.stack_user = StackBytes::borrow(data.first(used));
      } else {
        s.stack_user.assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(used));
      }
    }
  }
  // PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT share one u64 slot (union perf_sample_weight).
  if (l.has(PERF_SAMPLE_WEIGHT) || l.has(PERF_SAMPLE_WEIGHT_STRUCT)) r.skip(8);
  if (l.has(PERF_SAMPLE_DATA_SRC)) r.skip(8);
  if (l.has(PERF_SAMPLE_TRANSACTION)) r.skip(8);
  if (l.has(PERF_SAMPLE_REGS_INTR)) {
    uint64_t abi = 0;
    read_regs(r, l.regs_intr_count(), abi, nullptr);
  }
  if (l.has(PERF_SAMPLE_PHYS_ADDR)) r.skip(8);
  if (l.has(PERF_SAMPLE_CGROUP)) r.skip(8);
  if (l.has(PERF_SAMPLE_DATA_PAGE_SIZE)) r.skip(8);
  if (l.has(PERF_SAMPLE_CODE_PAGE_SIZE)) r.skip(8);
  if (l.has(PERF_SAMPLE_AUX)) {
    const uint64_t size = r.u64();
    skip_items(r, size, 1);
  }
  if (!r.ok()) return malformed(kName, "truncated");
  // Trailing bytes are tolerated: newer kernels may pad records.
  return Record{std::move(s)};
}

// PERF_RECORD_MMAP { pid, tid, addr, len, pgoff, filename[] } and PERF_RECORD_MMAP2, which
// inserts { maj, min, ino, ino_generation } or, with PERF_RECORD_MISC_MMAP_BUILD_ID,
// { u8 build_id_size, u8 res, u16 res, u8 build_id[20] } in the same 24 bytes, then
// { prot, flags } before the filename.
Result<Record> parse_mmap(bool is_mmap2, uint16_t misc, std::span<const uint8_t> body,
                          const SampleLayout& l) {
  const char* name = is_mmap2 ? "PERF_RECORD_MMAP2" : "PERF_RECORD_MMAP";
  Mmap2Record m;
  const auto fields = split_trailer(body, l, m.id);
  if (!fields) return malformed(name, "shorter than its sample_id trailer");
  ByteReader r(*fields);
  m.pid = r.u32();
  m.tid = r.u32();
  m.addr = r.u64();
  m.len = r.u64();
  m.pgoff = r.u64();
  if (is_mmap2) {
    if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      uint8_t size = 0;  // build_id_size, then u8 + u16 reserved
      r.read(size);
      r.skip(3);
      const auto id = r.bytes(20);
      if (r.ok() && size > 20) return malformed(name, "build_id_size above 20");
      if (r.ok()) m.build_id = BuildId(std::vector<uint8_t>(id.begin(), id.begin() + size));
    } else {
      m.maj = r.u32();
      m.min = r.u32();
      m.ino = r.u64();
      m.ino_generation = r.u64();
    }
    m.prot = r.u32();
    m.flags = r.u32();
    m.executable = (m.prot & PROT_EXEC) != 0;
  } else {
    // Old MMAP records only say "data" (PERF_RECORD_MISC_MMAP_DATA) or not.
    m.executable = (misc & PERF_RECORD_MISC_MMAP_DATA) == 0;
  }
  // The filename is NUL-terminated and padded to u64; the padding may end right at the trailer.
  m.filename = std::string(r.padded_string(r.remaining()));
  if (!r.ok()) return malformed(name, "truncated");
  return Record{std::move(m)};
}

// PERF_RECORD_COMM { pid, tid, comm[] }.
Result<Record> parse_comm(uint16_t misc, std::span<const uint8_t> body, const SampleLayout& l) {
  CommRecord c;
  const auto fields = split_trailer(body, l, c.id);
  if (!fields) return malformed("PERF_RECORD_COMM", "shorter than its sample_id trailer");
  ByteReader r(*fields);
  c.pid = r.u32();
  c.tid = r.u32();
  c.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  c.comm = std::string(r.padded_string(r.remaining()));
  if (!r.ok()) return malformed("PERF_RECORD_COMM", "truncated");
  return Record{std::move(c)};
}

// PERF_RECORD_FORK / PERF_RECORD_EXIT { pid, ppid, tid, ptid, time }.
template <typename T>
Result<Record> parse_task(const char* name, std::span<const uint8_t> body, const SampleLayout& l) {
  T t;
  const auto fields = split_trailer(body, l, t.id);
  if (!fields) return malformed(name, "shorter than its sample_id trailer");
  ByteReader r(*fields);
  t.pid = r.u32();
  t.ppid = r.u32();
  t.tid = r.u32();
  t.ptid = r.u32();
  t.time = r.u64();
  if (!r.ok()) return malformed(name, "truncated");
  return Record{std::move(t)};
}

Result<Record> parse_lost(std::span<const uint8_t> body, const SampleLayout& l) {
  LostRecord rec;  // { u64 id; u64 lost; }
  const auto fields = split_trailer(body, l, rec.id);
  if (!fields) return malformed("PERF_RECORD_LOST", "shorter than its sample_id trailer");
  ByteReader r(*fields);
  r.skip(8);
  rec.lost = r.u64();
  if (!r.ok()) return malformed("PERF_RECORD_LOST", "truncated");
  return Record{rec};
}

Result<Record> parse_lost_samples(std::span<const uint8_t> body, const SampleLayout& l) {
  LostSamplesRecord rec;  // { u64 lost; }
  const auto fields = split_trailer(body, l, rec.id);
  if (!fields) return malformed("PERF_RECORD_LOST_SAMPLES", "shorter than its sample_id trailer");
  ByteReader r(*fields);
  rec.lost = r.u64();
  if (!r.ok()) return malformed("PERF_RECORD_LOST_SAMPLES", "truncated");
  return Record{rec};
}

// PERF_RECORD_THROTTLE / UNTHROTTLE { u64 time, id, stream_id; }.
Result<Record> parse_throttle(bool throttled, std::span<const uint8_t> body,
                              const SampleLayout& l) {
  const char* name = throttled ? "PERF_RECORD_THROTTLE" : "PERF_RECORD_UNTHROTTLE";
  ThrottleRecord rec;
  rec.throttled = throttled;
  const auto fields = split_trailer(body, l, rec.id);
  if (!fields) return malformed(name, "shorter than its sample_id trailer");
  ByteReader r(*fields);
  rec.time = r.u64();
  r.skip(16);
  if (!r.ok()) return malformed(name, "truncated");
  return Record{rec};
}

// PERF_RECORD_SWITCH has only the trailer; PERF_RECORD_SWITCH_CPU_WIDE adds
// { next_prev_pid, next_prev_tid }.
Result<Record> parse_switch(bool cpu_wide, uint16_t misc, std::span<const uint8_t> body,
                            const SampleLayout& l) {
  const char* name = cpu_wide ? "PERF_RECORD_SWITCH_CPU_WIDE" : "PERF_RECORD_SWITCH";
  SwitchRecord rec;
  rec.cpu_wide = cpu_wide;
  rec.out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  rec.preempted = (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
  const auto fields = split_trailer(body, l, rec.id);
  if (!fields) return malformed(name, "shorter than its sample_id trailer");
  if (cpu_wide) {
    ByteReader r(*fields);
    rec.next_prev_pid = r.u32();
    rec.next_prev_tid = r.u32();
    if (!r.ok()) return malformed(name, "truncated");
  }
  return Record{rec};
}

}  // namespace

Result<Record> parse_record(RawRecord raw, const SampleLayout& layout, StackCopy stack) {
  const perf_event_header h = raw.header();
  if (raw.bytes.size() < sizeof h) return malformed("perf record", "shorter than its header");
  // Records are u64-aligned (the ring buffer relies on it), and `size` covers the header.
  if (h.size != raw.bytes.size() || h.size % 8 != 0) {
    return malformed("perf record", "header.size does not match the record bytes");
  }
  const auto body = raw.bytes.subspan(sizeof h);
  switch (h.type) {
    case PERF_RECORD_SAMPLE: return parse_sample(h.misc, body, layout, stack);
    case PERF_RECORD_MMAP: return parse_mmap(false, h.misc, body, layout);
    case PERF_RECORD_MMAP2: return parse_mmap(true, h.misc, body, layout);
    case PERF_RECORD_COMM: return parse_comm(h.misc, body, layout);
    case PERF_RECORD_FORK: return parse_task<ForkRecord>("PERF_RECORD_FORK", body, layout);
    case PERF_RECORD_EXIT: return parse_task<ExitRecord>("PERF_RECORD_EXIT", body, layout);
    case PERF_RECORD_LOST: return parse_lost(body, layout);
    case PERF_RECORD_LOST_SAMPLES: return parse_lost_samples(body, layout);
    case PERF_RECORD_THROTTLE: return parse_throttle(true, body, layout);
    case PERF_RECORD_UNTHROTTLE: return parse_throttle(false, body, layout);
    case PERF_RECORD_SWITCH: return parse_switch(false, h.misc, body, layout);
    case PERF_RECORD_SWITCH_CPU_WIDE: return parse_switch(true, h.misc, body, layout);
    default:
      return fail(Errc::kUnsupported,
                  "perf record type " + std::to_string(h.type) + " is not decoded");
  }
}

}  // namespace sprof::perf
