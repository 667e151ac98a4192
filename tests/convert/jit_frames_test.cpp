// Frames in JIT code carry the JIT category: the converter learns the JIT's code ranges from its
// perf map when the recording ends and moves the frames interned as User until then.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
constexpr double kOriginWallMs = 1.7e12;

uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

// Leaf-first (location, category) of a sample's stack.
std::vector<std::pair<std::string, profile::Category>> stack_of(const profile::Thread& t,
                                                                const profile::Sample& s) {
  std::vector<std::pair<std::string, profile::Category>> frames;
  for (std::optional<uint32_t> i = s.stack; i; i = t.stacks()[*i].prefix) {
    const auto& frame = t.frames()[t.stacks()[*i].frame];
    frames.emplace_back(t.strings()[frame.location], frame.category);
  }
  return frames;
}

}  // namespace

TEST_CASE("frames in code a perf map names are JIT frames, others keep theirs") {
  test::FakeHostFiles files;
  // Written during the recording: one jitted function at 0x7f0000001000..+0x20.
  files.add_file("/tmp/perf-40.map", "7f0000001000 20 jitted_fn\n", kOriginWallMs + 5);
  ModuleCache cache(files);
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.origin_wall_ms = kOriginWallMs;
  o.root_pid = 40;
  ProfileConverter c(o, cache);
  c.consume(test::comm_record(40, 40, "jit", true, at_ms(0)));
  // Kernel leaf, then the jitted code, then its (non-JIT) caller.
  c.consume(test::sample_record(40, 40, at_ms(1),
                                {test::kContextKernel, 0xffffffff81000010, test::kContextUser,
                                 0x7f0000001004, 0x555555554100},
                                1'000'000));
  // The same JIT address as a caller, and one byte past the jitted code.
  c.consume(test::sample_record(40, 40, at_ms(2),
                                {test::kContextUser, 0x7f0000001020, 0x7f0000001004}, 1'000'000));
  auto p = c.finish(at_ms(10));

  const auto& t = p.processes.at(0).threads.at(0);
  REQUIRE(t.samples().size() == 2);
  using C = profile::Category;
  CHECK(stack_of(t, t.samples()[0]) ==
        std::vector<std::pair<std::string, C>>{{"0xffffffff81000010", C::kKernel},
                                               {"0x7f0000001004", C::kJit},
                                               {"0x555555554100", C::kUser}});
  CHECK(stack_of(t, t.samples()[1]) ==
        std::vector<std::pair<std::string, C>>{{"0x7f0000001020", C::kUser},
                                               {"0x7f0000001004", C::kJit}});
  // One frame per address: moving a frame does not duplicate it.
  size_t jit_frames = 0;
  for (const auto& f : t.frames()) jit_frames += f.category == C::kJit;
  CHECK(jit_frames == 1);
  // A frame interned after the move finds the moved frame.
  auto copy = t;
  CHECK(copy.intern_address_frame(0x7f0000001004, C::kJit) < t.frames().size());
  CHECK(copy.frames().size() == t.frames().size());
}
