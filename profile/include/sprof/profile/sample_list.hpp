// sprof/profile/sample_list.hpp
//
// A thread's samples, stored for long recordings. A `std::vector<Sample>` takes 32 bytes a
// sample plus up to as much again of growth slack, and each time it grows it holds the old and
// the new copy at once: at 600 k samples of one thread, 19 MB and 38 MB together. Here a sample
// takes 16 bytes (the stack index and the CPU delta as 32-bit words, a sentinel for "none";
// deltas of 4.29 s and more, which only a thread sampled very rarely has, go to a side table), in
// blocks that never move, so adding one never copies the others and the last block's slack is
// all there is (a thread's first block grows from small, so short threads stay small).
// Reading gives `Sample` values. With a spill file (sample_spill.hpp), full blocks move there and
// only each thread's last block stays in memory; reading one back costs a block read per 4,096
// samples (cached per reading thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace sprof::profile {

class SampleSpill;

struct Sample {
  std::optional<uint32_t> stack;  // index into the thread's stack table; nullopt = no stack
  double time_ms = 0;
  std::optional<uint64_t> cpu_delta_ns;  // CPU time since the previous sample
};

class SampleList {
 public:
  // Blocks filled from now on go to `spill` (nullptr: all stay in memory).
  void spill_to(std::shared_ptr<SampleSpill> spill) { spill_ = std::move(spill); }
  void push_back(const Sample& s);
  // Removes the samples taken before `time_ms` (the flight recorder's window,
  // convert/flight_window.hpp); returns how many. Keeps the spill file for later blocks.
  size_t drop_before(double time_ms);
  // How many of the samples are held in memory; the others are in the spill file.
  size_t samples_in_memory() const;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Sample operator[](size_t i) const;
  Sample front() const { return (*this)[0]; }
  Sample back() const { return (*this)[size_ - 1]; }

  // Iterates by value (a `Sample` per step): range-for and the standard algorithms that read.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Sample;
    using difference_type = std::ptrdiff_t;
    using reference = Sample;
    using pointer = void;
    const_iterator(const SampleList* list, size_t i) : list_(list), i_(i) {}
    Sample operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(list_, i_++); }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const SampleList* list_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Packed {
    double time_ms;
    uint32_t stack;      // kNone: no stack
    uint32_t cpu_delta;  // kNone: unknown; kLarge: in large_deltas_
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kLarge = UINT32_MAX - 1;
  static constexpr size_t kBlockShift = 12;  // 4,096 samples (64 KiB) a block
  static constexpr size_t kBlockSize = size_t{1} << kBlockShift;

  struct Block {
    std::vector<Packed> packed;          // empty once spilled
    std::optional<uint64_t> spilled_at;  // offset in spill_
  };
  const Packed& packed_at(size_t i) const;
  // The packed samples of a spilled block, read into this reading thread's cache.
  const std::vector<Packed>& read_spilled(uint64_t offset) const;

  std::vector<Block> blocks_;
  std::vector<std::pair<size_t, uint64_t>> large_deltas_;  // (sample index, ns), by index
  std::shared_ptr<SampleSpill> spill_;
  size_t size_ = 0;
};

}  // namespace sprof::profile
