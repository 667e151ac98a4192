// recorder/src/heap/heap_ring_input.hpp
//
// The allocation side of `sprof record --heap` (docs/heap.md): the shared-memory ring that
// libsprof-heap.so writes into, created before the command starts, the environment that makes
// the command load the interposer and find the ring, and the reading of the ring in the same
// rounds as the perf rings (`perf::RoundInput`), so allocations are merged with the perf records
// by time (both use CLOCK_MONOTONIC).
//
// Threading: the reading thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perf/ring_record_source.hpp"
#include "sprof/convert/source_description.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/core/result.hpp"
#include "sprof/heap/heap_ring.hpp"
#include "sprof/heap/ring_reader.hpp"
#include "sprof/recorder/options.hpp"

namespace sprof::recorder {

// The ring's settings for a recording mode: sampled keeps the interposer's defaults; record-all
// copies less stack per call (every call pays for it) into a larger ring (the reader has a
// record per call to keep up with). `free_stacks`: --heap-free-stacks.
// `copy_stacks`: --heap-stacks=copy.
heap::HeapRingOptions heap_ring_options(HeapMode mode, uint64_t interval_bytes, bool free_stacks,
                                        bool copy_stacks);

class HeapRingInput final : public perf::RoundInput {
 public:
  // Creates the ring, finds libsprof-heap.so relative to `sprof_executable` and prepares the
  // command's environment (LD_PRELOAD first, then what sprof had).
  static Result<std::unique_ptr<HeapRingInput>> create(const heap::HeapRingOptions& options,
                                                       const std::string& sprof_executable);

  ~HeapRingInput() override;

  // "NAME=value" entries for every launched command.
  const std::vector<std::string>& child_environment() const { return environment_; }
  // For loading the interposer into a running program (heap_injector.hpp).
  const std::string& interposer_path() const { return interposer_; }
  std::string ring_path() const { return ring_.path_for_children(); }
  convert::HeapDescription description() const;

  // Copies what the ring holds into a backlog of sprof's own (at most the ring's size), then
  // decodes a bounded round of it (8 Ki records; heap_ring_input.cpp). See
  // RoundInput::read_round for what it returns.
  std::optional<uint64_t> read_round(
      const std::function<void(sprof::perf::Record&&)>& add) override;
  // While set, no writer will commit again (the command has exited): a reservation left
  // uncommitted is skipped at once instead of after the stall timeout.
  void set_final(bool final) { final_ = final; }

  // The interposers' totals and what the reader rejected, into `stats` (after the last round).
  void add_stats(convert::HeapStats& stats) const;
  // The bytes sprof holds for the backlog: at most the ring's size and one record.
  size_t backlog_capacity() const { return backlog_.capacity(); }

 private:
  HeapRingInput(heap::MappedHeapRing ring, heap::RingReader reader, std::string interposer,
                std::vector<std::string> environment)
      : ring_(std::move(ring)),
        reader_(std::move(reader)),
        interposer_(std::move(interposer)),
        environment_(std::move(environment)) {}

  void copy_into_backlog();

  heap::MappedHeapRing ring_;  // owns the memory `reader_` reads
  heap::RingReader reader_;
  // Records copied out of the ring, not yet decoded: back to back as in a heap dump
  // (heap_dump.hpp), each framed by its header's size.
  std::vector<uint8_t> backlog_;
  size_t backlog_read_ = 0;         // where the next record starts
  bool ring_left_behind_ = false;   // the last copy stopped for want of room
  uint64_t malformed_records_ = 0;  // copied out, then rejected by decode_record
  std::string interposer_;
  std::vector<std::string> environment_;
  bool final_ = false;
};

}  // namespace sprof::recorder
