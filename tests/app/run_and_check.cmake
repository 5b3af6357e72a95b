# Runs one program and checks its exit code, its output (stdout + stderr) and
# the files it wrote. Declared through add_cli_check() (cli_check.cmake):
#   cmake -DPROGRAM=<exe> [-DARGS=a|b|c] -DEXPECT_EXIT=<n>
#         [-DEXPECT_LINES=prefix1|prefix2] [-DEXPECT_TEXT=text1|text2]
#         [-DEXPECT_FILES=f1|f2] [-DFILE_TEXT=file=text|file=text]
#         [-DFILE_NO_TEXT=file=text|file=text]
#         [-DELF_ARM=object.o] [-DCLEAN_DIRS=d1|d2] -P run_and_check.cmake
# ARGS: the program's arguments; a '%' stands for ';' (composite target
#   strings), since ';' separates CMake list items.
# EXPECT_LINES: for each prefix, some output line starts with it.
# EXPECT_TEXT: each text appears somewhere in the output.
# EXPECT_FILES: each file exists after the run.
# FILE_TEXT: each written file contains its text.
# FILE_NO_TEXT: each file was written and does not contain its text.
# ELF_ARM: the file is an ELF object for 32-bit ARM (e_machine 40).
# CLEAN_DIRS: removed before the run, so a stale file cannot pass the check.
# Unlike PASS_REGULAR_EXPRESSION this also checks the exit code, and it names
# exactly what is missing.
if(NOT DEFINED PROGRAM OR NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "run_and_check.cmake needs PROGRAM and EXPECT_EXIT")
endif()
string(REPLACE "|" ";" dirs "${CLEAN_DIRS}")
foreach(dir IN LISTS dirs)
  file(REMOVE_RECURSE "${dir}")
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "%" "\\;" args "${args}")
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
# check_file_text(LIST WANTED): LIST holds FILE=TEXT pairs separated by '|';
# each FILE must exist and contain TEXT (WANTED true) or not (false).
function(check_file_text list wanted)
  string(REPLACE "|" ";" pairs "${list}")
  foreach(pair IN LISTS pairs)
    string(FIND "${pair}" "=" eq)
    string(SUBSTRING "${pair}" 0 ${eq} file)
    math(EXPR from "${eq} + 1")
    string(SUBSTRING "${pair}" ${from} -1 text)
    if(NOT EXISTS "${file}")
      string(APPEND problems "file '${file}' was not written\n")
      continue()
    endif()
    file(READ "${file}" content)
    string(FIND "${content}" "${text}" at)
    if(wanted AND at EQUAL -1)
      string(APPEND problems "'${file}' does not contain '${text}'\n")
    elseif(NOT wanted AND NOT at EQUAL -1)
      string(APPEND problems "'${file}' contains '${text}'\n")
    endif()
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()
check_file_text("${FILE_TEXT}" TRUE)
check_file_text("${FILE_NO_TEXT}" FALSE)
if(DEFINED ELF_ARM)
  if(NOT EXISTS "${ELF_ARM}")
    string(APPEND problems "object '${ELF_ARM}' was not written\n")
  else()
    file(READ "${ELF_ARM}" magic LIMIT 4 HEX)
    # e_machine: 2 bytes at offset 18, little endian (ELFDATA2LSB); EM_ARM = 40.
    file(READ "${ELF_ARM}" machine OFFSET 18 LIMIT 2 HEX)
    if(NOT magic STREQUAL "7f454c46")
      string(APPEND problems "'${ELF_ARM}' is not an ELF file (magic ${magic})\n")
    elseif(NOT machine STREQUAL "2800")
      string(APPEND problems "'${ELF_ARM}' has e_machine bytes ${machine}, expected 2800 (EM_ARM)\n")
    endif()
  endif()
endif()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
