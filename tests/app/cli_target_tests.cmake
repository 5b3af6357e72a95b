# lowerscope-cli with composite targets (issue #7): --target strings and JSON
# files, --assign files and their errors, --emit of a cross (Cortex-M7) part,
# and `run` refusing it. Included from CMakeLists.txt. check_target_cli.cmake
# runs the program; in its ARGS a '%' stands for ';'.
set(TARGET_CHECK "${CMAKE_CURRENT_SOURCE_DIR}/check_target_cli.cmake")
set(TD "${CMAKE_CURRENT_BINARY_DIR}/target_data")
set(CNN "${PROJECT_SOURCE_DIR}/resources/examples/cnn.uir")
set(M7_TARGET "fast: llvm% compat: c% m7: llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7")

# Inputs of the tests. cnn.uir's bindings carry the ONNX node names they came
# from (conv1, conv2, fc, ...), which --assign accepts like binding names.
file(WRITE "${TD}/cnn_m7.json" [=[{"conv2": "m7", "fc": "compat"}]=])
file(WRITE "${TD}/cnn_libs.json"
  [=[[{"target": "conv", "nodes": ["conv1", "conv2"]}, {"target": "compat", "nodes": ["fc"]}]]=])
file(WRITE "${TD}/bad_syntax.json" "{\"conv1\": \"conv\",\n \"fc\" \"compat\"}\n")
file(WRITE "${TD}/unknown_names.json" [=[{"conv1": "conv", "conv9": "conv", "nosuch": "compat"}]=])
file(WRITE "${TD}/unknown_subtarget.json" [=[{"conv1": "gpu", "fc": "compat"}]=])
file(WRITE "${TD}/wrong_value.json" [=[{"conv1": ["conv"]}]=])
file(WRITE "${TD}/composite_target.json"
  [=[{"targets": {"cpu": "llvm", "conv": {"kind": "dnnl", "num-cores": 1}, "compat": "c"}, "default": "cpu"}]=])
file(WRITE "${TD}/single_target.json" [=[{"kind": "llvm", "opt-level": 2}]=])
file(WRITE "${TD}/bad_target.json" [=[{"targets": {"cpu": "llvm -bogus=1"}}]=])

add_test(NAME cli_target_emit_cortex_m7 COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|${M7_TARGET}|--assign|${TD}/cnn_m7.json|--emit|${TD}/emit_m7"
  -DCLEAN_DIRS=${TD}/emit_m7 -DEXPECT_EXIT=0
  "-DEXPECT_TEXT=part compat: c: |part m7: llvm -mcpu=cortex-m7 -mtriple=thumbv7em-none-eabi: |, compile-only"
  "-DEXPECT_FILES=${TD}/emit_m7/parts.json|${TD}/emit_m7/lowered.uir|${TD}/emit_m7/m7/module.s"
  "-DFILE_TEXT=${TD}/emit_m7/compat/module.c=int32_t|${TD}/emit_m7/parts.json=\"compile_only\": true|${TD}/emit_m7/m7/module.s=.cpu	cortex-m7"
  -DELF_ARM=${TD}/emit_m7/m7/module.o
  -P ${TARGET_CHECK})
add_test(NAME cli_target_run_refuses_cross_part COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${CNN}|--target|${M7_TARGET}|--assign|${TD}/cnn_m7.json|--repeat|1"
  -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=sub-target 'm7' (llvm -mcpu=cortex-m7 -mtriple=thumbv7em-none-eabi) is compile-only on this machine|build --emit DIR"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_run_assign_list_form COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${CNN}|--target|cpu: llvm% conv: dnnl% compat: c|--assign|${TD}/cnn_libs.json|--repeat|1|--profile"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=output 0: float32 (1, 10)|conv_main"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_assign_dump_passes COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|${TD}/composite_target.json|--assign|${TD}/cnn_libs.json|--dump-passes|${TD}/dump"
  -DCLEAN_DIRS=${TD}/dump -DEXPECT_EXIT=0
  "-DEXPECT_TEXT=for 'cpu: llvm|conv: dnnl -num-cores=1|compat: c'|part conv: dnnl -num-cores=1: 2 kernel(s)"
  "-DFILE_TEXT=${TD}/dump/index.json=\"PartitionByTarget\"|${TD}/dump/index.json=\"GraphToTIR(conv)\"|${TD}/dump/000_Input.txt=main/c2=conv"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_json_single COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|${TD}/single_target.json"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=for 'llvm -opt-level=2'"
  -P ${TARGET_CHECK})

# Errors: each names the file and the cause.
add_test(NAME cli_target_assign_bad_json COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|cpu: llvm% conv: dnnl% compat: c|--assign|${TD}/bad_syntax.json"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=bad_syntax.json: invalid JSON: parse error at line 2, column 14"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_assign_missing_file COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|cpu: llvm% compat: c|--assign|${TD}/no_such_assign.json"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=no_such_assign.json: no such file"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_assign_unknown_names COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|cpu: llvm% conv: dnnl% compat: c|--assign|${TD}/unknown_names.json"
  -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=unknown_names.json: no binding or source-model node named 'conv9', 'nosuch' in the module"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_assign_unknown_subtarget COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${CNN}|--target|cpu: llvm% compat: c|--assign|${TD}/unknown_subtarget.json"
  -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=unknown_subtarget.json: unknown sub-target 'gpu' (for 'conv1')|has 'cpu', 'compat'"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_assign_wrong_value COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|cpu: llvm% conv: dnnl|--assign|${TD}/wrong_value.json"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=wrong_value.json: the value of \"conv1\" must be a sub-target name"
  -P ${TARGET_CHECK})
add_test(NAME cli_target_json_bad_attribute COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CNN}|--target|${TD}/bad_target.json"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=bad_target.json: composite target JSON: sub-target 'cpu': |-bogus"
  -P ${TARGET_CHECK})

# The acceptance scenario from the command line, on an imported ONNX model
# (tests/app/data/conv_classifier.onnx, written by gen_conv_classifier.py):
# its convolutions on dnnl and its classifier on a C part, by ONNX node name.
set(CONV_ONNX "${CMAKE_CURRENT_SOURCE_DIR}/data/conv_classifier.onnx")
file(WRITE "${TD}/onnx_assign.json" [=[{"Conv_0": "dnnl", "Conv_2": "dnnl", "Gemm_6": "compat"}]=])
add_test(NAME cli_target_onnx_assign_run COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${CONV_ONNX}|--target|cpu: llvm% dnnl: dnnl% compat: c|--assign|${TD}/onnx_assign.json|--repeat|1|--profile"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=output 0: float32 (1, 3)|dnnl_main_dnnl "
  -P ${TARGET_CHECK})
add_test(NAME cli_target_onnx_assign_emit COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${CONV_ONNX}|--target|cpu: llvm% dnnl: dnnl% compat: c|--assign|${TD}/onnx_assign.json|--emit|${TD}/emit_onnx"
  -DCLEAN_DIRS=${TD}/emit_onnx -DEXPECT_EXIT=0
  "-DEXPECT_TEXT=part dnnl: dnnl: 2 kernel(s)|part compat: c: "
  "-DFILE_TEXT=${TD}/emit_onnx/compat/module.c=int32_t matmul(|${TD}/emit_onnx/parts.json=dnnl.conv2d"
  -P ${TARGET_CHECK})
