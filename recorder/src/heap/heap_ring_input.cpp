#include "heap/heap_ring_input.hpp"

#include <cstdlib>
#include <cstring>

#include "heap/heap_records.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/heap/heap_dump.hpp"
#include "sprof/heap/record_decoder.hpp"

namespace sprof::recorder {

heap::HeapRingOptions heap_ring_options(HeapMode mode, uint64_t interval_bytes, bool free_stacks,
                                        bool copy_stacks) {
  heap::HeapRingOptions o;
  o.free_stacks = free_stacks;
  o.copy_stacks = copy_stacks;
  if (mode == HeapMode::kAll) {
    o.sample_interval_bytes = 0;
    // 16 KiB covers 98-99 % of the allocations of the programs measured in docs/heap.md.
    o.stack_copy_bytes = 16 * 1024;
    o.data_bytes = 64ULL << 20;
  } else {
    o.sample_interval_bytes = interval_bytes;
  }
  return o;
}

Result<std::unique_ptr<HeapRingInput>> HeapRingInput::create(const heap::HeapRingOptions& options,
                                                             const std::string& sprof_executable) {
  SPROF_TRY(std::string interposer, heap::locate_interposer(sprof_executable));
  SPROF_TRY(heap::MappedHeapRing ring, heap::MappedHeapRing::create(options));
  SPROF_TRY(std::vector<std::string> environment,
            heap::heap_child_environment(interposer, ring.path_for_children(),
                                         std::getenv("LD_PRELOAD")));
  SPROF_TRY(heap::RingReader reader, heap::RingReader::open(ring.area()));
  return std::unique_ptr<HeapRingInput>(new HeapRingInput(
      std::move(ring), std::move(reader), std::move(interposer), std::move(environment)));
}

convert::HeapDescription HeapRingInput::description() const {
  convert::HeapDescription d;
  d.sample_interval_bytes = reader_.config().sample_interval_bytes;
  d.stack_copy_bytes = reader_.config().stack_copy_bytes;
  d.free_stacks = (reader_.config().options & heap::kOptionFreeStacks) != 0;
  d.copy_stacks = (reader_.config().options & heap::kOptionCopyStacks) != 0;
  const auto slash = interposer_.rfind('/');
  d.interposer_name = slash == std::string::npos ? interposer_ : interposer_.substr(slash + 1);
  return d;
}

HeapRingInput::~HeapRingInput() {
  // Programs that outlive the recording (daemons) must not wait for room in record-all mode.
  reader_.close_for_writers();
}

namespace {

// A record-all program can write records several times faster than sprof turns them into rows
// (bench_heap_workload: 0.13 us against 0.5 us each), and its writers wait while the ring is
// full. So every round first copies whatever the ring holds into sprof's own backlog, up to the
// ring's size again: the program goes on at once. Then a bounded round of the backlog is
// decoded and merged. Decoded, a round sits in the merge's 200-byte slots: merged all at once,
// the million records a short program leaves behind took 370 MB of sprof's RSS and their fresh
// pages' zeroing a tenth of its time. A round of 8 Ki records stays in the CPU's caches from its
// decoding to its conversion: with 64 Ki, loading each record's stack at conversion was a cache
// miss, and on issue 24's churn workload the program ran 28 % longer (docs/benchmarks.md, "Heap:
// record-all on issue 24's workloads"). The backlog holds the ring's compact bytes (about 64 a
// record) instead. RingRecordSource's final flush (kMaxFlushRounds) is sized for rounds of this
// many records.
constexpr size_t kRoundRecords = size_t{8} * 1024;

}  // namespace

std::optional<uint64_t> HeapRingInput::read_round(
    const std::function<void(sprof::perf::Record&&)>& add) {
  copy_into_backlog();
  const heap::DecodeLimits limits{reader_.config().stack_copy_bytes};
  uint64_t last_time = 0;
  size_t records = 0;
  while (records < kRoundRecords && backlog_read_ < backlog_.size()) {
    const auto bytes =
        heap::front_record(std::span<const uint8_t>(backlog_).subspan(backlog_read_));
    if (!bytes) {
      // RingReader::copy_records keeps only records whose copied size frames them, so this is
      // not reached; were it, nothing after could be framed.
      ++malformed_records_;
      backlog_read_ = backlog_.size();
      break;
    }
    backlog_read_ += bytes->size();
    // Decoded here only, once: the copy-out only framed it.
    auto event = heap::decode_record(*bytes, limits);
    if (!event) {
      ++malformed_records_;
      continue;
    }
    sprof::perf::Record record = heap_record(*event);
    last_time = sprof::perf::record_time(record);
    add(std::move(record));
    ++records;
  }
  const bool more = backlog_read_ < backlog_.size() || ring_left_behind_;
  if (backlog_read_ == backlog_.size()) {
    backlog_.clear();
    backlog_read_ = 0;
  }
  if (!more) return std::nullopt;
  return last_time;
}

void HeapRingInput::copy_into_backlog() {
  // Read records move to the front only when they are most of the buffer: each byte moves
  // about once.
  if (backlog_read_ > backlog_.size() / 2) {
    backlog_.erase(backlog_.begin(), backlog_.begin() + static_cast<std::ptrdiff_t>(backlog_read_));
    backlog_read_ = 0;
  }
  // The buffer holds at most one ring's bytes, records already read included, and is reserved
  // once for that and the one record a drain may pass its budget by: it never grows by copying
  // itself, and sprof's memory for it stays one ring's size (pages are touched only as used).
  // Counting only the unread records, it grew to twice that (128 MiB in record-all mode) while
  // read records waited to be moved.
  const uint64_t limit = reader_.config().data_bytes;
  const uint64_t room = limit > backlog_.size() ? limit - backlog_.size() : 0;
  ring_left_behind_ = room == 0;
  if (room == 0) return;
  if (backlog_.capacity() == 0) backlog_.reserve(limit + heap::kMaxRecordBytes);
  heap::DrainOptions options;
  options.now_ns = clock_ns(CLOCK_MONOTONIC);
  options.final = final_;
  options.max_bytes = room;
  const uint64_t copied = reader_.copy_records(options, backlog_);
  // Stopped by the room, not by the end of what was committed: more may wait in the ring.
  ring_left_behind_ = copied >= room;
}

void HeapRingInput::add_stats(convert::HeapStats& stats) const {
  const heap::RingCounters c = reader_.counters();
  stats.stack_copy_bytes = reader_.config().stack_copy_bytes;
  stats.calls = c.allocations;
  stats.call_bytes = c.allocated_bytes;
  stats.attached_processes = c.attached_processes;
  stats.dropped_records = c.dropped_records;
  stats.dropped_contended = c.dropped_contended;
  stats.dropped_reader_gone = c.dropped_reader_gone;
  stats.dropped_attaches = c.dropped_attaches;
  stats.untracked_samples = c.untracked_samples;
  stats.ring_malformed = reader_.stats().malformed_records + malformed_records_;
  stats.walk_fallbacks = c.walk_fallbacks;
}

}  // namespace sprof::recorder
