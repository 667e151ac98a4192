#include "sprof/perfdata/data_section_source.hpp"

#include <linux/perf_event.h>

#include <cstring>
#include <utility>

#include "sprof/core/byte_reader.hpp"
#include "sprof/perfdata/perf_file_format.hpp"

namespace sprof::perfdata {

namespace {

// perf_event_header::size is a u16: no record is larger, so a chunk of this much more than the
// chunk size always holds a whole record.
constexpr size_t kMaxRecordBytes = 65535;

}  // namespace

DataSectionSource::DataSectionSource(ByteSource& bytes, FileSection data,
                                     sprof::perf::EventTable events, Options options)
    : bytes_(bytes),
      data_(data),
      stream_(std::move(events)),
      options_(options),
      buffer_offset_(data.offset) {
  if (bytes.data() != nullptr && range_within(data.offset, data.size, bytes.size())) {
    in_place_ = true;
    window_ = bytes.data() + data.offset;
    filled_ = static_cast<size_t>(data.size);
  } else {
    buffer_.resize(std::max<size_t>(options.chunk_bytes, kMaxRecordBytes));
    window_ = buffer_.data();
  }
}

void DataSectionSource::stop(uint64_t at, std::string why) {
  done_ = true;
  const uint64_t end = data_.offset + data_.size;
  stats_.unread_bytes = at < end ? end - at : 0;
  stats_.stopped = std::move(why);
}

bool DataSectionSource::ensure(size_t n) {
  if (filled_ - cursor_ >= n) return true;
  if (in_place_) return false;  // everything is at hand: this is the end
  // Keep the unread tail, then fill the rest of the buffer from the file.
  std::memmove(buffer_.data(), buffer_.data() + cursor_, filled_ - cursor_);
  buffer_offset_ += cursor_;
  filled_ -= cursor_;
  cursor_ = 0;
  const uint64_t section_end = data_.offset + data_.size;
  const uint64_t next = buffer_offset_ + filled_;
  const uint64_t want = std::min<uint64_t>(buffer_.size() - filled_, section_end - next);
  if (want > 0) {
    auto read = bytes_.read(next, std::span<uint8_t>(buffer_.data() + filled_, want));
    if (!read) {
      stop(next, "reading " + bytes_.name() + " failed: " + read.error().message);
      return false;
    }
    filled_ += static_cast<size_t>(want);
  }
  return filled_ >= n;
}

void DataSectionSource::skip_aux_data(uint64_t payload_bytes) {
  const uint64_t section_end = data_.offset + data_.size;
  const uint64_t target = position() + payload_bytes;
  if (payload_bytes > section_end - position()) {
    stop(position(), "AUX data at byte " + std::to_string(position()) +
                         " runs past the end of the data section");
    return;
  }
  if (payload_bytes <= filled_ - cursor_) {
    cursor_ += static_cast<size_t>(payload_bytes);
    return;
  }
  // Only a chunked reader gets here (in place, the check above covers the whole section).
  buffer_offset_ = target;
  filled_ = cursor_ = 0;
}

bool DataSectionSource::on_user_record(std::span<const uint8_t> record, uint32_t type) {
  ByteReader r(record.subspan(sizeof(perf_event_header)));
  switch (type) {
    case format::record::kFinishedRound: ++stats_.finished_rounds; return true;
    case format::record::kHeaderBuildId:
      if (auto entry = parse_build_id_entry(record)) side_.build_ids.push_back(std::move(*entry));
      return false;
    case format::record::kThreadMap: {
      const uint64_t nr = r.u64();
      std::vector<int64_t>& pids = side_.thread_map.emplace();
      for (uint64_t i = 0; i < nr && r.remaining() >= 24; ++i) {
        pids.push_back(static_cast<int64_t>(r.u64()));
        r.skip(16);  // comm
      }
      return false;
    }
    case format::record::kAuxtrace:
      ++stats_.unused_by_type[type];
      skip_aux_data(r.u64());
      return false;
    case format::record::kCompressed: ++stats_.compressed_records; return false;
    default:
      ++(format::user_record_name(type) != nullptr ? stats_.unused_by_type
                                                   : stats_.unknown_by_type)[type];
      return false;
  }
}

bool DataSectionSource::read_available(const sprof::perf::RecordSink& sink) {
  while (!done_) {
    if (!ensure(sizeof(perf_event_header))) {
      if (!done_ && filled_ != cursor_) {
        stop(position(),
             "the data section ends inside a record header at byte " + std::to_string(position()));
      }
      done_ = true;
      break;
    }
    perf_event_header h{};
    std::memcpy(&h, window_ + cursor_, sizeof h);
    const uint64_t at = position();
    if (h.size < sizeof h) {
      stop(at, "the record at byte " + std::to_string(at) + " claims " + std::to_string(h.size) +
                   " bytes, less than its own header");
      break;
    }
    if (!ensure(h.size)) {
      if (!done_) {
        stop(at, "the record at byte " + std::to_string(at) + " (" + std::to_string(h.size) +
                     " bytes) runs past the end of the data section");
      }
      break;
    }
    const std::span<const uint8_t> record(window_ + cursor_, h.size);
    cursor_ += h.size;
    if (h.type >= format::record::kHeaderAttr) {
      if (on_user_record(record, h.type)) {
        round_bytes_ = 0;
        stream_.end_round(sink);
        return true;
      }
      continue;
    }
    // Mapped bytes outlive the conversion: samples borrow their stack copies from them.
    stream_.add(sprof::perf::RawRecord{record},
                in_place_ ? sprof::perf::StackCopy::kBorrow : sprof::perf::StackCopy::kCopy);
    round_bytes_ += h.size;
    if (round_bytes_ > options_.max_round_bytes) {
      // Two round ends release everything read so far (see RecordMerger::end_round).
      ++stats_.forced_rounds;
      round_bytes_ = 0;
      stream_.end_round(sink);
      stream_.end_round(sink);
      return true;
    }
  }
  return false;
}

void DataSectionSource::flush_all(const sprof::perf::RecordSink& sink) { stream_.flush(sink); }

DataSectionSource::SideRecords DataSectionSource::take_side_records() {
  return std::exchange(side_, SideRecords{});
}

}  // namespace sprof::perfdata
