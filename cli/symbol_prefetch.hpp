// cli/symbol_prefetch.hpp
//
// `sprof record` saves a self-contained profile, and reading the modules' debug info is most of
// that (0.3-1 s for a small C++ program, more for large binaries and the kernel's symbols). The
// recording hands out previews of the profile so far while the program runs
// (recorder::RunControl::on_preview); this reads their symbols on a thread of its own, beside the
// program (at ordinary priority: the recording thread's real-time policy is reset for threads it
// starts, so where the program keeps every CPU busy the two share them), so that embedding the
// symbols once the recording ends finds the symbol maps built and the DWARF units its addresses
// fall in read. Only the addresses that first ran after the last preview are read then.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "hinted_symbolicator.hpp"
#include "options.hpp"
#include "sprof/recorder/session.hpp"

namespace sprof::cli {

class SymbolPrefetch {
 public:
  explicit SymbolPrefetch(SymbolSources sources) : symbols_(std::move(sources)) {}
  ~SymbolPrefetch() { stop(); }
  SymbolPrefetch(const SymbolPrefetch&) = delete;
  SymbolPrefetch& operator=(const SymbolPrefetch&) = delete;

  // Takes `preview` when no other is being read; drops it otherwise (the next one comes, and
  // the maps being built serve it too). Never waits: it is called on the recording thread.
  void offer(recorder::Recording&& preview);
  // Lets the preview being read finish (its work is the save's), then hands over the
  // symbolicator, told of `profile`'s modules.
  symbolicator::Symbolicator& finish(const profile::Profile& profile);

 private:
  void stop();
  void read_previews();  // the thread

  HintedSymbolicator symbols_;  // the thread's until stop()
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<recorder::Recording> pending_;
  bool closing_ = false;
  std::thread thread_;  // started by the first offer
};

}  // namespace sprof::cli
