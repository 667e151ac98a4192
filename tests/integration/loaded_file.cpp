#include "loaded_file.hpp"

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>

#include "profiler_cli_queries.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::test {

using namespace std::chrono_literals;

LoadedFile::LoadedFile(const std::string& file, const std::string& dir)
    : loader_({kSprofExe, "load", "--no-open", "-P", "0", file}, dir + "/load.log") {
  const std::string log = loader_.wait_for_log("sprof: serving ", 30s);
  INFO("sprof load:\n" << loader_.log());
  REQUIRE_FALSE(log.empty());
  // "... and symbols at http://127.0.0.1:PORT/TOKEN (page: ...)"
  const std::string base = log_value_after(log, "and symbols at ");
  const size_t colon = base.rfind(':');
  const size_t slash = base.find('/', colon);
  REQUIRE(colon != std::string::npos);
  REQUIRE(slash != std::string::npos);
  token_path_ = base.substr(slash);
  http_.emplace(static_cast<uint16_t>(std::stoi(base.substr(colon + 1, slash - colon - 1))));
}

LoadedFile::~LoadedFile() { loader_.stop(SIGTERM, 10s); }

HttpResult LoadedFile::post(const std::string& path, const std::string& body) {
  return http_->request("POST", token_path_ + path, body);
}

HttpResult LoadedFile::get(const std::string& path) {
  return http_->request("GET", token_path_ + path);
}

int LoadedFile::stop() { return loader_.stop(SIGTERM, 10s); }

}  // namespace sprof::test
