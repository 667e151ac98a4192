#include "sprof/profile/profile.hpp"

#include <cassert>
#include <charconv>

namespace sprof::profile {

std::vector<CategoryInfo> default_categories() {
  // Order must match `Category`. "Other" is the first grey category, so it is the front end's
  // default; "Idle" must be named exactly that to drive the idle-sample filter
  // (docs/firefox-profiler-format.md, "Categories").
  return {
      {"Other", "grey", {"Other"}},  {"Idle", "transparent", {"Other"}},
      {"User", "yellow", {"Other"}}, {"Kernel", "orange", {"Other"}},
      {"JIT", "green", {"Other"}},
  };
}

uint32_t StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), index);
  return index;
}

std::optional<uint32_t> StringTable::find(std::string_view s) const {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  return std::nullopt;
}

uint32_t Thread::intern_string(std::string_view s) { return strings_.intern(s); }

std::optional<uint32_t> Thread::find_string(std::string_view s) const { return strings_.find(s); }

uint32_t Thread::intern_frame(std::string_view location, Category category) {
  const uint32_t location_index = intern_string(location);
  const auto category_key = static_cast<uint64_t>(category);
  if (auto found = frame_index_.find(location_index, category_key)) return *found;
  const auto index = static_cast<uint32_t>(frames_.size());
  frames_.push_back(FrameEntry{location_index, category});
  frame_index_.insert(location_index, category_key, index);
  return index;
}

uint32_t Thread::intern_address_frame(uint64_t address, Category category) {
  // The hot path of conversion: the cache skips formatting the hex string for known addresses.
  const auto category_key = static_cast<uint64_t>(category);
  if (auto found = address_frame_index_.find(address, category_key)) return *found;
  // Lowercase "0x" and hex digits: the front end tests `startsWith('0x')` and parses the rest
  // with BigInt (docs/firefox-profiler-format.md, "frameTable and location strings").
  char text[2 + 16];
  text[0] = '0';
  text[1] = 'x';
  const auto [end, ec] = std::to_chars(text + 2, text + sizeof text, address, 16);
  const uint32_t index =
      intern_frame(std::string_view(text, static_cast<size_t>(end - text)), category);
  address_frame_index_.insert(address, category_key, index);
  return index;
}

void Thread::recategorize_address_frames(
    const std::function<std::optional<Category>(uint64_t, Category)>& pick) {
  struct Move {
    uint64_t address;
    Category from, to;
    uint32_t frame;
  };
  std::vector<Move> moves;  // collected first: the index is rekeyed below
  address_frame_index_.for_each([&](uint64_t address, uint64_t category, uint32_t frame) {
    const auto from = static_cast<Category>(category);
    if (const auto to = pick(address, from); to && *to != from) {
      moves.push_back(Move{address, from, *to, frame});
    }
  });
  for (const Move& m : moves) {
    FrameEntry& entry = frames_[m.frame];
    entry.category = m.to;
    address_frame_index_.erase(m.address, static_cast<uint64_t>(m.from));
    frame_index_.erase(entry.location, static_cast<uint64_t>(m.from));
    // Should (address, new category) already exist, both frames stay (equal rows); the index
    // keeps the older one.
    address_frame_index_.insert(m.address, static_cast<uint64_t>(m.to), m.frame);
    frame_index_.insert(entry.location, static_cast<uint64_t>(m.to), m.frame);
  }
}

uint32_t Thread::intern_stack(std::optional<uint32_t> prefix, uint32_t frame) {
  assert(!prefix || *prefix < stacks_.size());
  assert(frame < frames_.size());
  const uint64_t prefix_key = prefix ? uint64_t{*prefix} + 1 : 0;
  if (auto found = stack_index_.find(prefix_key, frame)) return *found;
  const auto index = static_cast<uint32_t>(stacks_.size());
  stacks_.push_back(StackEntry{prefix, frame});
  stack_index_.insert(prefix_key, frame, index);
  return index;
}

void Thread::add_marker(Marker m) {
  intern_string(m.name);
  for (const MarkerField& field : m.fields) {
    if (const auto* unique = std::get_if<UniqueString>(&field.value)) intern_string(unique->text);
  }
  markers_.push_back(std::move(m));
}

void Thread::add_native_allocation(const NativeAllocation& a) {
  if (native_allocations_.empty()) intern_string(kNativeAllocationMarker);
  native_allocations_.push_back(a);
}

Thread::Dropped Thread::drop_before(double time_ms) {
  Dropped dropped;
  dropped.samples = samples_.drop_before(time_ms);
  // An interval marker that began earlier but reaches into the window stays.
  dropped.markers = std::erase_if(markers_, [time_ms](const Marker& m) {
    const std::optional<double> last = m.end_ms ? m.end_ms : m.start_ms;
    return last && *last < time_ms;
  });
  dropped.allocations = std::erase_if(
      native_allocations_, [time_ms](const NativeAllocation& a) { return a.time_ms < time_ms; });
  return dropped;
}

}  // namespace sprof::profile
