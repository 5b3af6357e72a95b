# Renders the main window with `lowerscope --screenshot` and checks the PNG.
#   cmake -DLOWERSCOPE=<exe> -DPNG_CHECK=<exe> -DOUT=<file.png> -DSIZE=WxH
#         [-DLAUNCHER=xvfb-run|-a|...] [-DARGS=--open|FILE|--pass|N]
#         [-DEXPECT_TEXT=text1|text2] -P check_screenshot.cmake
# EXPECT_TEXT: each text appears in lowerscope's output (its "wrote ...: what
# is shown" line), so a screenshot of the wrong step or an empty graph fails.
file(REMOVE "${OUT}")
string(REPLACE "|" ";" launcher "${LAUNCHER}")
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${launcher} "${LOWERSCOPE}" ${args} --screenshot "${OUT}" --size "${SIZE}"
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "lowerscope --screenshot exited with ${code}:\n${out}${err}")
endif()
message("${out}")
string(REPLACE "|" ";" texts "${EXPECT_TEXT}")
foreach(text IN LISTS texts)
  string(FIND "${out}${err}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "lowerscope's output does not contain '${text}':\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND "${PNG_CHECK}" "${OUT}" "${SIZE}"
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the screenshot ${OUT} is not right")
endif()
