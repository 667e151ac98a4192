#include "parallel_gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace sprof::profile::detail {

namespace {

// Deflate's window: the most a match can reach back, so the most of the previous input a block
// can use as its dictionary.
constexpr size_t kWindow = size_t{32} * 1024;
// Blocks queued or being compressed per worker before the caller waits for the oldest: enough
// that a worker finding its next block waiting is the rule, few enough to bound memory.
constexpr size_t kBlocksPerThread = 2;

struct Block {
  std::string input;
  std::string dictionary;  // up to kWindow bytes of input just before this block
  bool last = false;
  // Set by the compressing thread; read by the caller only once `done` (under the mutex).
  std::string output;
  uLong crc = 0;
  std::optional<Error> error;
  bool done = false;
};

// One raw deflate stream (no header or trailer), reset for each block it compresses.
class Deflater {
 public:
  explicit Deflater(int level) : level_(level) {}
  ~Deflater() {
    if (initialized_) deflateEnd(&stream_);
  }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  // Fills `block.output` and `block.crc`.
  Result<void> compress(Block& block) {
    SPROF_TRY_VOID(start());
    // zlib's API takes non-const pointers but does not modify the input or the dictionary.
    auto* input = reinterpret_cast<Bytef*>(block.input.data());
    const auto input_size = static_cast<uInt>(block.input.size());
    if (!block.dictionary.empty() &&
        deflateSetDictionary(&stream_, reinterpret_cast<const Bytef*>(block.dictionary.data()),
                             static_cast<uInt>(block.dictionary.size())) != Z_OK) {
      return fail(Errc::kInternal, "deflateSetDictionary failed");
    }
    block.crc = crc32(crc32(0, Z_NULL, 0), input, input_size);
    stream_.next_in = input;
    stream_.avail_in = input_size;
    const int flush = block.last ? Z_FINISH : Z_SYNC_FLUSH;
    // deflateBound assumes Z_FINISH; a sync flush adds an empty stored block (5 bytes), so the
    // loop below rarely needs to grow the buffer, but it may.
    block.output.resize(deflateBound(&stream_, input_size) + 16);
    size_t produced = 0;
    for (;;) {
      stream_.next_out = reinterpret_cast<Bytef*>(block.output.data() + produced);
      stream_.avail_out = static_cast<uInt>(block.output.size() - produced);
      const int rc = deflate(&stream_, flush);
      produced = block.output.size() - stream_.avail_out;
      if (rc == Z_STREAM_ERROR) return fail(Errc::kInternal, "deflate failed");
      // Done: the final block ended the stream; another one has consumed its input and flushed
      // (deflate returned with output space left, zlib's sign that the flush is complete).
      if (block.last ? rc == Z_STREAM_END : stream_.avail_in == 0 && stream_.avail_out != 0) {
        break;
      }
      if (stream_.avail_out != 0) return fail(Errc::kInternal, "deflate made no progress");
      block.output.resize(block.output.size() * 2);
    }
    block.output.resize(produced);
    return ok();
  }

 private:
  Result<void> start() {
    if (initialized_) {
      if (deflateReset(&stream_) != Z_OK) return fail(Errc::kInternal, "deflateReset failed");
      return ok();
    }
    // windowBits -15: raw deflate, the gzip wrapper is written once around all blocks.
    if (deflateInit2(&stream_, level_, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return fail(Errc::kInternal, "deflateInit2 failed");
    }
    initialized_ = true;
    return ok();
  }

  int level_;
  z_stream stream_{};
  bool initialized_ = false;
};

// Compresses without letting an exception (std::bad_alloc while growing a buffer) out of a
// worker thread, where it would terminate the process.
void compress_block(Deflater& deflater, Block& block) {
  try {
    if (auto compressed = deflater.compress(block); !compressed) block.error = compressed.error();
  } catch (const std::exception& e) {
    block.error = Error{Errc::kInternal, std::string("compressing: ") + e.what(), 0};
  }
}

void put_le32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

struct ParallelGzip::Impl {
  Impl(Output out, const Options& options)
      : output(std::move(out)),
        block_size(std::clamp<size_t>(options.block_size, 1, size_t{1} << 30)),
        level(options.level),
        local(options.level) {
    const unsigned wanted = options.threads == kDefaultThreads
                                ? std::max(1U, std::thread::hardware_concurrency())
                                : options.threads;
    workers.reserve(wanted);
    for (unsigned i = 0; i < wanted; ++i) {
      try {
        workers.emplace_back([this] { run_worker(); });
      } catch (const std::system_error&) {
        break;  // fewer threads (perhaps none: then `local` compresses on the caller)
      }
    }
    started = static_cast<unsigned>(workers.size());
    current = take_block();
  }

  ~Impl() { stop_workers(); }

  void run_worker() {
    Deflater deflater(level);
    std::unique_lock lock(mutex);
    for (;;) {
      work_ready.wait(lock, [&] { return stopping || !queue.empty(); });
      if (stopping) return;  // blocks still queued were abandoned by an error or the destructor
      Block* block = queue.front();
      queue.pop_front();
      lock.unlock();
      compress_block(deflater, *block);
      lock.lock();
      block->done = true;
      block_done.notify_all();
    }
  }

  void stop_workers() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    work_ready.notify_all();
    for (auto& worker : workers) worker.join();
    workers.clear();
  }

