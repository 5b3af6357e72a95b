# lowerscope_automoc_follows_sources(<target>)
#
# With CMake 3.25 + Ninja, a target's AUTOMOC step re-runs only when a file it
# scanned last time changes. A header that a CONFIGURE_DEPENDS glob picks up
# later is therefore never moc'ed, and the link fails with "undefined reference
# to vtable". When the target's source list differs from the one recorded at
# the previous configure, drop the step's timestamp so Ninja runs it again.
function(lowerscope_automoc_follows_sources target)
  get_target_property(sources ${target} SOURCES)
  list(JOIN sources "\n" content)
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_sources.txt")
  set(previous "")
  if(EXISTS "${list_file}")
    file(READ "${list_file}" previous)
  endif()
  if(NOT previous STREQUAL content)
    file(WRITE "${list_file}" "${content}")
    file(REMOVE "${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/timestamp")
  endif()
endfunction()
