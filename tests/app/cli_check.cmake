# add_cli_check(): declares a CTest test that runs a program once and checks
# what it did with run_and_check.cmake (included from CMakeLists.txt).
#
#   add_cli_check(NAME
#     [PROGRAM exe]              default: lowerscope-cli
#     EXIT code                  expected exit code
#     ARGS a b c ...             the program's arguments ('%' stands for ';')
#     [LINES prefix ...]         some output line starts with each prefix
#     [TEXT text ...]            the output contains each text
#     [FILES file ...]           each file exists afterwards
#     [FILE_TEXT file=text ...]  each file contains its text
#     [FILE_NO_TEXT file=text ...]  each file exists and does not contain its text
#     [ELF_ARM object]           the file is an ELF object for ARM
#     [CLEAN dir ...])           removed before the run
function(add_cli_check name)
  cmake_parse_arguments(PARSE_ARGV 1 C "" "PROGRAM;EXIT;ELF_ARM"
    "ARGS;LINES;TEXT;FILES;FILE_TEXT;FILE_NO_TEXT;CLEAN")
  if(C_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_cli_check(${name}): unknown arguments ${C_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT DEFINED C_EXIT)
    message(FATAL_ERROR "add_cli_check(${name}): EXIT is required")
  endif()
  if(NOT C_PROGRAM)
    set(C_PROGRAM "$<TARGET_FILE:lowerscope-cli>")
  endif()
  set(cmd ${CMAKE_COMMAND} "-DPROGRAM=${C_PROGRAM}" "-DEXPECT_EXIT=${C_EXIT}")
  foreach(pair ARGS:ARGS LINES:EXPECT_LINES TEXT:EXPECT_TEXT FILES:EXPECT_FILES
               FILE_TEXT:FILE_TEXT FILE_NO_TEXT:FILE_NO_TEXT CLEAN:CLEAN_DIRS)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 key)
    list(GET pair 1 var)
    if(DEFINED C_${key})
      list(JOIN C_${key} "|" joined)
      list(APPEND cmd "-D${var}=${joined}")
    endif()
  endforeach()
  if(C_ELF_ARM)
    list(APPEND cmd "-DELF_ARM=${C_ELF_ARM}")
  endif()
  add_test(NAME ${name} COMMAND ${cmd} -P "${RUN_AND_CHECK}")
endfunction()
