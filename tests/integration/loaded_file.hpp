// `sprof load --no-open -P 0 FILE` in the background, serving until destroyed, with an HTTP
// client on its port for the paths below its token (the symbolication APIs, the profile, the
// page and its offline views).
#pragma once

#include <optional>
#include <string>

#include "http_test_client.hpp"
#include "subprocess.hpp"

namespace sprof::test {

class LoadedFile {
 public:
  // Waits (generously) until sprof says it serves; REQUIREs that it does.
  LoadedFile(const std::string& file, const std::string& dir);
  ~LoadedFile();
  LoadedFile(const LoadedFile&) = delete;
  LoadedFile& operator=(const LoadedFile&) = delete;

  // POST <token><path> with a JSON body.
  HttpResult post(const std::string& path, const std::string& body);
  // GET <token><path>.
  HttpResult get(const std::string& path);
  // Stops sprof (SIGTERM); its exit status.
  int stop();
  // What sprof printed so far.
  std::string log() const { return loader_.log(); }

 private:
  BackgroundProcess loader_;
  std::string token_path_;
  std::optional<HttpTestClient> http_;
};

}  // namespace sprof::test
