#include "asm_v1.hpp"

#include <algorithm>
#include <string>

#include "disassembler.hpp"
#include "json_reply.hpp"
#include "module_code.hpp"
#include "request_fields.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/core/json_writer.hpp"

namespace sprof::api::detail {

namespace {

struct AsmRequest {
  std::string debug_name;
  std::string debug_id;
  uint64_t start = 0;
  uint64_t size = 0;
  bool until_function_end = false;
};

Result<AsmRequest> parse_asm_request(simdjson::dom::element root) {
  SPROF_TRY(auto object, request_object(root));
  AsmRequest request;
  SPROF_TRY(const std::string_view debug_name, string_field(object, "debugName"));
  SPROF_TRY(const std::string_view debug_id, string_field(object, "debugId"));
  request.debug_name = debug_name;
  request.debug_id = debug_id;
  SPROF_TRY(request.start, address_field(object, "startAddress"));
  SPROF_TRY(request.size, address_field(object, "size"));
  SPROF_TRY(request.until_function_end,
            optional_bool_field(object, "continueUntilFunctionEnd", false));
  return request;
}

// The byte count to disassemble: the requested size, extended to the end of the containing
// function when asked (the front end then sent only a lower bound), capped at
// `kMaxDisassemblyBytes`.
uint64_t range_size(const AsmRequest& request, const symbolicator::SymbolMap& map) {
  uint64_t size = request.size;
  if (request.until_function_end || size == 0) {
    if (const auto info = map.lookup(RelativeAddress{request.start})) {
      const uint64_t end = info->function_start + info->function_size;
      if (info->function_size > 0 && info->function_start <= request.start && end > request.start) {
        size = std::max(size, end - request.start);
      }
    }
  }
  return std::min(size, kMaxDisassemblyBytes);
}

}  // namespace

HttpReply asm_v1(ModuleSource& modules, simdjson::dom::element root) {
  auto request = parse_asm_request(root);
  if (!request) return reply_for_error(request.error());

  auto map = modules.module(request->debug_name, request->debug_id);
  if (!map || !*map) {
    return error_reply(200,
                       "no symbols for module " + request->debug_name + "/" + request->debug_id);
  }
  const std::string& binary = (*map)->binary_file();
  if (binary.empty()) {
    return error_reply(200, "no binary file for module " + request->debug_name);
  }
  auto code = read_module_code(binary, request->start, range_size(*request, **map));
  if (!code) return reply_for_error(code.error());
  if (code->arch != "x86_64") {
    return error_reply(200, "cannot disassemble " + code->arch + " code, only x86_64");
  }
  auto instructions = disassemble_x86_64(code->bytes, request->start);
  if (!instructions) return reply_for_error(instructions.error());

  JsonWriter out;
  out.begin_object();
  out.field("startAddress", Hex(request->start).view());
  out.field("size", Hex(code->bytes.size()).view());
  out.field("arch", "x86_64");
  out.key("syntax").begin_array().value("Intel").end_array();
  out.key("instructions").begin_array();
  for (const auto& instruction : *instructions) {
    out.begin_array().value(instruction.offset).value(instruction.text).end_array();
  }
  out.end_array();
  out.end_object();
  return HttpReply::whole(200, "application/json", out.take());
}

}  // namespace sprof::api::detail
