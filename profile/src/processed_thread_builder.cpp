// Builds a thread's processed tables the way the Firefox Profiler would after loading the Gecko
// form and symbolicating it: `nudgeReturnAddresses` (profile-data.ts) splits a frame seen both
// as a sample's leaf and as a caller, then symbolication (symbolication.ts) gives every address
// one frame per inline depth and replaces each stack node by a straight chain of them.
#include <algorithm>
#include <map>
#include <tuple>

#include "frame_addresses.hpp"
#include "processed_thread.hpp"
#include "thread_rows.hpp"

namespace sprof::profile::detail {

namespace {

// "name (in lib)", optionally followed by " + 123" or " (file:line)": a frame its producer
// symbolicated already. Returns (name, lib); the front end drops a "non-virtual thunk to "
// prefix from the name.
std::optional<std::pair<std::string_view, std::string_view>> split_native_location(
    std::string_view s) {
  const size_t open = s.rfind(" (in ");
  if (open == std::string_view::npos) return std::nullopt;
  const size_t close = s.find(')', open);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view lib = s.substr(open + 5, close - open - 5);
  const std::string_view tail = s.substr(close + 1);
  const bool plus_offset =
      tail.starts_with(" + ") && tail.size() > 3 &&
      std::all_of(tail.begin() + 3, tail.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool position =
      tail.starts_with(" (") && tail.ends_with(")") && tail.find(':') != std::string_view::npos;
  if (!tail.empty() && !plus_offset && !position) return std::nullopt;
  std::string_view name = s.substr(0, open);
  constexpr std::string_view kThunk = "non-virtual thunk to ";
  if (name.starts_with(kThunk)) name.remove_prefix(kThunk.size());
  return std::pair{name, lib};
}

class ThreadBuilder {
 public:
  ThreadBuilder(const Thread& thread, const ProcessLibs& libs, ProcessedThread& out)
      : thread_(thread), libs_(libs), out_(out), locator_(libs.libs) {}

  void build() {
    const StackUses uses = stack_uses(thread_);
    expansions_.assign(thread_.frames().size() * 2, Expansion{});
    build_stacks(uses);
    build_samples();
    build_markers();
    build_allocations();
  }

 private:
  struct Expansion {
    uint32_t first = 0;
    uint32_t count = 0;  // 0: not built yet
    bool operator==(const Expansion&) const = default;
  };

  void build_stacks(const StackUses& uses) {
    const auto& stacks = thread_.stacks();
    as_caller_.assign(stacks.size(), std::nullopt);
    as_leaf_.assign(stacks.size(), std::nullopt);
    for (size_t s = 0; s < stacks.size(); ++s) {
      const uint32_t frame = stacks[s].frame;
      if (frame >= thread_.frames().size()) continue;
      // A prefix is always a caller, so its caller chain exists already (prefix < index).
      const std::optional<uint32_t> parent =
          stacks[s].prefix && *stacks[s].prefix < s ? as_caller_[*stacks[s].prefix] : std::nullopt;
      if (uses.caller[s]) {
        as_caller_[s] = add_chain(expansion(frame, FrameKind::kReturnAddress), parent);
      }
      if (uses.sample_leaf[s]) {
        const Expansion leaf = expansion(frame, FrameKind::kInstructionPointer);
        as_leaf_[s] = uses.caller[s] && leaf == expansion(frame, FrameKind::kReturnAddress)
                          ? as_caller_[s]
                          : add_chain(leaf, parent);
      }
    }
  }

  uint32_t add_chain(Expansion e, std::optional<uint32_t> prefix) {
    for (uint32_t f = e.first; f < e.first + e.count; ++f) {
      const auto index = static_cast<uint32_t>(out_.stack_frame.size());
      out_.stack_frame.push_back(f);
      out_.stack_category.push_back(out_.frame_category[f]);
      out_.stack_prefix.push_back(prefix);
      prefix = index;
    }
    return *prefix;
  }

  void build_samples() {
    const auto& samples = thread_.samples();
    const std::vector<uint32_t> order = sample_order(samples);
    for (size_t k = 0; k < samples.size(); ++k) {
      const Sample s = samples[sample_in_order(order, k)];
      out_.sample_stack.push_back(s.stack && *s.stack < as_leaf_.size() ? as_leaf_[*s.stack]
                                                                        : std::nullopt);
      out_.sample_time.push_back(s.time_ms);
      out_.sample_cpu_delta.push_back(s.cpu_delta_ns);
    }
  }

  // An allocation's stack is a walk from a return address (stack_uses), so its frames are
  // those of its caller chain.
  void build_allocations() {
    for (const NativeAllocation& a : thread_.native_allocations()) {
      out_.allocation_stack.push_back(a.stack && *a.stack < as_caller_.size() ? as_caller_[*a.stack]
                                                                              : std::nullopt);
    }
  }

  void build_markers() {
    const auto& markers = thread_.markers();
    std::vector<double> sort_time(markers.size());
    for (size_t i = 0; i < markers.size(); ++i) {
      const Marker& m = markers[i];
      out_.strings.intern(m.name);
      for (const MarkerField& field : m.fields) {
        if (const auto* unique = std::get_if<UniqueString>(&field.value)) {
          out_.strings.intern(unique->text);
        }
      }
      // The Gecko processing sorts markers by `endTime || startTime`.
      const MarkerTimes times = marker_times(m);
      sort_time[i] = times.end && *times.end != 0 ? *times.end : times.start.value_or(0);
      out_.marker_order.push_back(static_cast<uint32_t>(i));
    }
    std::stable_sort(out_.marker_order.begin(), out_.marker_order.end(),
                     [&](uint32_t a, uint32_t b) { return sort_time[a] < sort_time[b]; });
  }

  // The processed frames (one per inline depth, outermost first) of a Gecko frame in `role`.
  // Frames without a lib-relative address look the same in both roles and are built once.
  Expansion expansion(uint32_t frame, FrameKind role) {
    Expansion& cached = expansion_slot(frame, role);
    if (cached.count != 0) return cached;
    const FrameEntry& entry = thread_.frames()[frame];
    const std::string_view location = thread_.strings()[entry.location];
    const auto address = parse_address_location(location);
    const auto located = address ? locator_.locate(*address) : std::nullopt;
    Expansion e{static_cast<uint32_t>(out_.frame_address.size()), 0};
    if (located) {
      add_native_frames(location, *located, role, entry.category);
      // An address no module covers stays whole, as the last branch keeps any other location:
      // taken first so that split_native_location never sees it. bugprone-branch-clone only sees
      // the two same bodies, a false positive.
      // NOLINTNEXTLINE(bugprone-branch-clone)
    } else if (is_address_location(location)) {
      add_frame(-1, 0, entry.category, func(location, {}, -1), std::nullopt, 0);
    } else if (const auto native = split_native_location(location)) {
      add_frame(-1, 0, entry.category, func(native->first, {}, named_resource(native->second)),
                std::nullopt, 0);
    } else {
      add_frame(-1, 0, entry.category, func(location, {}, -1), std::nullopt, 0);
    }
    e.count = static_cast<uint32_t>(out_.frame_address.size()) - e.first;
    if (located) {
      cached = e;
    } else {
      expansion_slot(frame, FrameKind::kInstructionPointer) = e;
      expansion_slot(frame, FrameKind::kReturnAddress) = e;
    }
    return e;
  }

  Expansion& expansion_slot(uint32_t frame, FrameKind role) {
    return expansions_[size_t{frame} * 2 + (role == FrameKind::kReturnAddress ? 1 : 0)];
  }

  void add_native_frames(std::string_view location, LocatedAddress located, FrameKind role,
                         Category category) {
    const uint64_t address = lookup_address(located.relative, role);
    const int64_t resource = lib_resource(located.lib);
    const uint32_t lib = libs_.global_index[located.lib];
    const ModuleSymbols* module = libs_.symbols[located.lib];
    if (module == nullptr) {
      // No symbols for the lib: the front end keeps the frame's own location as its name.
      add_frame(static_cast<int64_t>(address), 0, category, func(location, {}, resource),
                std::nullopt, 0);
      return;
    }
    const AddressSymbol* symbol = module->find(address);
    if (symbol == nullptr || !symbol->names(address)) {
      const std::string name = unknown_function_name(address);
      const uint32_t native = native_symbol(lib, address, name, std::nullopt);
      add_frame(static_cast<int64_t>(address), 0, category, func(name, {}, resource), native, 0);
      return;
    }
    const uint32_t native =
        native_symbol(lib, symbol->function_start, symbol->function, symbol->function_size);
    add_frame(static_cast<int64_t>(address), 0, category,
              func(symbol->function, symbol->file, resource), native, symbol->line);
    const auto depths = static_cast<uint32_t>(symbol->inlines.size());
    for (uint32_t depth = 1; depth <= depths; ++depth) {
      const InlinedCall& call = symbol->inlines[depths - depth];
      const std::string name =
          call.function.empty() ? unknown_inline_name(address, depth) : call.function;
      add_frame(static_cast<int64_t>(address), depth, category, func(name, call.file, resource),
                native, call.line);
    }
  }

  void add_frame(int64_t address, uint32_t depth, Category category, uint32_t func,
                 std::optional<uint32_t> native, uint32_t line) {
    out_.frame_address.push_back(address);
    out_.frame_inline_depth.push_back(depth);
    out_.frame_category.push_back(static_cast<uint8_t>(category));
    out_.frame_func.push_back(func);
    out_.frame_native_symbol.push_back(native);
    out_.frame_line.push_back(line > 0 ? std::optional<uint32_t>(line) : std::nullopt);
  }

  // Funcs group frames by name and file within one resource, as symbolication groups them.
  uint32_t func(std::string_view name, std::string_view file, int64_t resource) {
    const uint32_t name_index = out_.strings.intern(name);
    const std::optional<uint32_t> file_index =
        file.empty() ? std::nullopt : std::optional<uint32_t>(out_.strings.intern(file));
    const auto key = std::tuple{name_index, file_index ? *file_index + 1 : 0U, resource};
    auto [it, inserted] = funcs_.emplace(key, static_cast<uint32_t>(out_.func_name.size()));
    if (inserted) {
      out_.func_name.push_back(name_index);
      out_.func_resource.push_back(resource);
      out_.func_file.push_back(file_index);
    }
    return it->second;
  }

  int64_t lib_resource(size_t process_lib) {
    const uint32_t lib = libs_.global_index[process_lib];
    auto [it, inserted] = lib_resources_.emplace(lib, out_.resource_name.size());
    if (inserted) {
      out_.resource_lib.push_back(lib);
      out_.resource_name.push_back(out_.strings.intern(libs_.libs[process_lib].name));
    }
    return static_cast<int64_t>(it->second);
  }

  int64_t named_resource(std::string_view lib_name) {
    const uint32_t name = out_.strings.intern(lib_name);
    auto [it, inserted] = named_resources_.emplace(name, out_.resource_name.size());
    if (inserted) {
      out_.resource_lib.push_back(std::nullopt);
      out_.resource_name.push_back(name);
    }
    return static_cast<int64_t>(it->second);
  }

  uint32_t native_symbol(uint32_t lib, uint64_t address, std::string_view name,
                         std::optional<uint64_t> size) {
    auto [it, inserted] = native_symbols_.emplace(std::pair{lib, address},
                                                  static_cast<uint32_t>(out_.symbol_lib.size()));
    if (inserted) {
      out_.symbol_lib.push_back(lib);
      out_.symbol_address.push_back(address);
      out_.symbol_name.push_back(out_.strings.intern(name));
      out_.symbol_size.push_back(size);
    }
    return it->second;
  }

  const Thread& thread_;
  const ProcessLibs& libs_;
  ProcessedThread& out_;
  LibLocator locator_;
  std::vector<Expansion> expansions_;               // [frame * 2 + (return address ? 1 : 0)]
  std::vector<std::optional<uint32_t>> as_caller_;  // per Gecko stack
  std::vector<std::optional<uint32_t>> as_leaf_;    // per Gecko stack
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> funcs_;
  std::map<uint32_t, size_t> lib_resources_;
  std::map<uint32_t, size_t> named_resources_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> native_symbols_;
};

}  // namespace

ProcessedThread build_processed_thread(const Thread& thread, const ProcessLibs& libs) {
  ProcessedThread out;
  ThreadBuilder(thread, libs, out).build();
  return out;
}

}  // namespace sprof::profile::detail
