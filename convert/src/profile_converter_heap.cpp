// ProfileConverter: allocation records of `sprof record --heap` (docs/heap.md). Stacks are
// unwound like CPU samples' (the CFI unwinder against the process's module map) from the
// registers the interposer's capture stub saw at malloc's entry; the leading frames in the
// interposer itself are dropped, by module rather than by count, and so are the allocation
// wrappers that called malloc (operator new, Rust's __rust_alloc, strdup, ...: by address,
// allocator_frames.hpp), so the first frame is the code that asked for memory. A free recorded
// with its stack (--heap-free-stacks) is unwound the same way, past the deallocation wrappers
// (operator delete, ...), and its row gets the stack. CPU samples lose
// the interposer's frames too (drop_interposer_frames). The bookkeeping (tables, counters,
// retained memory) is NativeAllocations'.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "sprof/convert/profile_converter.hpp"

namespace sprof::convert {

namespace {

using arch::x86_64::PerfReg;

unwind::UserRegs user_regs(const heap::CapturedRegs& c) {
  unwind::UserRegs regs;
  const std::pair<PerfReg, uint64_t> values[] = {{PerfReg::kIp, c.ip},   {PerfReg::kSp, c.sp},
                                                 {PerfReg::kBp, c.bp},   {PerfReg::kBx, c.bx},
                                                 {PerfReg::kR12, c.r12}, {PerfReg::kR13, c.r13},
                                                 {PerfReg::kR14, c.r14}, {PerfReg::kR15, c.r15}};
  for (const auto& [reg, value] : values) {
    regs.regs[static_cast<size_t>(reg)] = value;
    regs.valid |= uint64_t{1} << static_cast<unsigned>(reg);
  }
  return regs;
}

}  // namespace

void ProfileConverter::on_heap_alloc(const perf::HeapAllocRecord& r) {
  if (!heap_) return;
  ThreadState& ts = thread(r.id.pid, r.id.tid, r.id.time);
  const std::optional<uint32_t> stack = intern_allocation_stack(
      {ts.image, ts.thread}, r.id.pid, r.regs, r.stack, r.walked_stack(), allocator_frames_);
  heap_->allocate(profile_, {ts.image, ts.thread}, r, stack, to_ms(r.id.time));
}

void ProfileConverter::on_heap_free(const perf::HeapFreeRecord& r) {
  if (!heap_) return;
  // The free's row goes into the table of the block's allocation (the front end pairs them by
  // address within one table), so its stack is interned there, whichever thread freed it.
  std::optional<uint32_t> stack;
  if (r.regs) {
    if (const std::optional<AllocationOwner> owner = heap_->owner_of(r.id.pid, r.address)) {
      stack = intern_allocation_stack(*owner, r.id.pid, *r.regs, r.stack, r.walked_stack,
                                      deallocator_frames_);
      ++stats_.heap.stacked_frees;
    }
  }
  heap_->free(profile_, r, to_ms(r.id.time), stack);
}

void ProfileConverter::on_heap_attach(const perf::HeapAttachRecord& r) {
  if (heap_) heap_->note_attach(r);
}

void ProfileConverter::end_heap_image(uint32_t pid, uint64_t time_ns) {
  if (heap_) heap_->end_image(pid, to_ms(time_ns));
}

bool ProfileConverter::in_interposer(const ModuleMap& modules, uint64_t lookup_address) const {
  const unwind::MappedFile* file = modules.find(lookup_address);
  if (file == nullptr) return false;
  const std::string_view path = file->path;
  const std::string_view name = options_.heap->interposer_name;
  return path.ends_with(name) &&
         (path.size() == name.size() || path[path.size() - name.size() - 1] == '/');
}

size_t ProfileConverter::first_allocating_frame(const ModuleMap& modules,
                                                const std::vector<FrameAddress>& frames,
                                                AllocatorFrames& wrappers) {
  // The capture stub, and the entry point if it did not tail-call, are the interposer's.
  size_t first = 0;
  while (first < frames.size() && in_interposer(modules, frames[first].lookup_address())) ++first;
  // Then whatever called malloc (or free) only for its own caller. The last frame stays: a
  // stack cut short inside operator new still says that it was operator new.
  while (first + 1 < frames.size()) {
    const uint64_t address = frames[first].lookup_address();
    const Mapping* mapping = modules.find_mapping(address);
    if (mapping == nullptr || !wrappers.contains(*mapping, Avma{address})) break;
    ++first;
  }
  return first;
}

void ProfileConverter::drop_interposer_frames(const ModuleMap& modules, bool on_cpu) {
  auto user = std::find_if(frames_.begin(), frames_.end(),
                           [](const auto& f) { return f.second == profile::Category::kUser; });
  if (user == frames_.end()) return;
  // The user leaf is the sampled PC; the frames below it are return addresses.
  const auto leaf = static_cast<size_t>(user - frames_.begin());
  auto is_interposer = [&](size_t i) {
    const FrameKind kind = i == leaf ? FrameKind::kInstructionPointer : FrameKind::kReturnAddress;
    return frames_[i].second == profile::Category::kUser &&
           in_interposer(modules, lookup_address(frames_[i].first, kind));
  };
  size_t kept = 0;
  if (on_cpu && is_interposer(leaf)) {
    // The hook's time, kernel frames included (its page faults on the ring): the program is
    // shown where it called malloc.
    ++stats_.heap.hook_samples;
    kept = leaf;
  }
  // In the middle of a stack the interposer only forwards to the real allocator, whose time
  // the program would spend without sprof: it stays, under the program's frames.
  size_t out = 0;
  for (size_t i = 0; i < frames_.size(); ++i) {
    if (i < kept || is_interposer(i)) continue;
    frames_[out++] = frames_[i];
  }
  frames_.resize(out);
}

std::optional<uint32_t> ProfileConverter::intern_allocation_stack(
    AllocationOwner owner, uint32_t pid, const heap::CapturedRegs& captured,
    std::span<const uint8_t> stack, bool walked, AllocatorFrames& wrappers) {
  // A walked stack is the same bytes every time its call path allocates: what it was interned
  // as is remembered (WalkedStackCache), the unwound copies differ in every other word.
  const WalkedStackCache::Key key{{owner.image, owner.thread, pid, &wrappers, captured.ip}, stack};
  if (walked) {
    if (const std::optional<uint32_t>* known = walked_stacks_.find(key)) {
      ++stats_.heap.walked_stacks;
      return *known;
    }
  }
  const std::optional<uint32_t> interned =
      unwind_allocation_stack(owner, pid, captured, stack, walked, wrappers);
  if (walked) walked_stacks_.remember(key, interned);
  return interned;
}

std::optional<uint32_t> ProfileConverter::unwind_allocation_stack(
    AllocationOwner owner, uint32_t pid, const heap::CapturedRegs& captured,
    std::span<const uint8_t> stack, bool walked, AllocatorFrames& wrappers) {
  ProcessState& p = processes_.at(pid);
  const unwind::UserRegs regs = user_regs(captured);
  learn_mapping_of(regs.ip(), pid, p);
  frames_.clear();
  unwind::Unwinder* unwinder = options_.heap->unwinder;
  if (walked) {
    // The frames an unwinding of the copy gives: the stub's ip, then the return addresses.
    ++stats_.heap.walked_stacks;
    walked_frames_.clear();
    walked_frames_.push_back(FrameAddress::ip(captured.ip));
    for (size_t at = 0; at + sizeof(uint64_t) <= stack.size(); at += sizeof(uint64_t)) {
      uint64_t return_address = 0;
      std::memcpy(&return_address, stack.data() + at, sizeof return_address);
      walked_frames_.push_back(FrameAddress::return_address(return_address));
    }
    for (size_t i = first_allocating_frame(p.modules, walked_frames_, wrappers);
         i < walked_frames_.size(); ++i) {
      frames_.emplace_back(walked_frames_[i].address.value, profile::Category::kUser);
    }
  } else if (unwinder != nullptr) {
    unwinder->unwind(regs, unwind::StackMemory(captured.sp, stack), p.modules, unwind_result_);
    const auto stop = static_cast<size_t>(unwind_result_.stop);
    if (stop < stats_.heap.unwind_stops.size()) ++stats_.heap.unwind_stops[stop];
    const std::vector<FrameAddress>& frames = unwind_result_.frames;
    for (size_t i = first_allocating_frame(p.modules, frames, wrappers); i < frames.size(); ++i) {
      frames_.emplace_back(frames[i].address.value, profile::Category::kUser);
    }
  } else if (uint64_t return_address = 0;
             unwind::StackMemory(captured.sp, stack).read_u64(captured.sp, return_address)) {
    frames_.emplace_back(return_address, profile::Category::kUser);  // malloc's caller only
  }
  profile::Thread& table = profile_.processes[owner.image].threads[owner.thread];
  std::optional<uint32_t> interned;
  for (size_t i = frames_.size(); i > 0; --i) {
    const uint32_t frame = table.intern_address_frame(frames_[i - 1].first, frames_[i - 1].second);
    interned = table.intern_stack(interned, frame);
  }
  return interned;
}

}  // namespace sprof::convert
