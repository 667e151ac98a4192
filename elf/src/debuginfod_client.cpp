// Queries through libdebuginfod with this client's servers and time limit put into the
// environment variables libdebuginfod 0.188 reads them from (see debuginfod_client.hpp).
//
// libdebuginfod is loaded with dlopen on the first query, not linked: it brings libcurl and
// ~28 more libraries (TLS, Kerberos, LDAP) whose loading and relocation took 4 ms of CPU at
// every start of sprof, about as much as reading 1,500 samples, for a feature most runs never
// use. libdw does the same with it. Only the declarations come from the header.
#include "sprof/elf/debuginfod_client.hpp"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

#include "sprof/core/unique_fd.hpp"

namespace sprof::elf {
namespace {

// Serialises queries and the environment changes that configure them.
std::mutex& query_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Sets an environment variable for this scope and puts the previous value back.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_) {
      ::setenv(name_, previous_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

// The functions sprof calls, from the library loaded at first use.
struct Library {
  decltype(&debuginfod_begin) begin = nullptr;
  decltype(&debuginfod_end) end = nullptr;
  decltype(&debuginfod_set_user_data) set_user_data = nullptr;
  decltype(&debuginfod_get_user_data) get_user_data = nullptr;
  decltype(&debuginfod_set_progressfn) set_progressfn = nullptr;
  decltype(&debuginfod_get_url) get_url = nullptr;
  decltype(&debuginfod_find_debuginfo) find_debuginfo = nullptr;
  decltype(&debuginfod_find_executable) find_executable = nullptr;
  std::string error;  // why it could not be loaded; empty when loaded
};

const Library& library() {
  static const Library loaded = [] {
    Library lib;
    // Never closed: the functions stay valid for the process's life.
    void* handle = ::dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      lib.error = std::string("libdebuginfod.so.1 cannot be loaded (install libdebuginfod1): ") +
                  (why != nullptr ? why : "dlopen failed");
      return lib;
    }
    const auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
      if (fn == nullptr && lib.error.empty()) {
        lib.error = std::string("libdebuginfod.so.1 lacks ") + name;
      }
    };
    bind(lib.begin, "debuginfod_begin");
    bind(lib.end, "debuginfod_end");
    bind(lib.set_user_data, "debuginfod_set_user_data");
    bind(lib.get_user_data, "debuginfod_get_user_data");
    bind(lib.set_progressfn, "debuginfod_set_progressfn");
    bind(lib.get_url, "debuginfod_get_url");
    bind(lib.find_debuginfo, "debuginfod_find_debuginfo");
    bind(lib.find_executable, "debuginfod_find_executable");
    return lib;
  }();
  return loaded;
}

struct ClientDeleter {
  void operator()(debuginfod_client* client) const { library().end(client); }
};

// libdebuginfod calls this about once a second: (bytes received, total or 0 / -1 unknown).
// Returning non-zero would cancel the transfer, which libdebuginfod 0.188 then caches as "not
// found" for 10 minutes, so sprof never cancels; the time limit is DEBUGINFOD_MAXTIME.
int report_progress(debuginfod_client* client, long received, long total) {
  const auto* progress = static_cast<const DebuginfodProgressFn*>(library().get_user_data(client));
  if (progress != nullptr && *progress) {
    const char* url = library().get_url(client);
    DebuginfodProgress p;
    p.bytes = received > 0 ? static_cast<uint64_t>(received) : 0;
    p.total = total > 0 ? static_cast<uint64_t>(total) : 0;
    p.url = url != nullptr ? url : "";
    (*progress)(p);
  }
  return 0;
}

std::string joined(const std::vector<std::string>& urls) {
  std::string out;
  for (const std::string& url : urls) out += (out.empty() ? "" : " ") + url;
  return out;
}

Error query_error(int rc, const std::string& what, const DebuginfodOptions& options) {
  const int err = -rc;
  const std::string servers = joined(options.urls);
  switch (err) {
    case ENOENT: return Error{Errc::kNotFound, what + ": not on " + servers, err};
    case ETIME:
      return Error{Errc::kIo,
                   what + ": timed out after " + std::to_string(options.timeout.count()) + " s (" +
                       servers + ")",
                   err};
    case EFBIG: return Error{Errc::kTooLarge, what + ": larger than the servers allow", err};
    default:
      return Error{Errc::kIo, what + ": cannot reach " + servers + " (" + std::strerror(err) + ")",
                   err};
  }
}

bool is_hex(std::string_view s) {
  return !s.empty() && s.size() % 2 == 0 &&
         s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

const char* artifact_name(DebuginfodArtifact artifact) {
  return artifact == DebuginfodArtifact::kDebugInfo ? "debug info" : "executable";
}

Result<DebuginfodFile> DebuginfodClient::fetch(std::string_view build_id_hex,
                                               DebuginfodArtifact artifact,
                                               const DebuginfodProgressFn& progress) const {
  const std::string what =
      std::string(artifact_name(artifact)) + " of build-id " + std::string(build_id_hex);
  if (options_.urls.empty()) return fail(Errc::kInvalidArgument, what + ": no debuginfod URLs");
  if (!is_hex(build_id_hex)) return fail(Errc::kInvalidArgument, what + ": not a build-id");
  const std::string id(build_id_hex);

  const Library& lib = library();
  if (!lib.error.empty()) return fail(Errc::kUnsupported, what + ": " + lib.error);

  std::lock_guard lock(query_mutex());
  const ScopedEnvironment urls(DEBUGINFOD_URLS_ENV_VAR, joined(options_.urls));
  const ScopedEnvironment max_time(
      DEBUGINFOD_MAXTIME_ENV_VAR,
      std::to_string(std::max<long long>(1, static_cast<long long>(options_.timeout.count()))));
  std::unique_ptr<debuginfod_client, ClientDeleter> client(lib.begin());
  if (!client) return fail(Errc::kIo, what + ": debuginfod_begin failed");
  // Replaces the default progress printer that DEBUGINFOD_PROGRESS would install: only the
  // cli prints.
  lib.set_user_data(client.get(), const_cast<DebuginfodProgressFn*>(&progress));
  lib.set_progressfn(client.get(), &report_progress);

  char* path = nullptr;
  const auto* bytes = reinterpret_cast<const unsigned char*>(id.c_str());
  const int rc = artifact == DebuginfodArtifact::kDebugInfo
                     ? lib.find_debuginfo(client.get(), bytes, 0, &path)
                     : lib.find_executable(client.get(), bytes, 0, &path);
  if (rc < 0) return query_error(rc, what, options_);
  const UniqueFd fd(rc);  // the open file; sprof reopens it by path
  DebuginfodFile file;
  file.path = path != nullptr ? path : "";
  std::free(path);
  if (const char* url = lib.get_url(client.get())) file.url = url;
  if (file.path.empty()) return fail(Errc::kIo, what + ": no cache path returned");
  return file;
}

std::vector<std::string> debuginfod_urls_from_environment() {
  std::vector<std::string> urls;
  const char* value = std::getenv(DEBUGINFOD_URLS_ENV_VAR);
  if (value == nullptr) return urls;
  std::istringstream in(value);
  for (std::string url; in >> url;) urls.push_back(url);
  return urls;
}

}  // namespace sprof::elf
