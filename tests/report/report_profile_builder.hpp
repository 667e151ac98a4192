// A small profile with known call structure for the report tests, written as the self-contained
// (processed) file sprof saves, so the tests read it the way `sprof report` does.
//
// Process "app" (pid 100) with threads "main" (tid 100) and "worker" (tid 101), one lib "app"
// whose functions sit 0x100 apart from 0x1000. Stacks, root first:
//   main:   main -> compute -> leaf        x6    (leaf has `inlined_helper` inlined at its PC)
//           main -> compute                x2
//           main -> recurse -> recurse     x2
//           main -> compute -> schedule    x1    (Idle category: the thread off the CPU)
//   worker: worker_entry -> compute -> leaf x4
//           (no stack)                      x1
#pragma once

#include <cstdint>
#include <string>

#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::test {

struct ReportProfileFacts {
  static constexpr uint64_t kMainSamples = 11;   // one idle
  static constexpr uint64_t kWorkerSamples = 5;  // one without a stack
  static constexpr uint64_t kWeight = 14;        // samples with a stack, both threads
};

// The one lib of these profiles, "app" at 0x400000-0x410000.
inline profile::Library report_app_library() {
  profile::Library lib;
  lib.start = 0x400000;
  lib.end = 0x410000;
  lib.offset = 0;
  lib.name = lib.debug_name = "app";
  lib.path = lib.debug_path = "/bin/app";
  lib.breakpad_id = "0123456789ABCDEF0123456789ABCDEF0";
  return lib;
}

inline profile::Profile make_report_profile() {
  using profile::Category;
  profile::Profile p;
  p.meta.interval_ms = 1;
  p.meta.profiling_start_ms = 0;
  p.meta.profiling_end_ms = 20;
  p.meta.extra = {{"event", std::string("cpu-clock")}, {"lostSamples", int64_t{3}}};
  profile::Process& process = p.processes.emplace_back();
  process.pid = 100;
  process.name = "app";
  process.libs.push_back(report_app_library());
  // Function f's code is at 0x400000 + 0x1000 + 0x100 * f; frames point 0x10 into it.
  const auto at = [](int f) { return uint64_t{0x401010} + 0x100 * static_cast<uint64_t>(f); };
  double time = 0;
  const auto add = [&](profile::Thread& t, std::optional<uint32_t> stack, int count) {
    for (int i = 0; i < count; ++i) t.add_sample({stack, time++, 1000000});
  };
  {
    profile::Thread& t = process.threads.emplace_back();
    t.name = "main";
    t.tid = 100;
    const auto frame = [&](int f) { return t.intern_address_frame(at(f), Category::kUser); };
    const uint32_t main = t.intern_stack(std::nullopt, frame(0));
    const uint32_t compute = t.intern_stack(main, frame(1));
    const uint32_t leaf = t.intern_stack(compute, frame(2));
    const uint32_t recurse = t.intern_stack(main, frame(3));
    const uint32_t recurse2 = t.intern_stack(recurse, frame(3));
    add(t, leaf, 6);
    add(t, compute, 2);
    add(t, recurse2, 2);
    add(t, t.intern_stack(compute, t.intern_frame("schedule", Category::kIdle)), 1);
  }
  {
    profile::Thread& t = process.threads.emplace_back();
    t.name = "worker";
    t.tid = 101;
    const auto frame = [&](int f) { return t.intern_address_frame(at(f), Category::kUser); };
    const uint32_t entry = t.intern_stack(std::nullopt, frame(4));
    const uint32_t compute = t.intern_stack(entry, frame(1));
    const uint32_t leaf = t.intern_stack(compute, frame(2));
    add(t, leaf, 4);
    add(t, std::nullopt, 1);
  }
  return p;
}

inline profile::ProfileSymbols make_report_symbols() {
  const char* names[] = {"main", "compute", "leaf", "recurse", "worker_entry"};
  std::vector<std::pair<uint64_t, profile::AddressSymbol>> entries;
  for (uint64_t f = 0; f < 5; ++f) {
    profile::AddressSymbol s;
    s.function = names[f];
    s.function_start = 0x1000 + 0x100 * f;
    s.function_size = 0x100;
    s.file = "app.cpp";
    s.line = static_cast<uint32_t>(10 * (f + 1));
    // Symbols are looked up at exact addresses: a caller frame's return address moved back by
    // one byte, a leaf's PC as it is.
    entries.emplace_back(s.function_start + 0xf, s);
    if (f == 2) s.inlines.push_back({"inlined_helper", "helper.hpp", 5});  // at the leaf's PC
    entries.emplace_back(s.function_start + 0x10, s);
  }
  profile::ProfileSymbols symbols;
  symbols.add_module({"app", "0123456789ABCDEF0123456789ABCDEF0"},
                     profile::ModuleSymbols(std::move(entries)));
  return symbols;
}

inline std::string report_profile_json() {
  return profile::processed_json_string(make_report_profile(), make_report_symbols());
}

}  // namespace sprof::test
