# Runs one program and checks its exit code and output (stdout + stderr).
#   cmake -DPROGRAM=<exe> [-DARGS=a|b|c] -DEXPECT_EXIT=<n>
#         [-DEXPECT_LINES=prefix1|prefix2] [-DEXPECT_TEXT=text1|text2]
#         -P run_and_check.cmake
# EXPECT_LINES: for each prefix, some output line starts with it.
# EXPECT_TEXT: each text appears somewhere in the output.
# EXPECT_FILES: each file exists after the run.
# Unlike PASS_REGULAR_EXPRESSION this also checks the exit code, and it names
# exactly what is missing.
if(NOT DEFINED PROGRAM OR NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "run_and_check.cmake needs PROGRAM and EXPECT_EXIT")
endif()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${PROGRAM} ${args}\n--- exit code ${code}; output:\n${all}---")

set(problems "")
if(NOT code STREQUAL "${EXPECT_EXIT}")
  string(APPEND problems "exit code ${code}, expected ${EXPECT_EXIT}\n")
endif()
string(REPLACE "|" ";" prefixes "${EXPECT_LINES}")
foreach(prefix IN LISTS prefixes)
  string(FIND "\n${all}" "\n${prefix}" at)
  if(at EQUAL -1)
    string(APPEND problems "no output line starts with '${prefix}'\n")
  endif()
endforeach()
string(REPLACE "|" ";" texts "${EXPECT_TEXT}")
foreach(text IN LISTS texts)
  string(FIND "${all}" "${text}" at)
  if(at EQUAL -1)
    string(APPEND problems "output does not contain '${text}'\n")
  endif()
endforeach()
string(REPLACE "|" ";" files "${EXPECT_FILES}")
foreach(file IN LISTS files)
  if(NOT EXISTS "${file}")
    string(APPEND problems "expected file '${file}' was not written\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
