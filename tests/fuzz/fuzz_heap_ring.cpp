// libFuzzer target for everything sprof reads from a profiled program's heap ring: bytes a
// target process can write at will. Each input is tried three ways:
//   1. as one record, through decode_record;
//   2. as a heap dump, through parse_heap_dump and for_each_dump_record;
//   3. as ring contents: the input, cut into chunks by the size fields it holds, is laid into a
//      ring's data area at consecutive positions starting from an input-chosen offset (so
//      records wrap the end), each published with its commit word unless the input says not
//      to; the write head comes from the input too. RingReader then drains it: live with a
//      byte budget, copied out undecoded with a budget (the recorder's backlog, then decoded
//      from the copy's framing), live, and final.
// Crashes, sanitizer reports and records the decoder accepts that break its own guarantees
// (a stack span outside the drained bytes) are findings.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "sprof/heap/heap_dump.hpp"
#include "sprof/heap/record_decoder.hpp"
#include "sprof/heap/ring_reader.hpp"

using namespace sprof::heap;

namespace {

constexpr uint64_t kData = kMinDataBytes;

void check_within(std::span<const uint8_t> inner, std::span<const uint8_t> outer) {
  if (inner.empty()) return;
  if (inner.data() < outer.data() || inner.data() + inner.size() > outer.data() + outer.size())
    std::abort();
}

void check_event(const HeapEvent& event, std::span<const uint8_t> bytes) {
  if (const auto* a = std::get_if<HeapAlloc>(&event)) {
    check_within(a->stack, bytes);
    if (a->regs.sp + a->stack.size() < a->regs.sp) std::abort();
  } else if (const auto* f = std::get_if<HeapFree>(&event)) {
    check_within(f->stack, bytes);
    if (!f->has_stack() && !f->stack.empty()) std::abort();
    if (f->regs.sp + f->stack.size() < f->regs.sp) std::abort();
  } else if (const auto* at = std::get_if<HeapAttach>(&event)) {
    check_within({reinterpret_cast<const uint8_t*>(at->exe.data()), at->exe.size()}, bytes);
  }
}

void fuzz_ring(const uint8_t* data, size_t size) {
  if (size < 4) return;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  const size_t area_bytes = kRingHeaderBytes + kData;
  std::unique_ptr<uint8_t, Free> area(static_cast<uint8_t*>(std::aligned_alloc(4096, area_bytes)));
  std::memset(area.get(), 0, area_bytes);
  const RingConfig config = make_ring_config(kData, 512 * 1024, 1024, 12, 1);
  std::memcpy(area.get(), &config, sizeof config);
  auto* header = reinterpret_cast<RingHeader*>(area.get());
  uint8_t* ring = area.get() + kRingHeaderBytes;

  // Two control bytes: the start offset (in 8-byte units) and the head's fate.
  const uint64_t start = (uint64_t{data[0]} | uint64_t{data[1]} << 8) * 8 % kData;
  const uint8_t head_mode = data[2];
  const uint8_t uncommit_every = data[3];
  data += 4;
  size -= 4;
  header->read_tail = start;
  uint64_t position = start;
  size_t index = 0;
  while (size >= 16 && position - start < kData) {
    uint32_t chunk = 0;
    std::memcpy(&chunk, data + 8, 4);
    chunk = chunk < 16 ? 16 : chunk;
    chunk = static_cast<uint32_t>(std::min<size_t>(chunk, size)) & ~7U;
    if (chunk < 16 || position - start + chunk > kData) break;
    for (uint32_t i = 8; i < chunk; ++i) ring[(position + i) % kData] = data[i];
    const bool commit = uncommit_every == 0 || ++index % uncommit_every != 0;
    const uint64_t word = commit ? commit_word(position) : 0;
    std::memcpy(ring + position % kData, &word, 8);
    position += chunk;
    data += chunk;
    size -= chunk;
  }
  header->write_head = head_mode < 200 ? position : position + head_mode * 0x10000ULL;

  auto reader = RingReader::open({area.get(), area_bytes});
  if (!reader) std::abort();  // the configuration above is valid
  auto visit = [](const DrainedRecord& r) { check_event(r.event, r.bytes); };
  // A drain with a byte budget stops once it is reached.
  const uint64_t budget = (uint64_t{uncommit_every} + 1) * 64;
  uint64_t visited_bytes = 0;
  uint64_t last_bytes = 0;
  reader->drain(DrainOptions{0, 1, false, budget}, [&](const DrainedRecord& r) {
    check_event(r.event, r.bytes);
    visited_bytes += r.bytes.size();
    last_bytes = r.bytes.size();
  });
  if (visited_bytes - last_bytes >= budget) std::abort();
  // The recorder's copy into its backlog, with a budget too, then its decoding of the copy: each
  // copied header's size must frame the records back to back.
  std::vector<uint8_t> backlog;
  const uint64_t copied = reader->copy_records(DrainOptions{0, 1, false, budget}, backlog);
  if (copied != backlog.size()) std::abort();
  size_t at = 0;
  uint32_t last_size = 0;
  while (at < backlog.size()) {
    const auto record = front_record(std::span<const uint8_t>(backlog).subspan(at));
    if (!record) std::abort();
    if (auto event = decode_record(*record, DecodeLimits{1024}); event)
      check_event(*event, *record);
    at += record->size();
    last_size = static_cast<uint32_t>(record->size());
  }
  if (copied != 0 && copied - last_size >= budget) std::abort();
  // Each drain moves at most one ring ahead, whatever the head says.
  for (const DrainOptions& options :
       {DrainOptions{0, 1, false}, DrainOptions{10, 1, false}, DrainOptions{20, 1, true}}) {
    const uint64_t before = reader->position();
    reader->drain(options, visit);
    if (reader->position() - before > kData) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto event = decode_record(bytes, DecodeLimits{}); event) check_event(*event, bytes);

  if (auto dump = parse_heap_dump(bytes); dump) {
    DumpReadStats stats;
    (void)for_each_dump_record(
        *dump, [&](const HeapEvent& e) { check_event(e, bytes); }, stats);
  }

  fuzz_ring(data, size);
  return 0;
}
