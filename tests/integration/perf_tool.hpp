// tests/integration/perf_tool.hpp
//
// Making perf.data files with the real `perf record` at test time, and importing them with
// `sprof import`. Where perf is not installed or cannot record, the tests that need it exit with
// kSkipExitCode, saying why.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace sprof::test {

// perf(1) runs and can record here; else says why not.
bool perf_tool_available(std::string& why_not);
// Ends the test process with kSkipExitCode, printing why, when perf cannot record.
void skip_without_perf_tool();

// `perf record -q --no-bpf-event --no-buildid-cache -o <out> <args...> [-- command...]`: no side
// effects on ~/.debug and no second of BPF bookkeeping at exit.
ProcessResult perf_record(const std::string& out, const std::vector<std::string>& args,
                          const std::vector<std::string>& command);

// How many samples of each event perf itself reads in `perf_data` (`perf script -F event`).
std::map<std::string, size_t> perf_script_sample_counts(const std::string& perf_data);

// `perf record --call-graph dwarf -F 4000` of `command` into <dir>/perf.data, then `sprof import`
// of it into <dir>/p.json.gz (the Gecko form); REQUIREs (doctest) that both succeed. Returns the
// command's standard output, where test programs print what they measured of their own run.
std::string record_with_perf_and_import(const std::string& dir,
                                        const std::vector<std::string>& command);

// `sprof import -s --no-presymbolicate -o <out> <extra...> <perf_data>`: the Gecko form, which
// read_profile reads.
ProcessResult sprof_import(const std::string& perf_data, const std::string& out,
                           const std::vector<std::string>& extra = {});

}  // namespace sprof::test
