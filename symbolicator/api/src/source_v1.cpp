#include "source_v1.hpp"

#include <string>

#include "json_reply.hpp"
#include "request_fields.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/core/json_writer.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::api::detail {

namespace {

bool symbol_mentions_file(const symbolicator::SymbolInfo& info, std::string_view file) {
  if (info.file == file) return true;
  for (const auto& inlined : info.inlines) {
    if (inlined.file == file) return true;
  }
  return false;
}

// Reads a whole regular file of at most `kMaxSourceFileBytes`, by the name the debug info gives.
// - A name that is still relative is refused: the symbolicator already joined it with its unit's
//   DW_AT_comp_dir, so it is relative to a build directory nobody knows (Debian's glibc builds
//   in "."), and opening it as is would read the server's working directory, where anyone may
//   have put a file or a symlink by that name.
//   So is a name under /proc: builds that map their directory to /proc/self/cwd name files
//   that, opened here, are the server's own working directory again.
// - A symlink in the name's last component is not followed: whoever can write the source's
//   directory could otherwise point the name at any file the server may read. Directories on
//   the way are followed, as source trees are often reached through symlinked directories.
// A FIFO or device is refused too.
Result<std::string> read_source_file(const std::string& path) {
  if (!path.starts_with('/')) {
    return fail(Errc::kPermissionDenied,
                path +
                    " is not an absolute path (its compilation directory is relative or "
                    "unknown), so where it is cannot be known; not served");
  }
  if (path.starts_with("/proc/")) {
    return fail(Errc::kPermissionDenied,
                path + " is under /proc, which would name the server's own files; not served");
  }
  auto text = read_small_file(path, kMaxSourceFileBytes, Symlinks::kRefuse);
  // Not the request's fault, so not kTooLarge (which maps to 400).
  if (!text && text.error().code == Errc::kTooLarge) {
    return fail(Errc::kUnsupported, path + " is larger than the source size limit");
  }
  return text;
}

struct SourceText {
  std::string_view file;  // as requested (a view into the request document)
  std::string text;
};

Result<SourceText> permitted_source(ModuleSource& modules, simdjson::dom::element root) {
  SPROF_TRY(auto request, request_object(root));
  SPROF_TRY(const std::string_view debug_name, string_field(request, "debugName"));
  SPROF_TRY(const std::string_view debug_id, string_field(request, "debugId"));
  SPROF_TRY(const uint64_t offset, address_field(request, "moduleOffset"));
  SPROF_TRY(const std::string_view file, string_field(request, "file"));

  const std::string module_key = std::string(debug_name) + "/" + std::string(debug_id);
  auto map = modules.module(std::string(debug_name), std::string(debug_id));
  if (!map || !*map) return fail(Errc::kNotFound, "no symbols for module " + module_key);
  const auto info = (*map)->lookup(RelativeAddress{offset});
  const std::string denied = "file " + std::string(file) + " is not referenced at " +
                             std::string(Hex(offset).view()) + " in " + module_key;
  if (!info || !symbol_mentions_file(*info, file)) return fail(Errc::kPermissionDenied, denied);
  const std::string path(file);
  if (!(*map)->names_source_file(path)) return fail(Errc::kPermissionDenied, denied);
  SPROF_TRY(std::string text, read_source_file(path));
  return SourceText{file, std::move(text)};
}

}  // namespace

HttpReply source_v1(ModuleSource& modules, simdjson::dom::element root) {
  auto source = permitted_source(modules, root);
  if (!source) return reply_for_error(source.error());
  JsonWriter out;
  // symbolsLastModified/sourceLastModified are left out rather than written as null; the front
  // end reads only `source` (docs/firefox-profiler-format.md, "/source/v1").
  out.begin_object().field("file", source->file).field("source", source->text).end_object();
  return HttpReply::whole(200, "application/json", out.take());
}

}  // namespace sprof::api::detail
