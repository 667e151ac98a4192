// sprof/heap/live_blocks.hpp
//
// The blocks allocated and not yet freed, per space (an address space: a pid in the converter,
// a thread's table in a report) and address. Both places that follow blocks keep one
// (HeapAnalysis, and the converter's NativeAllocations for the rows): record-all mode looks a
// block up, inserts and erases it for every allocation and free, so this is on the hot path.
//
// - The maps are open-addressing (boost::unordered_flat_map): no node allocation per block.
//   Node-based maps cost a malloc and a free per block, and, since a space's map was dropped
//   whenever it emptied, a fresh bucket array whenever a program with one live block at a
//   time (the common churn) allocated again.
// - A space's map is kept when it empties, as long as few spaces exist: the programs of one
//   recording are few. Past kKeptEmptySpaces spaces, an emptied map is dropped at once, so a
//   forged ring naming millions of pids leaves nothing behind.
//
// Not thread-safe. Pointers returned are valid until the next insertion or erasure.
#pragma once

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace sprof::heap {

template <typename Block>
class LiveBlocks {
 public:
  // Spaces kept while empty, at most.
  static constexpr size_t kKeptEmptySpaces = 64;

  bool contains(uint64_t space, uint64_t address) const {
    const auto s = spaces_.find(space);
    return s != spaces_.end() && s->second.contains(address);
  }

  const Block* find(uint64_t space, uint64_t address) const {
    const auto s = spaces_.find(space);
    if (s == spaces_.end()) return nullptr;
    const auto b = s->second.find(address);
    return b == s->second.end() ? nullptr : &b->second;
  }

  // Adds the block, or replaces the one at its address.
  void insert(uint64_t space, uint64_t address, const Block& block) {
    spaces_[space].insert_or_assign(address, block);
  }

  // Removes the block at `address` and returns it; nullopt if there is none.
  std::optional<Block> take(uint64_t space, uint64_t address) {
    const auto s = spaces_.find(space);
    if (s == spaces_.end()) return std::nullopt;
    const auto b = s->second.find(address);
    if (b == s->second.end()) return std::nullopt;
    const Block block = b->second;
    s->second.erase(b);
    if (s->second.empty() && spaces_.size() > kKeptEmptySpaces) spaces_.erase(s);
    return block;
  }

  // Hands every block of `space` to visit(address, block), then forgets the space.
  template <typename Visit>
  void end_space(uint64_t space, Visit&& visit) {
    const auto s = spaces_.find(space);
    if (s == spaces_.end()) return;
    for (const auto& [address, block] : s->second) visit(address, block);
    spaces_.erase(s);
  }

  // Hands every block of every space to visit(space, address, block), then forgets them all.
  template <typename Visit>
  void end_all(Visit&& visit) {
    for (const auto& [space, blocks] : spaces_) {
      for (const auto& [address, block] : blocks) visit(space, address, block);
    }
    spaces_.clear();
  }

  // Spaces held, the empty ones kept included.
  size_t spaces() const { return spaces_.size(); }

 private:
  using Blocks = boost::unordered_flat_map<uint64_t, Block>;
  boost::unordered_flat_map<uint64_t, Blocks> spaces_;
};

}  // namespace sprof::heap
