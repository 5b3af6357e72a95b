# Fails when PROGRAM links a Qt library: lowerscope-cli must run on machines
# without Qt (servers, CI), so nothing below views/ may pull Qt in.
#   cmake -DPROGRAM=<exe> -P check_no_qt.cmake
find_program(LDD ldd REQUIRED)
execute_process(COMMAND "${LDD}" "${PROGRAM}"
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ldd ${PROGRAM} failed (${code}): ${err}")
endif()
# Guard against a vacuous pass: ldd must have listed the C library.
if(NOT out MATCHES "libc\\.so")
  message(FATAL_ERROR "ldd output lists no libc, cannot judge:\n${out}")
endif()
if(out MATCHES "libQt[^\n]*")
  message(FATAL_ERROR "${PROGRAM} links Qt (${CMAKE_MATCH_0}):\n${out}")
endif()
message("${PROGRAM} links no Qt library")
