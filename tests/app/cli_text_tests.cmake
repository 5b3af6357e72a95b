# lowerscope-cli print / check on the text format and ONNX (included from
# tests/app/CMakeLists.txt): every example prints and checks; a broken file
# fails with exit code 1 and a file:line:col location.
file(GLOB TEXT_EXAMPLES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/resources/examples/*.uir")
foreach(example IN LISTS TEXT_EXAMPLES)
  get_filename_component(stem "${example}" NAME_WE)
  add_cli_check(cli_print_${stem}
    EXIT 0
    ARGS print "${example}"
    LINES "# unity IR module" @R.function "def main(")
  add_cli_check(cli_check_${stem}
    EXIT 0
    ARGS check "${example}"
    TEXT "${stem}.uir: ok (")
endforeach()

set(TEXT_BROKEN "${CMAKE_CURRENT_BINARY_DIR}/broken.uir")
file(WRITE "${TEXT_BROKEN}" "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n    return y\n")
add_cli_check(cli_check_broken
  EXIT 1
  ARGS check "${TEXT_BROKEN}"
  TEXT "broken.uir:3:12: error: undefined variable 'y'")
add_cli_check(cli_print_broken
  EXIT 1
  ARGS print "${TEXT_BROKEN}"
  TEXT broken.uir:3:12:)
add_cli_check(cli_check_missing_file
  EXIT 1
  ARGS check "${CMAKE_CURRENT_BINARY_DIR}/missing.uir"
  TEXT "missing.uir: no such file")

# check reads ONNX as well as text IR (frontend::loadModel).
add_cli_check(cli_check_onnx_model EXIT 0
  ARGS check "${PROJECT_SOURCE_DIR}/tests/onnx/models/classifier_flatten/model.onnx"
  TEXT "model.onnx: ok (")
