// tests/heap/heap_recording.cpp
#include "heap_recording.hpp"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "sprof_test/paths.hpp"

namespace sprof::heap::test {

std::string target_path(const std::string& name) {
  return std::string(sprof::test::kTargetsDir) + "/" + name;
}

std::string interposer_path() {
  return std::string(sprof::test::kBinaryDir) + "/heap/libsprof-heap.so";
}

namespace {

template <typename T>
std::vector<T> only(const std::vector<HeapEvent>& events) {
  std::vector<T> out;
  for (const auto& e : events)
    if (const auto* x = std::get_if<T>(&e)) out.push_back(*x);
  return out;
}

void parse_identities(const std::string& out, std::map<uint32_t, uint64_t>& main_by_pid) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned pid = 0;
    unsigned long long main = 0;
    if (std::sscanf(line.c_str(), "pid=%u main=0x%llx", &pid, &main) == 2) main_by_pid[pid] = main;
  }
}

}  // namespace

std::vector<HeapAlloc> HeapRecording::allocs() const { return only<HeapAlloc>(events); }
std::vector<HeapFree> HeapRecording::frees() const { return only<HeapFree>(events); }
std::vector<HeapAttach> HeapRecording::attaches() const { return only<HeapAttach>(events); }

HeapRecording record_heap(const std::string& name, const std::vector<std::string>& options,
                          const std::vector<std::string>& program_args) {
  const auto dir = std::filesystem::path(sprof::test::kBinaryDir) / "tests" / "heap" / "dumps";
  std::filesystem::create_directories(dir);
  const auto dump_path = (dir / (name + "-" + std::to_string(getpid()) + ".dump")).string();
  std::vector<std::string> argv{std::string(sprof::test::kBinaryDir) + "/heap/sprof-heap-run",
                                "--output", dump_path};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.emplace_back("--");
  argv.push_back(target_path(name));
  argv.insert(argv.end(), program_args.begin(), program_args.end());

  HeapRecording r;
  sprof::test::RunOptions run;
  run.timeout = std::chrono::seconds(120);
  r.process = sprof::test::run_process(argv, run);
  parse_identities(r.process.out, r.main_by_pid);
  {
    std::ifstream in(dump_path, std::ios::binary);
    r.dump_bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::remove(dump_path);
  auto dump = parse_heap_dump(r.dump_bytes);
  if (!dump) {
    r.dump_error = dump.error().message;
    return r;
  }
  r.header = dump->header;
  auto walked = for_each_dump_record(
      *dump, [&](const HeapEvent& e) { r.events.push_back(e); }, r.stats);
  r.dump_ok = walked.has_value();
  if (!walked) r.dump_error = walked.error().message;
  return r;
}

TargetSymbols::TargetSymbols(const std::string& path) {
  const auto nm = sprof::test::run_process({"nm", "-S", "--defined-only", path});
  std::istringstream lines(nm.out);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long address = 0, size = 0;
    char type = 0;
    char name[256] = {};
    if (std::sscanf(line.c_str(), "%llx %llx %c %255s", &address, &size, &type, name) == 4 &&
        (type == 'T' || type == 't'))
      symbols_[address] = Symbol{size, name};
  }
}

std::optional<uint64_t> TargetSymbols::address_of(const std::string& name) const {
  for (const auto& [address, symbol] : symbols_)
    if (symbol.name == name) return address;
  return std::nullopt;
}

std::string TargetSymbols::function_at(uint64_t link_address) const {
  auto it = symbols_.upper_bound(link_address);
  if (it == symbols_.begin()) return "";
  --it;
  return link_address < it->first + it->second.size ? it->second.name : "";
}

std::string caller_function(const HeapAlloc& alloc, const HeapRecording& recording,
                            const TargetSymbols& symbols) {
  const auto main_runtime = recording.main_by_pid.find(alloc.pid);
  const auto main_link = symbols.address_of("main");
  if (alloc.stack.size() < 8 || main_runtime == recording.main_by_pid.end() || !main_link)
    return "";
  uint64_t return_address = 0;
  std::memcpy(&return_address, alloc.stack.data(), sizeof return_address);
  const uint64_t bias = main_runtime->second - *main_link;
  // A return address follows the call: look up the byte before it.
  return symbols.function_at(return_address - 1 - bias);
}

}  // namespace sprof::heap::test
