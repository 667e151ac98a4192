// What gzip costs when a profile is saved, without the recording around it: one zlib deflate
// stream at level 1 (how profiles were written before issue 12) against ParallelGzip on the
// calling thread only and on its default threads, in interleaved rounds, on the JSON of a saved
// profile (or any file). The input is fed in 64 KiB pieces as JsonWriter flushes it; the output
// is only counted, so disk and fsync are left out.
//
// Usage: sprof_bench_gzip FILE [--runs N]   (FILE may itself be gzipped: it is inflated first)
// Prints min / median milliseconds per variant and the compressed sizes.
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "parallel_gzip.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using sprof::profile::detail::ParallelGzip;

constexpr size_t kPiece = size_t{64} * 1024;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

std::string gunzip_if_needed(std::string bytes) {
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
      static_cast<unsigned char>(bytes[1]) != 0x8b) {
    return bytes;
  }
  z_stream stream{};
  inflateInit2(&stream, 15 + 16);
  stream.next_in = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  return out;
}

// The single stream the gzip file sink used before ParallelGzip.
size_t single_stream(const std::string& input) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  static Bytef out[1 << 16];
  size_t total = 0;
  for (size_t at = 0;;) {
    const size_t n = std::min(kPiece, input.size() - at);
    const bool last = at + n == input.size();
    const int flush = last ? Z_FINISH : Z_NO_FLUSH;
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data() + at));
    stream.avail_in = static_cast<uInt>(n);
    int rc = Z_OK;
    do {
      stream.next_out = out;
      stream.avail_out = sizeof out;
      rc = deflate(&stream, flush);
      total += sizeof out - stream.avail_out;
    } while (stream.avail_out == 0 || (last && rc != Z_STREAM_END));
    at += n;
    if (last) break;
  }
  deflateEnd(&stream);
  return total;
}

size_t parallel(const std::string& input, unsigned threads) {
  size_t total = 0;
  ParallelGzip::Options options;
  options.threads = threads;
  ParallelGzip gz(
      [&](std::string_view bytes) -> sprof::Result<void> {
        total += bytes.size();
        return sprof::ok();
      },
      options);
  for (size_t at = 0; at < input.size(); at += kPiece) {
    (void)gz.write(std::string_view(input).substr(at, kPiece));
  }
  (void)gz.finish();
  return total;
}

struct Series {
  const char* name;
  std::vector<double> ms;
  size_t bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sprof_bench_gzip FILE [--runs N]\n");
    return 2;
  }
  int runs = 5;
  if (argc >= 4 && std::strcmp(argv[2], "--runs") == 0) runs = std::atoi(argv[3]);
  const std::string input = gunzip_if_needed(read_file(argv[1]));
  std::vector<Series> series = {{"one zlib stream (before)", {}},
                                {"ParallelGzip, calling thread", {}},
                                {"ParallelGzip, default threads", {}}};
  for (int round = 0; round < runs; ++round) {
    for (size_t i = 0; i < series.size(); ++i) {
      const auto start = Clock::now();
      series[i].bytes = i == 0   ? single_stream(input)
                        : i == 1 ? parallel(input, 0)
                                 : parallel(input, ParallelGzip::kDefaultThreads);
      series[i].ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  }
  std::printf("input %zu bytes, %d rounds\n", input.size(), runs);
  for (auto& s : series) {
    std::sort(s.ms.begin(), s.ms.end());
    std::printf("| %s | %.1f / %.1f ms | %zu bytes |\n", s.name, s.ms.front(),
                s.ms[s.ms.size() / 2], s.bytes);
  }
}
