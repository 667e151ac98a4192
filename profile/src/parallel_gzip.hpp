// gzip compression on a few threads, so that writing a long recording's profile (~25 MB of JSON)
// is not held up by one core's deflate (the "exit -> profile written" row of docs/benchmarks.md).
//
// The input is cut into independent blocks, each compressed by a worker thread into a raw
// deflate stream ended by Z_SYNC_FLUSH (the last one by Z_FINISH). A sync flush ends on a byte
// boundary without ending the deflate stream, so the blocks concatenated in input order form ONE
// deflate stream: behind one gzip header, with the blocks' CRC-32s combined (crc32_combine) and
// the total length in the trailer, the file is a single gzip member, as gzip(1), zlib and the
// Firefox Profiler expect (pigz writes the same layout). Each block is primed with the 32 KiB of
// input before it as a preset dictionary, so matches may reach back across block boundaries and
// the output is about as small as one stream's; it depends only on the input and the block size,
// never on the number of threads or their timing, so the same profile gives the same bytes.
//
// Memory stays bounded: the caller waits for the oldest block once a few are in flight, and
// compressed blocks are handed to `Output` in order as soon as they and all before them are done,
// on the calling thread (so `Output` needs no locking and its errors come back from
// `write`/`finish`). When no thread can be started (std::system_error), blocks are compressed on
// the calling thread instead.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::profile::detail {

class ParallelGzip {
 public:
  // Receives the compressed bytes in order. Its first error stops compression and is returned by
  // the `write` or `finish` that called it.
  using Output = std::function<Result<void>(std::string_view)>;

  static constexpr unsigned kDefaultThreads = ~0U;  // std::thread::hardware_concurrency, >= 1

  struct Options {
    // Worker threads; 0 compresses on the calling thread (what a failed thread start falls back
    // to).
    unsigned threads = kDefaultThreads;
    // Input bytes per independently compressed block (at least 1). Smaller blocks cost ratio (the
    // flush per block) and per-block overhead; larger ones hold more memory per block in flight.
    size_t block_size = size_t{1} << 20;
    // zlib level; 1 because a profile is written on the way to its first view (file_sink.cpp).
    int level = 1;
  };

  explicit ParallelGzip(Output output, Options options);
  explicit ParallelGzip(Output output) : ParallelGzip(std::move(output), Options{}) {}
  ~ParallelGzip();
  ParallelGzip(const ParallelGzip&) = delete;
  ParallelGzip& operator=(const ParallelGzip&) = delete;

  // Appends `data` to the input. After an error every later call returns it again.
  Result<void> write(std::string_view data);
  // Compresses the rest, writes the trailer and stops the threads. Call once, after all writes.
  Result<void> finish();

  // Worker threads that started (0: compressing on the calling thread).
  unsigned threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::profile::detail
