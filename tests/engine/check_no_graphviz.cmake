# Fails when the static library LIBRARY references a Graphviz symbol: runs
# `NM -u LIBRARY` and looks for the C entry points of libcgraph (ag*) and
# libgvc (gv*, gvc*). Our own symbols are C++ (mangled, _Z...), so an
# unmangled ag*/gv* reference can only be Graphviz.
# Usage: cmake -DNM=nm -DLIBRARY=libunity_engine.a -P check_no_graphviz.cmake
if(NOT NM OR NOT LIBRARY)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DLIBRARY=<archive> -P check_no_graphviz.cmake")
endif()
execute_process(COMMAND ${NM} -u ${LIBRARY}
  OUTPUT_VARIABLE undefined ERROR_VARIABLE nm_error RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} failed (${rc}): ${nm_error}")
endif()
if(undefined STREQUAL "")
  message(FATAL_ERROR "${NM} -u ${LIBRARY} printed nothing: not the library expected")
endif()
string(REGEX MATCHALL "U (ag|gv)[A-Za-z0-9_]*" hits "${undefined}")
if(hits)
  list(REMOVE_DUPLICATES hits)
  list(TRANSFORM hits REPLACE "^U " "")
  list(JOIN hits " " names)
  # On one line of its own: message() wraps long text at a width that
  # depends on the library's path, which would break the pattern the
  # self-test (engine_links_no_graphviz_detects_viz) looks for.
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "Graphviz symbols referenced: ${names}")
  message(FATAL_ERROR "${LIBRARY} references Graphviz symbols (listed above)")
endif()
message(STATUS "${LIBRARY}: no Graphviz symbol among its undefined references")
