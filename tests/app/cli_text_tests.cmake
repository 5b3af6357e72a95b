# lowerscope-cli print / check on the text format (included from
# tests/app/CMakeLists.txt): every example prints and checks; a broken file
# fails with exit code 1 and a file:line:col location.
file(GLOB TEXT_EXAMPLES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/resources/examples/*.uir")
foreach(example IN LISTS TEXT_EXAMPLES)
  get_filename_component(stem "${example}" NAME_WE)
  add_test(NAME cli_print_${stem} COMMAND ${CMAKE_COMMAND}
    -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=print|${example}" -DEXPECT_EXIT=0
    "-DEXPECT_LINES=# unity IR module|@R.function|def main("
    -P ${RUN_AND_CHECK})
  add_test(NAME cli_check_${stem} COMMAND ${CMAKE_COMMAND}
    -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=check|${example}" -DEXPECT_EXIT=0
    "-DEXPECT_TEXT=${stem}.uir: ok ("
    -P ${RUN_AND_CHECK})
endforeach()

set(TEXT_BROKEN "${CMAKE_CURRENT_BINARY_DIR}/broken.uir")
file(WRITE "${TEXT_BROKEN}" "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n    return y\n")
add_test(NAME cli_check_broken COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=check|${TEXT_BROKEN}" -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=broken.uir:3:12: error: undefined variable 'y'"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_print_broken COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=print|${TEXT_BROKEN}" -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=broken.uir:3:12:"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_check_missing_file COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=check|${CMAKE_CURRENT_BINARY_DIR}/missing.uir"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=missing.uir: error: cannot open file"
  -P ${RUN_AND_CHECK})