  // A cleared block, reusing an emitted one's buffers when there is one.
  std::unique_ptr<Block> take_block() {
    std::unique_ptr<Block> block;
    if (spare.empty()) {
      block = std::make_unique<Block>();
    } else {
      block = std::move(spare.back());
      spare.pop_back();
      block->input.clear();
      block->dictionary.clear();
      block->output.clear();
      block->last = false;
      block->error.reset();
      block->done = false;
    }
    block->input.reserve(block_size);
    return block;
  }

  Result<void> append(std::string_view data) {
    while (!data.empty()) {
      const size_t take = std::min(block_size - current->input.size(), data.size());
      current->input.append(data.substr(0, take));
      data.remove_prefix(take);
      if (current->input.size() == block_size) SPROF_TRY_VOID(submit(/*last=*/false));
    }
    return ok();
  }

  // Hands `current` to the workers (or compresses it here) and starts a new one.
  Result<void> submit(bool last) {
    std::unique_ptr<Block> block = std::move(current);
    block->last = last;
    block->dictionary = window;
    const std::string& input = block->input;
    if (input.size() >= kWindow) {
      window.assign(input, input.size() - kWindow, kWindow);
    } else {
      window += input;
      if (window.size() > kWindow) window.erase(0, window.size() - kWindow);
    }
    if (!last) current = take_block();

    if (workers.empty()) {
      compress_block(local, *block);
      return emit(std::move(block));
    }
    while (in_flight.size() >= kBlocksPerThread * workers.size()) {
      SPROF_TRY_VOID(emit_oldest(/*wait=*/true));
    }
    {
      std::lock_guard lock(mutex);
      queue.push_back(block.get());
    }
    work_ready.notify_one();
    in_flight.push_back(std::move(block));
    // Write out what is already compressed, without waiting, so output keeps pace with input.
    while (!in_flight.empty()) {
      bool emitted = false;
      SPROF_TRY_VOID(emit_oldest(/*wait=*/false, &emitted));
      if (!emitted) break;
    }
    return ok();
  }

  Result<void> emit_oldest(bool wait, bool* emitted = nullptr) {
    {
      std::unique_lock lock(mutex);
      Block* oldest = in_flight.front().get();
      if (wait) {
        block_done.wait(lock, [&] { return oldest->done; });
      } else if (!oldest->done) {
        return ok();
      }
    }
    if (emitted) *emitted = true;
    std::unique_ptr<Block> block = std::move(in_flight.front());
    in_flight.pop_front();
    return emit(std::move(block));
  }

  // Writes one compressed block (after the header, before the first) and folds its CRC in.
  Result<void> emit(std::unique_ptr<Block> block) {
    if (block->error) return *block->error;
    if (!header_written) {
      // ID1 ID2, CM = deflate, no flags, MTIME 0 (the same input gives the same bytes),
      // XFL 4 ("fastest", as zlib writes for level 1; 0 otherwise) and OS 3 (Unix).
      const char header[10] = {
          '\x1f', '\x8b', 8, 0, 0, 0, 0, 0, static_cast<char>(level == 1 ? 4 : 0), 3};
      SPROF_TRY_VOID(output(std::string_view(header, sizeof header)));
      header_written = true;
    }
    SPROF_TRY_VOID(output(block->output));
    crc = crc32_combine(crc, block->crc, static_cast<z_off_t>(block->input.size()));
    total_size += block->input.size();
    spare.push_back(std::move(block));
    return ok();
  }

  Result<void> finish() {
    SPROF_TRY_VOID(submit(/*last=*/true));
    while (!in_flight.empty()) SPROF_TRY_VOID(emit_oldest(/*wait=*/true));
    stop_workers();
    std::string trailer;
    put_le32(trailer, static_cast<uint32_t>(crc));
    put_le32(trailer, static_cast<uint32_t>(total_size));  // ISIZE: the length modulo 2^32
    return output(trailer);
  }

  Output output;
  const size_t block_size;
  const int level;
  Deflater local;  // used only when no worker thread started

  std::mutex mutex;
  std::condition_variable work_ready;  // a block was queued, or stopping
  std::condition_variable block_done;  // a worker finished a block
  std::deque<Block*> queue;            // waiting for a worker (guarded by mutex)
  bool stopping = false;               // guarded by mutex
  std::vector<std::thread> workers;
  unsigned started = 0;  // workers.size() until finish stops them

  // Caller's side only.
  std::unique_ptr<Block> current;                // being filled
  std::deque<std::unique_ptr<Block>> in_flight;  // submitted, in input order
  std::vector<std::unique_ptr<Block>> spare;     // emitted, buffers kept for reuse
  std::string window;                            // the last kWindow bytes submitted
  uLong crc = crc32(0, Z_NULL, 0);
  uint64_t total_size = 0;
  bool header_written = false;
  std::optional<Error> error;
  bool finished = false;
};

ParallelGzip::ParallelGzip(Output output, Options options)
    : impl_(std::make_unique<Impl>(std::move(output), options)) {}

ParallelGzip::~ParallelGzip() = default;

Result<void> ParallelGzip::write(std::string_view data) {
  if (impl_->error) return *impl_->error;
  if (impl_->finished) return fail(Errc::kInternal, "gzip: write after finish");
  if (auto appended = impl_->append(data); !appended) {
    impl_->error = appended.error();
    return appended;
  }
  return ok();
}

Result<void> ParallelGzip::finish() {
  if (impl_->error) return *impl_->error;
  if (impl_->finished) return fail(Errc::kInternal, "gzip: finished twice");
  impl_->finished = true;
  if (auto finished = impl_->finish(); !finished) {
    impl_->error = finished.error();
    return finished;
  }
  return ok();
}

unsigned ParallelGzip::threads() const { return impl_->started; }

}  // namespace sprof::profile::detail
