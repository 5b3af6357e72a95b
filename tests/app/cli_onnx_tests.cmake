# lowerscope-cli on ONNX files: import (and its output parses back), build and
# run opening .onnx directly, and clear errors for bad files (included from
# CMakeLists.txt). Models come from Debian's libonnx-testdata; the bad ones
# are made at test time by make_onnx_fixtures.cmake (head -c, protoc).
set(ONNX_NODE_DIR "/usr/share/libonnx-testdata/data/node")
set(ONNX_CONV "${ONNX_NODE_DIR}/test_conv_with_strides_padding")
set(ONNX_OUT "${CMAKE_CURRENT_BINARY_DIR}/onnx")
if(NOT EXISTS "${ONNX_CONV}/model.onnx")
  message(STATUS "libonnx-testdata not found: the cli_onnx_* tests are not registered "
                 "(scripts/install-deps.sh installs it)")
  return()
endif()
find_program(PROTOC protoc REQUIRED)

add_cli_check(cli_onnx_import
  EXIT 0
  ARGS import "${ONNX_CONV}/model.onnx" -o "${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  LINES "imported ${ONNX_CONV}/model.onnx in "
  FILES "${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir")
# The written text IR parses back and is well formed; the conv keeps its
# ONNX node as origin.
add_cli_check(cli_onnx_import_checks
  EXIT 0
  ARGS check "${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  LINES "${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir: ok (1 functions, 1 bindings)")
add_cli_check(cli_onnx_import_origin
  EXIT 0
  ARGS print "${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  TEXT "R.nn.conv2d(" "@origin(\"Conv_0:Conv\")")
set_tests_properties(cli_onnx_import PROPERTIES FIXTURES_SETUP onnx_conv_uir)
set_tests_properties(cli_onnx_import_checks cli_onnx_import_origin
  PROPERTIES FIXTURES_REQUIRED onnx_conv_uir)

# run opens .onnx directly, on the test's own input (a TensorProto .pb) ...
add_cli_check(cli_onnx_run
  EXIT 0
  ARGS run "${ONNX_CONV}/model.onnx" --input "x=${ONNX_CONV}/test_data_set_0/input_0.pb" --input
    "W=${ONNX_CONV}/test_data_set_0/input_1.pb" --repeat 2 --output-dir "${ONNX_OUT}/conv_run"
  LINES "output 0: float32 (1, 1, 4, 3)" "median "
  FILES "${ONNX_OUT}/conv_run/output_0.npy")
# ... and build does too.
add_cli_check(cli_onnx_build
  EXIT 0
  ARGS build "${ONNX_CONV}/model.onnx"
  LINES "built ${ONNX_CONV}/model.onnx for 'llvm'")

# Bad files: one clear error naming the file, exit code 1, no crash.
add_test(NAME cli_onnx_fixtures COMMAND ${CMAKE_COMMAND}
  -DSOURCE=${ONNX_CONV}/model.onnx -DOUT=${ONNX_OUT} -DPROTOC=${PROTOC}
  -DPROTO_DIR=/usr/include
  -P ${CMAKE_CURRENT_SOURCE_DIR}/make_onnx_fixtures.cmake)
set_tests_properties(cli_onnx_fixtures PROPERTIES FIXTURES_SETUP onnx_bad_files)
add_cli_check(cli_onnx_import_truncated
  EXIT 1
  ARGS import "${ONNX_OUT}/truncated.onnx" -o "${ONNX_OUT}/truncated.uir"
  TEXT "${ONNX_OUT}/truncated.onnx: not a valid ONNX model (protobuf parse failed: truncated or corrupt file)")
add_cli_check(cli_onnx_run_truncated
  EXIT 1
  ARGS run "${ONNX_OUT}/truncated.onnx"
  TEXT "${ONNX_OUT}/truncated.onnx: not a valid ONNX model")
add_cli_check(cli_onnx_import_external_outside
  EXIT 1
  ARGS import "${ONNX_OUT}/external/model/model.onnx"
  TEXT "initializer 'w': external data path '../outside.bin'" "outside the model's folder"
    "refusing to read it")
# Open anything: print and render show a model with a node of an unknown
# operator, that node marked with its operator and the reason; build and
# import refuse it, naming the node.
add_cli_check(cli_onnx_print_unsupported
  EXIT 0
  ARGS print "${ONNX_OUT}/unsupported_op.onnx"
  TEXT "R.unsupported(" "Frobnicate" "unknown operator" "R.nn.relu(")
add_cli_check(cli_onnx_render_unsupported
  EXIT 0
  ARGS render "${ONNX_OUT}/unsupported_op.onnx" --format dot -o "${ONNX_OUT}/unsupported_op.dot"
  LINES "rendered main"
  FILE_TEXT "${ONNX_OUT}/unsupported_op.dot=unsupported: Frobnicate")
add_cli_check(cli_onnx_build_unsupported
  EXIT 1
  ARGS build "${ONNX_OUT}/unsupported_op.onnx"
  TEXT "1 unsupported node" "frob (Frobnicate): unknown operator")
add_cli_check(cli_onnx_import_unsupported
  EXIT 1
  ARGS import "${ONNX_OUT}/unsupported_op.onnx" -o "${ONNX_OUT}/unsupported_op.uir"
  TEXT "cannot import: 1 unsupported node" "frob (Frobnicate): unknown operator")
set_tests_properties(cli_onnx_import_truncated cli_onnx_run_truncated
  cli_onnx_import_external_outside cli_onnx_print_unsupported cli_onnx_render_unsupported
  cli_onnx_build_unsupported cli_onnx_import_unsupported PROPERTIES FIXTURES_REQUIRED onnx_bad_files)
add_cli_check(cli_onnx_import_missing
  EXIT 1
  ARGS import "${ONNX_OUT}/no-such-model.onnx"
  TEXT no-such-model.onnx)
