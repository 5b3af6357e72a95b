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

add_test(NAME cli_onnx_import COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=import|${ONNX_CONV}/model.onnx|-o|${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  -DEXPECT_EXIT=0 "-DEXPECT_LINES=imported ${ONNX_CONV}/model.onnx in "
  "-DEXPECT_FILES=${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  -P ${RUN_AND_CHECK})
# The written text IR parses back and is well formed; the conv keeps its
# ONNX node as origin.
add_test(NAME cli_onnx_import_checks COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=check|${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  -DEXPECT_EXIT=0 "-DEXPECT_LINES=${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir: ok (1 functions, 1 bindings)"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_onnx_import_origin COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=print|${CMAKE_CURRENT_BINARY_DIR}/onnx_conv.uir"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=R.nn.conv2d(|@origin(\"Conv_0:Conv\")"
  -P ${RUN_AND_CHECK})
set_tests_properties(cli_onnx_import PROPERTIES FIXTURES_SETUP onnx_conv_uir)
set_tests_properties(cli_onnx_import_checks cli_onnx_import_origin
  PROPERTIES FIXTURES_REQUIRED onnx_conv_uir)

# run opens .onnx directly, on the test's own input (a TensorProto .pb) ...
add_test(NAME cli_onnx_run COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${ONNX_CONV}/model.onnx|--input|x=${ONNX_CONV}/test_data_set_0/input_0.pb|--input|W=${ONNX_CONV}/test_data_set_0/input_1.pb|--repeat|2|--output-dir|${ONNX_OUT}/conv_run"
  -DEXPECT_EXIT=0 "-DEXPECT_LINES=output 0: float32 (1, 1, 4, 3)|median "
  "-DEXPECT_FILES=${ONNX_OUT}/conv_run/output_0.npy"
  -P ${RUN_AND_CHECK})
# ... and build does too.
add_test(NAME cli_onnx_build COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=build|${ONNX_CONV}/model.onnx"
  -DEXPECT_EXIT=0 "-DEXPECT_LINES=built ${ONNX_CONV}/model.onnx for 'llvm'"
  -P ${RUN_AND_CHECK})

# Bad files: one clear error naming the file, exit code 1, no crash.
add_test(NAME cli_onnx_fixtures COMMAND ${CMAKE_COMMAND}
  -DSOURCE=${ONNX_CONV}/model.onnx -DOUT=${ONNX_OUT} -DPROTOC=${PROTOC}
  -DPROTO_DIR=/usr/include
  -P ${CMAKE_CURRENT_SOURCE_DIR}/make_onnx_fixtures.cmake)
set_tests_properties(cli_onnx_fixtures PROPERTIES FIXTURES_SETUP onnx_bad_files)
add_test(NAME cli_onnx_import_truncated COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=import|${ONNX_OUT}/truncated.onnx|-o|${ONNX_OUT}/truncated.uir"
  -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=${ONNX_OUT}/truncated.onnx: not a valid ONNX model (protobuf parse failed: truncated or corrupt file)"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_onnx_run_truncated COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=run|${ONNX_OUT}/truncated.onnx"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=${ONNX_OUT}/truncated.onnx: not a valid ONNX model"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_onnx_import_external_outside COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=import|${ONNX_OUT}/external/model/model.onnx"
  -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=initializer 'w': external data path '../outside.bin'|outside the model's folder|refusing to read it"
  -P ${RUN_AND_CHECK})
set_tests_properties(cli_onnx_import_truncated cli_onnx_run_truncated
  cli_onnx_import_external_outside PROPERTIES FIXTURES_REQUIRED onnx_bad_files)
add_test(NAME cli_onnx_import_missing COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DARGS=import|${ONNX_OUT}/no-such-model.onnx"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=no-such-model.onnx"
  -P ${RUN_AND_CHECK})
