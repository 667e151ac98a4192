# sprof_set_warnings(<target>): the project's warning set; -Werror only with SPROF_WERROR.
function(sprof_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
  if(SPROF_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
