#include "sprof_test/allocation_profile.hpp"

#include "sprof/core/build_id.hpp"

namespace sprof::test {

namespace {

using F = AllocationProfileFacts;
using profile::Category;
using profile::NativeAllocation;
using profile::Thread;

// The stack "outer -> inner": return addresses 0x20 into each function, outermost first.
uint32_t stack_of(Thread& t, std::initializer_list<uint64_t> functions) {
  std::optional<uint32_t> stack;
  for (const uint64_t f : functions) {
    stack = t.intern_stack(stack, t.intern_address_frame(F::kAppStart + f + 0x20, Category::kUser));
  }
  return *stack;
}

}  // namespace

profile::Profile make_allocation_profile() {
  profile::Profile profile;
  profile.meta.start_time_ms = 1700000000000.0;
  profile.meta.profiling_start_ms = 0;
  profile.meta.profiling_end_ms = 20;
  profile.meta.product = "sprof: allocapp";

  profile::Process process;
  process.pid = F::kPid;
  process.name = "allocapp";
  profile::Library app;
  app.start = F::kAppStart;
  app.end = F::kAppEnd;
  app.offset = 0;
  app.name = app.debug_name = "allocapp";
  app.path = app.debug_path = "/opt/allocapp";
  const auto id = BuildId::from_hex("a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4");
  app.breakpad_id = id->breakpad_id();
  app.code_id = id->code_id();
  process.libs.push_back(app);

  Thread main;
  main.name = "GeckoMain";
  main.tid = F::kPid;
  const uint32_t leaky = stack_of(main, {F::kMain, F::kLeaky});
  const uint32_t churn = stack_of(main, {F::kMain, F::kChurn});
  main.add_sample({stack_of(main, {F::kMain}), 1.0, 1000000});
  Thread worker;
  worker.name = "worker";
  worker.tid = F::kWorkerTid;
  worker.register_time_ms = 1.5;
  const uint32_t work = stack_of(worker, {F::kThreadStart, F::kWork});

  // Rows in time order within each table; the worker frees main's block in main's table.
  main.add_native_allocation(NativeAllocation{2.0, 6000, leaky, 0x10000, F::kPid});
  main.add_native_allocation(NativeAllocation{3.0, 6000, churn, 0x20000, F::kPid});
  worker.add_native_allocation(NativeAllocation{4.0, 3000, work, 0x30000, F::kWorkerTid});
  main.add_native_allocation(NativeAllocation{5.0, -6000, std::nullopt, 0x20000, F::kWorkerTid});
  worker.add_native_allocation(NativeAllocation{6.0, -3000, std::nullopt, 0x30000, F::kWorkerTid});
  main.add_native_allocation(NativeAllocation{7.0, 4000, leaky, 0x40000, F::kPid});
  main.add_native_allocation(NativeAllocation{8.0, 2000, churn, 0x20000, F::kPid});
  main.add_native_allocation(NativeAllocation{9.0, -2000, std::nullopt, 0x20000, F::kPid});
  process.threads.push_back(std::move(main));
  process.threads.push_back(std::move(worker));

  profile::Counter memory{"malloc", "Memory", "Bytes allocated and not freed yet", {}};
  memory.samples = {{2.0, 6000, 1},  {3.0, 6000, 1}, {4.0, 3000, 1}, {5.0, -6000, 1},
                    {6.0, -3000, 1}, {7.0, 4000, 1}, {9.0, 0, 2}};
  process.counters.push_back(std::move(memory));
  profile.processes.push_back(std::move(process));
  return profile;
}

profile::ProfileSymbols make_allocation_symbols(const profile::Profile& profile) {
  const std::pair<uint64_t, const char*> functions[] = {{F::kMain, "main"},
                                                        {F::kLeaky, "leaky"},
                                                        {F::kChurn, "churn"},
                                                        {F::kWork, "work"},
                                                        {F::kThreadStart, "thread_start"}};
  profile::ProfileSymbols symbols;
  for (const auto& module : profile::native_addresses(profile)) {
    std::vector<std::pair<uint64_t, profile::AddressSymbol>> entries;
    for (const uint64_t address : module.addresses) {
      for (const auto& [start, name] : functions) {
        if (address >= start && address < start + 0x100) {
          entries.emplace_back(address, profile::AddressSymbol{name, start, 0x100, "", 0, {}});
        }
      }
    }
    symbols.add_module(module.module, profile::ModuleSymbols(std::move(entries)));
  }
  return symbols;
}

}  // namespace sprof::test
