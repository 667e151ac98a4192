// tests/support/record_builder.hpp
//
// Writes perf record bytes, as the kernel would put them in a ring buffer, for a given
// `SampleLayout`: the input for parser, ring buffer, merger and converter tests without a
// kernel. Layouts come from a `perf_event_attr`, exactly like in production.
//
// Fields sprof's records do not keep (addr, stream_id, weight, ...) are written with
// recognisable filler so a parser that misplaces a field reads garbage and the test fails. The
// event id (PERF_SAMPLE_IDENTIFIER / PERF_SAMPLE_ID) is the builder's `event_id`, the filler
// unless a test names its events.
#pragma once

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sprof/perf/records.hpp"
#include "sprof/perf/sample_layout.hpp"

namespace sprof::test {

namespace perf = ::sprof::perf;

// Appends host-endian values, like the kernel's perf_output_put.
class ByteWriter {
 public:
  template <typename T>
  ByteWriter& put(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
    return *this;
  }
  ByteWriter& put_bytes(std::span<const uint8_t> b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  // A NUL-terminated string padded with zeros to a multiple of 8 bytes (COMM, MMAP filenames).
  ByteWriter& put_padded_string(const std::string& s) {
    const size_t n = (s.size() + 1 + 7) / 8 * 8;
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.insert(bytes_.end(), n - s.size(), 0);
    return *this;
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Filler for fields the parser must skip.
inline constexpr uint64_t kFiller = 0xF111F111F111F111ULL;

// Everything a PERF_RECORD_SAMPLE can carry. `record` holds what the parser must give back; the
// rest shapes the bytes.
struct SampleSpec {
  perf::SampleRecord record;
  uint16_t misc = PERF_RECORD_MISC_USER;  // PERF_RECORD_MISC_KERNEL for kernel samples
  // PERF_SAMPLE_STACK_USER: the `size` field. nullopt: record.stack_user rounded up to 8.
  std::optional<uint64_t> stack_size;
  // PERF_SAMPLE_STACK_USER: dyn_size. nullopt: record.stack_user.size().
  std::optional<uint64_t> stack_dyn_size;
  uint32_t raw_size = 4;       // PERF_SAMPLE_RAW payload (u32 size + data stays u64-aligned)
  uint64_t branch_nr = 1;      // PERF_SAMPLE_BRANCH_STACK entries
  uint64_t read_group_nr = 2;  // PERF_SAMPLE_READ with PERF_FORMAT_GROUP
  uint64_t aux_size = 8;       // PERF_SAMPLE_AUX payload
  uint64_t regs_intr_abi = PERF_SAMPLE_REGS_ABI_64;
};

class RecordBuilder {
 public:
  explicit RecordBuilder(const perf::SampleLayout& layout, uint64_t event_id = kFiller)
      : layout_(layout), event_id_(event_id) {}

  std::vector<uint8_t> sample(const SampleSpec& spec) const {
    const auto& l = layout_;
    const auto& s = spec.record;
    ByteWriter w;
    if (l.has(PERF_SAMPLE_IDENTIFIER)) w.put(event_id_);
    if (l.has(PERF_SAMPLE_IP)) w.put(s.ip);
    if (l.has(PERF_SAMPLE_TID)) w.put(s.id.pid).put(s.id.tid);
    if (l.has(PERF_SAMPLE_TIME)) w.put(s.id.time);
    if (l.has(PERF_SAMPLE_ADDR)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_ID)) w.put(event_id_);
    if (l.has(PERF_SAMPLE_STREAM_ID)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_CPU)) w.put(s.id.cpu).put(uint32_t{0});
    if (l.has(PERF_SAMPLE_PERIOD)) w.put(s.period);
    if (l.has(PERF_SAMPLE_READ)) {
      const uint64_t rf = l.read_format();
      const bool group = rf & PERF_FORMAT_GROUP;
      const uint64_t values = group ? spec.read_group_nr : 1;
      // Without a group the value comes first: { value, [enabled], [running], [id], [lost] };
      // with one { nr, [enabled], [running], { value, [id], [lost] }[nr] }.
      if (group) w.put(values);
      if (!group) w.put(s.read_value.value_or(kFiller));
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) w.put(kFiller);
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) w.put(kFiller);
      for (uint64_t i = 0; i < values; ++i) {
        if (group) w.put(kFiller);
        if (rf & PERF_FORMAT_ID) w.put(kFiller);
        if (rf & PERF_FORMAT_LOST) w.put(kFiller);
      }
    }
    if (l.has(PERF_SAMPLE_CALLCHAIN)) {
      w.put(uint64_t{s.callchain.size()});
      for (uint64_t ip : s.callchain) w.put(ip);
    }
    if (l.has(PERF_SAMPLE_RAW)) {
      w.put(spec.raw_size);
      for (uint32_t i = 0; i < spec.raw_size; ++i) w.put(uint8_t{0xAB});
    }
    if (l.has(PERF_SAMPLE_BRANCH_STACK)) {
      w.put(spec.branch_nr);
      if (l.branch_hw_index()) w.put(kFiller);
      for (uint64_t i = 0; i < spec.branch_nr * 3; ++i) w.put(kFiller);
    }
    if (l.has(PERF_SAMPLE_REGS_USER)) {
      w.put(s.regs_user_abi);
      if (s.regs_user_abi != PERF_SAMPLE_REGS_ABI_NONE) {
        for (uint64_t r : s.regs_user) w.put(r);
      }
    }
    if (l.has(PERF_SAMPLE_STACK_USER)) {
      const uint64_t size = spec.stack_size.value_or((s.stack_user.size() + 7) / 8 * 8);
      w.put(size);
      if (size != 0) {
        std::vector<uint8_t> data(size, 0xCC);
        std::memcpy(data.data(), s.stack_user.data(), std::min<size_t>(size, s.stack_user.size()));
        w.put_bytes(data);
        w.put(spec.stack_dyn_size.value_or(s.stack_user.size()));
      }
    }
    if (l.has(PERF_SAMPLE_WEIGHT) || l.has(PERF_SAMPLE_WEIGHT_STRUCT)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_DATA_SRC)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_TRANSACTION)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_REGS_INTR)) {
      w.put(spec.regs_intr_abi);
      if (spec.regs_intr_abi != PERF_SAMPLE_REGS_ABI_NONE) {
        for (uint32_t i = 0; i < l.regs_intr_count(); ++i) w.put(kFiller);
      }
    }
    if (l.has(PERF_SAMPLE_PHYS_ADDR)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_CGROUP)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_DATA_PAGE_SIZE)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_CODE_PAGE_SIZE)) w.put(kFiller);
    if (l.has(PERF_SAMPLE_AUX)) {
      w.put(spec.aux_size);
      for (uint64_t i = 0; i < spec.aux_size; ++i) w.put(uint8_t{0xEE});
    }
    return finish(PERF_RECORD_SAMPLE, spec.misc, w);
  }

  // PERF_RECORD_MMAP2; with a non-empty `m.build_id` the PERF_RECORD_MISC_MMAP_BUILD_ID variant.
  std::vector<uint8_t> mmap2(const perf::Mmap2Record& m,
                             uint16_t misc = PERF_RECORD_MISC_USER) const {
    ByteWriter w;
    w.put(m.pid).put(m.tid).put(m.addr).put(m.len).put(m.pgoff);
    if (!m.build_id.empty()) {
      misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
      const auto id = m.build_id.bytes();
      w.put(static_cast<uint8_t>(id.size())).put(uint8_t{0}).put(uint16_t{0});
      uint8_t padded[20] = {};
      std::memcpy(padded, id.data(), std::min<size_t>(id.size(), 20));
      w.put_bytes(padded);
    } else {
      w.put(m.maj).put(m.min).put(m.ino).put(m.ino_generation);
    }
    w.put(m.prot).put(m.flags).put_padded_string(m.filename);
    put_trailer(w, m.id);
    return finish(PERF_RECORD_MMAP2, misc, w);
  }

  // PERF_RECORD_MMAP (old format); `data` sets PERF_RECORD_MISC_MMAP_DATA.
  std::vector<uint8_t> mmap(const perf::Mmap2Record& m, bool data = false) const {
    ByteWriter w;
    w.put(m.pid).put(m.tid).put(m.addr).put(m.len).put(m.pgoff).put_padded_string(m.filename);
    put_trailer(w, m.id);
    return finish(
        PERF_RECORD_MMAP,
        static_cast<uint16_t>(PERF_RECORD_MISC_USER | (data ? PERF_RECORD_MISC_MMAP_DATA : 0)), w);
  }

  std::vector<uint8_t> comm(const perf::CommRecord& c) const {
    ByteWriter w;
    w.put(c.pid).put(c.tid).put_padded_string(c.comm);
    put_trailer(w, c.id);
    return finish(PERF_RECORD_COMM, c.exec ? PERF_RECORD_MISC_COMM_EXEC : 0, w);
  }

  template <typename TaskRecord>  // ForkRecord or ExitRecord
  std::vector<uint8_t> task(uint32_t type, const TaskRecord& t) const {
    ByteWriter w;
    w.put(t.pid).put(t.ppid).put(t.tid).put(t.ptid).put(t.time);
    put_trailer(w, t.id);
    return finish(type, 0, w);
  }
  std::vector<uint8_t> fork(const perf::ForkRecord& f) const { return task(PERF_RECORD_FORK, f); }
  std::vector<uint8_t> exit(const perf::ExitRecord& e) const { return task(PERF_RECORD_EXIT, e); }

  std::vector<uint8_t> lost(const perf::LostRecord& r) const {
    ByteWriter w;
    w.put(kFiller).put(r.lost);
    put_trailer(w, r.id);
    return finish(PERF_RECORD_LOST, 0, w);
  }
  std::vector<uint8_t> lost_samples(const perf::LostSamplesRecord& r) const {
    ByteWriter w;
    w.put(r.lost);
    put_trailer(w, r.id);
    return finish(PERF_RECORD_LOST_SAMPLES, 0, w);
  }
  std::vector<uint8_t> throttle(const perf::ThrottleRecord& r) const {
    ByteWriter w;
    w.put(r.time).put(kFiller).put(kFiller);
    put_trailer(w, r.id);
    return finish(r.throttled ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE, 0, w);
  }
  std::vector<uint8_t> context_switch(const perf::SwitchRecord& r, bool cpu_wide) const {
    ByteWriter w;
    if (cpu_wide) w.put(r.next_prev_pid).put(r.next_prev_tid);
    put_trailer(w, r.id);
    uint16_t misc = 0;
    if (r.out) misc |= PERF_RECORD_MISC_SWITCH_OUT;
    if (r.preempted) misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
    return finish(cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH, misc, w);
  }

  // Any record type with an opaque body (for "unknown type" tests).
  static std::vector<uint8_t> opaque(uint32_t type, size_t body_bytes) {
    ByteWriter w;
    for (size_t i = 0; i < body_bytes; ++i) w.put(uint8_t{0x5A});
    return finish(type, 0, w);
  }

 private:
  // uapi `struct sample_id`, present on non-sample records when sample_id_all is set.
  void put_trailer(ByteWriter& w, const perf::SampleId& id) const {
    if (!layout_.sample_id_all()) return;
    if (layout_.has(PERF_SAMPLE_TID)) w.put(id.pid).put(id.tid);
    if (layout_.has(PERF_SAMPLE_TIME)) w.put(id.time);
    if (layout_.has(PERF_SAMPLE_ID)) w.put(event_id_);
    if (layout_.has(PERF_SAMPLE_STREAM_ID)) w.put(kFiller);
    if (layout_.has(PERF_SAMPLE_CPU)) w.put(id.cpu).put(uint32_t{0});
    if (layout_.has(PERF_SAMPLE_IDENTIFIER)) w.put(event_id_);
  }

  static std::vector<uint8_t> finish(uint32_t type, uint16_t misc, ByteWriter& body) {
    // Records are u64-aligned in the ring; pad like the kernel does.
    while (body.bytes().size() % 8 != 0) body.put(uint8_t{0});
    perf_event_header h{};
    h.type = type;
    h.misc = misc;
    h.size = static_cast<uint16_t>(sizeof h + body.bytes().size());
    ByteWriter out;
    out.put(h).put_bytes(body.bytes());
    return std::move(out.bytes());
  }

  const perf::SampleLayout& layout_;
  uint64_t event_id_;
};

// A layout for `sample_type` (and the other attr fields that shape records).
inline perf::SampleLayout make_layout(uint64_t sample_type, bool sample_id_all = true,
                                      uint64_t sample_regs_user = 0, uint64_t read_format = 0,
                                      uint64_t sample_regs_intr = 0,
                                      uint64_t branch_sample_type = 0) {
  perf_event_attr attr{};
  attr.sample_type = sample_type;
  attr.sample_id_all = sample_id_all ? 1 : 0;
  attr.sample_regs_user = sample_regs_user;
  attr.read_format = read_format;
  attr.sample_regs_intr = sample_regs_intr;
  attr.branch_sample_type = branch_sample_type;
  return *perf::SampleLayout::from_attr(attr);
}

}  // namespace sprof::test
