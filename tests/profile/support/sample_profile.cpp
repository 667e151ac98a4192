#include "sprof_test/sample_profile.hpp"

#include "sprof/core/build_id.hpp"

namespace sprof::test {

namespace {

using profile::Category;
using profile::Library;
using profile::Marker;
using profile::MarkerPhase;
using profile::Process;
using profile::Sample;
using profile::Thread;

using F = SampleProfileFacts;

Library make_lib(uint64_t start, uint64_t end, uint64_t offset, const std::string& path,
                 const std::string& code_id) {
  Library lib;
  lib.start = start;
  lib.end = end;
  lib.offset = offset;
  lib.path = lib.debug_path = path;
  lib.name = lib.debug_name = path.substr(path.rfind('/') + 1);
  const auto build_id = BuildId::from_hex(code_id);
  lib.breakpad_id = build_id->breakpad_id();
  lib.code_id = build_id->code_id();
  return lib;
}

Library kernel_lib() {
  Library lib = make_lib(F::kKernelStart, F::kKernelEndUnaligned, 0, "/[kernel.kallsyms]",
                         "00112233445566778899aabbccddeeff00112233");
  lib.path = lib.debug_path = lib.name = lib.debug_name = "[kernel.kallsyms]";
  return lib;
}

profile::Meta make_meta() {
  profile::Meta meta;
  meta.start_time_ms = 1700000000000.25;
  meta.start_time_monotonic_ns = 5000000000000;
  meta.interval_ms = 1;
  meta.profiling_start_ms = 0;
  meta.profiling_end_ms = 10;
  meta.product = "sprof: sample";
  meta.cpu_name = "Example CPU";
  meta.logical_cpus = 8;
  meta.physical_cpus = 4;
  profile::MarkerSchema syscall{"Syscall",
                                {"marker-chart", "marker-table"},
                                "{marker.data.syscall}",
                                "{marker.data.syscall}({marker.data.fd}) = {marker.data.ret}",
                                "{marker.data.syscall}",
                                {}};
  syscall.data = {{"syscall", "System call", "string", "", true},
                  {"fd", "File descriptor", "integer", "", false},
                  {"ret", "Return value", "integer", "", false},
                  {"path", "Path", "unique-string", "", false},
                  {"", "Description", "", "A system call made by the thread.", false}};
  profile::MarkerSchema mark{"Mark",
                             {"marker-chart", "marker-table"},
                             "",
                             "{marker.name}: {marker.data.message}",
                             "",
                             {{"message", "Message", "string", "", true},
                              {"done", "Done", "string", "", false},
                              {"ratio", "Ratio", "percentage", "", false}}};
  meta.marker_schema = {syscall, mark};
  meta.extra = {
      {"event", std::string("cpu-clock")}, {"lost_samples", int64_t{3}}, {"frequency_hz", 999.5}};
  return meta;
}

Marker marker(std::string name, std::optional<double> start, std::optional<double> end,
              MarkerPhase phase, Category category = Category::kOther) {
  Marker m;
  m.name = std::move(name);
  m.start_ms = start;
  m.end_ms = end;
  m.phase = phase;
  m.category = category;
  return m;
}

Thread make_root_main() {
  Thread t;
  t.name = "GeckoMain";
  t.process_name = "demo";
  t.pid = t.tid = F::kRootPid;
  const uint32_t start =
      t.intern_stack(std::nullopt, t.intern_address_frame(0x7ffff7dd4d90, Category::kUser));
  const uint32_t main =
      t.intern_stack(start, t.intern_address_frame(0x555555555200, Category::kUser));
  const uint32_t leaf =
      t.intern_stack(main, t.intern_address_frame(F::kDemoLeafAvma, Category::kUser));
  const uint32_t read =
      t.intern_stack(main, t.intern_address_frame(0x7ffff7e9a6d0, Category::kUser));
  const uint32_t kernel =
      t.intern_stack(read, t.intern_address_frame(F::kKernelFrameAvma, Category::kKernel));
  const uint32_t idle =
      t.intern_stack(kernel, t.intern_frame("schedule (in [kernel.kallsyms])", Category::kIdle));
  // The last two samples are out of order: the writer must sort them (stably) by time.
  const std::pair<uint32_t, double> rows[] = {{leaf, 1.0},        {leaf, 2.0}, {kernel, 3.0},
                                              {idle, 4.0},        {idle, 5.0}, {leaf, 7.0},
                                              {leaf, 6.123456789}};
  uint64_t delta = 0;
  for (auto [stack, time] : rows) {
    t.add_sample(Sample{stack, time, delta});
    delta = stack == idle ? 150000 : 1000000;
  }
  t.add_marker(marker("Startup", 0.5, std::nullopt, MarkerPhase::kInstant));
  Marker syscall = marker("read", 3.0, 4.8, MarkerPhase::kInterval, Category::kKernel);
  syscall.type = "Syscall";
  syscall.fields = {{"syscall", std::string("read")},
                    {"fd", int64_t{3}},
                    {"ret", int64_t{4096}},
                    {"path", profile::UniqueString{"/etc/hosts"}}};
  t.add_marker(std::move(syscall));
  t.add_marker(marker("phase", 1.0, std::nullopt, MarkerPhase::kIntervalStart));
  t.add_marker(marker("phase", std::nullopt, 6.0, MarkerPhase::kIntervalEnd));
  Marker mark = marker("checkpoint", 5.5, std::nullopt, MarkerPhase::kInstant);
  mark.type = "Mark";
  mark.fields = {{"message", std::string("phase 1 done")}, {"done", true}, {"ratio", 0.25}};
  t.add_marker(std::move(mark));
  return t;
}

Thread make_worker() {
  Thread t;
  t.name = F::kWorkerRawName;
  t.tid = F::kWorkerTid;  // process name, type and pid are left to inherit from the process
  t.register_time_ms = 0.8;
  t.unregister_time_ms = 7.5;
  const uint32_t root =
      t.intern_stack(std::nullopt, t.intern_address_frame(0x7ffff7e1bac3, Category::kUser));
  const uint32_t work =
      t.intern_stack(root, t.intern_address_frame(0x555555555340, Category::kUser));
  const uint32_t leaf =
      t.intern_stack(work, t.intern_address_frame(0x555555555390, Category::kUser));
  for (double time : {1.5, 2.5, 3.5, 4.5})
    t.add_sample(Sample{time == 3.5 ? work : leaf, time, 1000000});
  Marker begin = marker("work", 1.2, std::nullopt, MarkerPhase::kIntervalStart);
  begin.type = "Mark";
  begin.fields = {{"message", std::string("begin")}};
  t.add_marker(std::move(begin));
  Marker end = marker("work", std::nullopt, 4.2, MarkerPhase::kIntervalEnd);
  end.type = "Mark";
  end.fields = {{"message", std::string("end")}};
  t.add_marker(std::move(end));
  return t;
}

Process make_child(int64_t pid, const std::string& name, size_t samples, double start_ms) {
  Process p;
  p.pid = pid;
  p.name = name;
  p.process_type = "child";
  p.shutdown_time_ms = start_ms + 3;
  p.libs = {make_lib(F::kDemoStart, 0x555555556000, F::kDemoOffset, "/usr/bin/" + name,
                     pid == F::kChildPid ? "aa0102030405060708090a0b0c0d0e0f10111213"
                                         : "bb0102030405060708090a0b0c0d0e0f10111213")};
  Thread t;
  t.name = "GeckoMain";
  t.process_name = name;
  t.process_type = "child";
  t.pid = t.tid = pid;
  t.register_time_ms = start_ms;
  const uint32_t root =
      t.intern_stack(std::nullopt, t.intern_address_frame(0x555555555010, Category::kUser));
  const uint32_t leaf =
      t.intern_stack(root, t.intern_address_frame(F::kChildLeafAvma, Category::kUser));
  for (size_t i = 0; i < samples; ++i) {
    t.add_sample(Sample{leaf, start_ms + 0.5 + static_cast<double>(i), 900000});
  }
  if (pid == F::kChildPid)
    t.add_marker(marker("exec", start_ms, std::nullopt, MarkerPhase::kInstant));
  p.threads.push_back(std::move(t));
  return p;
}

}  // namespace

profile::Profile make_sample_profile() {
  profile::Profile profile;
  profile.meta = make_meta();

  Process root;
  root.pid = F::kRootPid;
  root.name = "demo";
  root.shutdown_time_ms = 9.5;
  // Deliberately unsorted, with one lib covered by another (dropped) and one overlapping the
  // end of another (trimmed), to exercise the writer's normalisation.
  root.libs = {
      kernel_lib(),
      make_lib(0x7ffff7dc0000, 0x7ffff7f55000, 0x28000, "/usr/lib/x86_64-linux-gnu/libc.so.6",
               "0c0fd0f3fbb6dd0b9b1e1c1a7fe2d1e3a6b0c6d1"),
      make_lib(F::kDemoStart, 0x555555556000, F::kDemoOffset, "/home/user/demo",
               "d1b2c3a4e5f60718293a4b5c6d7e8f9012345678"),
      make_lib(0x555555555800, 0x555555558000, 0, "/home/user/libpartial.so",
               "c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4"),
      make_lib(0x555555554800, 0x555555555000, 0, "/home/user/libcovered.so",
               "e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4")};
  root.threads.push_back(make_root_main());
  root.threads.push_back(make_worker());
  profile.processes.push_back(std::move(root));
  profile.processes.push_back(make_child(F::kChildPid, "child-cmd", F::kChildSamples, 2.0));
  profile.processes.push_back(
      make_child(F::kGrandchildPid, "grandchild", F::kGrandchildSamples, 3.0));
  return profile;
}

profile::ProfileSymbols make_sample_symbols(const profile::Profile& profile) {
  using S = SampleSymbolFacts;
  profile::ProfileSymbols symbols;
  for (const auto& module : profile::native_addresses(profile)) {
    const std::string& name = module.module.debug_name;
    std::vector<std::pair<uint64_t, profile::AddressSymbol>> entries;
    for (const uint64_t address : module.addresses) {
      profile::AddressSymbol s;
      if (name == "demo" && address == F::kDemoLeaf) {
        s = {S::kDemoLeafFunction,
             S::kDemoLeafFunctionStart,
             S::kDemoLeafFunctionSize,
             S::kDemoFile,
             S::kDemoLeafLine,
             {{S::kInlineInner, S::kInlineFile, S::kInlineInnerLine},
              {S::kInlineOuter, S::kInlineFile, S::kInlineOuterLine}}};
      } else if (name == "demo") {
        s = {S::kDemoOtherFunction, address - 8, 0x10, S::kDemoFile, 30, {}};
      } else if (name == "libc.so.6") {
        s = {S::kLibcFunction, address - 0x10, std::nullopt, "", 0, {}};
      } else if (name == "child-cmd" && address != F::kChildLeaf) {
        s = {S::kChildFunction, address & ~uint64_t{0xff}, 0x100, "", 0, {}};
      } else if (name != "child-cmd") {
        continue;  // not found: the module gets no entry at all
      }
      entries.emplace_back(address, std::move(s));
    }
    if (!entries.empty())
      symbols.add_module(module.module, profile::ModuleSymbols(std::move(entries)));
  }
  return symbols;
}

}  // namespace sprof::test
