#include "round_reader.hpp"

#include <utility>

namespace sprof::perfdata {

RoundReader::RoundReader(DataSectionSource& source, size_t batch_records, size_t batches_ahead)
    : source_(source),
      batch_records_(batch_records),
      batches_ahead_(batches_ahead < 1 ? 1 : batches_ahead),
      thread_([this] { read_all(); }) {}

RoundReader::~RoundReader() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool RoundReader::hand_over(std::vector<Round>& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return stopping_ || ready_.size() < batches_ahead_; });
  if (stopping_) return false;
  ready_.push_back(std::exchange(batch, {}));
  lock.unlock();
  changed_.notify_all();
  return true;
}

void RoundReader::read_all() {
  try {
    std::vector<Round> batch;
    size_t batched = 0;
    for (bool more = true; more;) {
      Round& round = batch.emplace_back();
      const sprof::perf::RecordSink sink = [&round](sprof::perf::Record&& r) {
        round.records.push_back(std::move(r));
      };
      more = source_.read_available(sink);
      if (!more) source_.flush_all(sink);
      round.side = source_.take_side_records();
      batched += round.records.size();
      if (batched >= batch_records_ || !more) {
        if (!hand_over(batch)) return;
        batched = 0;
      }
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    failure_ = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  changed_.notify_all();
}

std::vector<RoundReader::Round> RoundReader::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !ready_.empty() || finished_; });
  if (!ready_.empty()) {
    std::vector<Round> batch = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    changed_.notify_all();
    return batch;
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  return {};
}

}  // namespace sprof::perfdata
