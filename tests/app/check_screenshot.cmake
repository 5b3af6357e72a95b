# Renders the main window with `lowerscope --screenshot` and checks the PNG.
#   cmake -DLOWERSCOPE=<exe> -DPNG_CHECK=<exe> -DOUT=<file.png> -DSIZE=WxH
#         [-DLAUNCHER=xvfb-run|-a|...] -P check_screenshot.cmake
file(REMOVE "${OUT}")
string(REPLACE "|" ";" launcher "${LAUNCHER}")
execute_process(COMMAND ${launcher} "${LOWERSCOPE}" --screenshot "${OUT}" --size "${SIZE}"
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "lowerscope --screenshot exited with ${code}:\n${out}${err}")
endif()
execute_process(COMMAND "${PNG_CHECK}" "${OUT}" "${SIZE}"
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the screenshot ${OUT} is not right")
endif()
