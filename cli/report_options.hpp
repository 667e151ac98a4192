// cli/report_options.hpp: parsed options of `sprof report`, `sprof export`, `sprof flamegraph` and
// `sprof diff`, `sprof compare` (filled by definitions/report_definition.cpp,
// export_definition.cpp, flamegraph_definition.cpp and diff_definition.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "options.hpp"

namespace sprof::cli {

// Which part of a profile a report or an export reads.
struct ProfileSelection {
  std::string input;
  std::string process;        // --process PID|NAME
  std::string thread;         // --thread NAME|TID
  SymbolSources symbols;      // for a file without embedded symbols
  bool include_idle = false;  // --include-idle: off-CPU samples count too
  bool allocations = false;   // the report reads allocation rows, not samples (report --heap)
};

enum class ColourChoice { kAuto, kAlways, kNever };

struct ReportCommandOptions {
  ProfileSelection selection;
  bool tree = false;
  bool heap = false;    // --heap: allocation sites (heap_report.hpp)
  std::string callers;  // --callers FUNC
  std::string sort = "total";
  size_t limit = 0;
  std::optional<double> min_percent;
  size_t max_depth = 0;
  bool per_thread = false;
  bool json = false;
  size_t width = 0;  // 0: the terminal's, else $COLUMNS, else 80
  ColourChoice colour = ColourChoice::kAuto;
  Verbosity verbosity = Verbosity::kNormal;
};

enum class ExportFormat { kFolded, kPprof };

// --heap allocated|retained: stacks weighed by the bytes they allocated, or still hold at the end.
enum class HeapView { kNone, kAllocated, kRetained };

struct ExportCommandOptions {
  ProfileSelection selection;
  ExportFormat format = ExportFormat::kFolded;
  std::string output;  // empty or "-": stdout
  bool thread_prefix = false;
  HeapView heap = HeapView::kNone;
  Verbosity verbosity = Verbosity::kNormal;
};

struct FlameGraphCommandOptions {
  ProfileSelection selection;
  std::string output;  // empty or "-": stdout
  std::string title;   // empty: "Flame Graph" / "Icicle Graph"
  bool inverted = false;
  double width_px = 1200;
  double min_width_px = 0.1;
  HeapView heap = HeapView::kNone;
  Verbosity verbosity = Verbosity::kNormal;
};

struct DiffCommandOptions {
  ProfileSelection base;   // `input` is the base profile; the selection applies to both
  std::string next_input;  // the new profile
  size_t limit = 0;
  bool json = false;
  std::optional<double> fail_above;  // --fail-above PCT: points of total share
  std::string output;                // -o: the differential flame graph (SVG)
  size_t width = 0;                  // as ReportCommandOptions
  ColourChoice colour = ColourChoice::kAuto;
  Verbosity verbosity = Verbosity::kNormal;
};

// `sprof compare BASE NEW`: both served, opened in the Firefox Profiler's compare view.
struct CompareCommandOptions {
  std::string base;
  std::string next;
  std::string process;  // --process: the same selection in both profiles
  std::string thread;   // --thread: by default the busiest thread of each
  ServeOptions serve;   // its symbol sources name Gecko and perf.data inputs too
  Verbosity verbosity = Verbosity::kNormal;
};

}  // namespace sprof::cli
