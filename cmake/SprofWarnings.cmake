# sprof_set_warnings(<target>): the project's warning set; -Werror only with SPROF_WERROR.
function(sprof_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
  get_target_property(unity ${target} UNITY_BUILD)
  if(unity AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC warns of a class whose members use a type of an anonymous namespace when that namespace
    # is not in the main file, since a header's would differ per file that includes it. In a
    # unity batch every source is such an included file, though each is included once.
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  if(SPROF_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
