# Programs in languages with their own toolchains and runtimes, for the language rows of the
# toolchain matrix (tests/integration/languages_test.cpp):
#   lang_go          go build (Debian golang-go): goroutines, Go's .debug_frame and frame pointers
#   LangJava.class   javac (Debian openjdk-17-jdk-headless): JIT code named by the JVM's perf map
# A missing toolchain leaves its program unbuilt; its tests then fail naming the package.
set(languages_dir ${CMAKE_CURRENT_BINARY_DIR}/languages)
file(MAKE_DIRECTORY ${languages_dir})

find_program(SPROF_GO NAMES go PATHS /usr/lib/go/bin)
if(SPROF_GO)
  set(go_source ${CMAKE_CURRENT_LIST_DIR}/languages/lang_go.go)
  add_custom_command(
    OUTPUT ${languages_dir}/lang_go
    # A cache of its own in the build tree: no writes to $HOME, and no module download (std only).
    COMMAND ${CMAKE_COMMAND} -E env GOCACHE=${languages_dir}/go-cache GOFLAGS=-mod=mod
            GO111MODULE=off GOPATH=${languages_dir}/go-path
            ${SPROF_GO} build -o ${languages_dir}/lang_go ${go_source}
    DEPENDS ${go_source}
    COMMENT "go build lang_go"
    VERBATIM)
  add_custom_target(lang_go ALL DEPENDS ${languages_dir}/lang_go)
else()
  message(WARNING "go not found: lang_go is not built (Debian package: golang-go)")
endif()

find_program(SPROF_JAVAC javac)
if(SPROF_JAVAC)
  set(java_source ${CMAKE_CURRENT_LIST_DIR}/languages/LangJava.java)
  add_custom_command(
    OUTPUT ${languages_dir}/LangJava.class
    COMMAND ${SPROF_JAVAC} -d ${languages_dir} ${java_source}
    DEPENDS ${java_source}
    COMMENT "javac LangJava"
    VERBATIM)
  add_custom_target(lang_java ALL DEPENDS ${languages_dir}/LangJava.class)
else()
  message(WARNING "javac not found: LangJava is not built (Debian package: openjdk-17-jdk-headless)")
endif()
