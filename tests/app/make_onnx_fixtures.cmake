# Writes the bad .onnx files of cli_onnx_tests.cmake into OUT:
#   OUT/truncated.onnx                  the first 150 bytes of SOURCE (a valid model)
#   OUT/external/model/model.onnx       onnx/external_outside.textproto encoded
#   OUT/external/outside.bin            with protoc; its initializer's data
#                                       file lies outside the model's folder
#   OUT/unsupported_op.onnx             onnx/unsupported_op.textproto encoded:
#                                       a node of an unknown operator
#   cmake -DSOURCE=<model.onnx> -DOUT=<dir> -DPROTOC=<protoc> -DPROTO_DIR=<dir
#         holding onnx/onnx.proto> -P make_onnx_fixtures.cmake
foreach(v SOURCE OUT PROTOC PROTO_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "make_onnx_fixtures.cmake needs ${v}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${OUT}/external/model")
execute_process(COMMAND head -c 150 "${SOURCE}" OUTPUT_FILE "${OUT}/truncated.onnx"
  RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cannot truncate ${SOURCE}")
endif()
execute_process(COMMAND "${PROTOC}" "--proto_path=${PROTO_DIR}" --encode=onnx.ModelProto onnx/onnx.proto
  INPUT_FILE "${CMAKE_CURRENT_LIST_DIR}/onnx/external_outside.textproto"
  OUTPUT_FILE "${OUT}/external/model/model.onnx" RESULT_VARIABLE code ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "protoc could not encode external_outside.textproto: ${err}")
endif()
# Eight bytes: enough for the initializer's two floats, so only the location
# can be the reason to refuse.
file(WRITE "${OUT}/external/outside.bin" "12345678")
execute_process(COMMAND "${PROTOC}" "--proto_path=${PROTO_DIR}" --encode=onnx.ModelProto onnx/onnx.proto
  INPUT_FILE "${CMAKE_CURRENT_LIST_DIR}/onnx/unsupported_op.textproto"
  OUTPUT_FILE "${OUT}/unsupported_op.onnx" RESULT_VARIABLE code ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "protoc could not encode unsupported_op.textproto: ${err}")
endif()
