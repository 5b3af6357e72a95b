# lowerscope-cli with composite targets (issue #7): --target strings and JSON
# files, --assign files and their errors, --emit of a cross (Cortex-M7) part,
# and `run` refusing it. Included from CMakeLists.txt. In ARGS of
# add_cli_check() a '%' stands for ';'.

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

add_cli_check(cli_target_emit_cortex_m7
  EXIT 0
  ARGS build "${CNN}" --target "${M7_TARGET}" --assign "${TD}/cnn_m7.json" --emit "${TD}/emit_m7"
  TEXT "part compat: c: " "part m7: llvm -mcpu=cortex-m7 -mtriple=thumbv7em-none-eabi: "
    ", compile-only"
  FILES "${TD}/emit_m7/parts.json" "${TD}/emit_m7/lowered.uir" "${TD}/emit_m7/m7/module.s"
  FILE_TEXT "${TD}/emit_m7/compat/module.c=int32_t"
    "${TD}/emit_m7/parts.json=\"compile_only\": true" "${TD}/emit_m7/m7/module.s=.cpu	cortex-m7"
  ELF_ARM "${TD}/emit_m7/m7/module.o"
  CLEAN "${TD}/emit_m7")
add_cli_check(cli_target_run_refuses_cross_part
  EXIT 1
  ARGS run "${CNN}" --target "${M7_TARGET}" --assign "${TD}/cnn_m7.json" --repeat 1
  TEXT "sub-target 'm7' (llvm -mcpu=cortex-m7 -mtriple=thumbv7em-none-eabi) is compile-only on this machine"
    "build --emit DIR")
add_cli_check(cli_target_run_assign_list_form
  EXIT 0
  ARGS run "${CNN}" --target "cpu: llvm% conv: dnnl% compat: c" --assign "${TD}/cnn_libs.json"
    --repeat 1 --profile
  TEXT "output 0: float32 (1, 10)" conv_main)
add_cli_check(cli_target_assign_dump_passes
  EXIT 0
  ARGS build "${CNN}" --target "${TD}/composite_target.json" --assign "${TD}/cnn_libs.json"
    --dump-passes "${TD}/dump"
  TEXT "for 'cpu: llvm" "conv: dnnl -num-cores=1" "compat: c'"
    "part conv: dnnl -num-cores=1: 2 kernel(s)"
  FILE_TEXT "${TD}/dump/index.json=\"PartitionByTarget\""
    "${TD}/dump/index.json=\"GraphToTIR(conv)\""
    "${TD}/dump/001_AnnotateTarget.txt=main/c2=conv"
  CLEAN "${TD}/dump")
# A plain target other than llvm is a plain build too: its files at the top.
add_cli_check(cli_target_plain_c_emit
  EXIT 0
  ARGS build "${CNN}" --target c --emit "${TD}/emit_c"
  TEXT "for 'c'"
  FILES "${TD}/emit_c/module.s" "${TD}/emit_c/module.o" "${TD}/emit_c/lowered.uir"
  FILE_TEXT "${TD}/emit_c/module.c=int32_t"
  CLEAN "${TD}/emit_c")
add_cli_check(cli_target_json_single
  EXIT 0
  ARGS build "${CNN}" --target "${TD}/single_target.json"
  TEXT "for 'llvm -opt-level=2'")

# Errors: each names the file and the cause.
add_cli_check(cli_target_assign_bad_json
  EXIT 1
  ARGS build "${CNN}" --target "cpu: llvm% conv: dnnl% compat: c" --assign "${TD}/bad_syntax.json"
  TEXT "bad_syntax.json: invalid JSON: parse error at line 2, column 14")
add_cli_check(cli_target_assign_missing_file
  EXIT 1
  ARGS build "${CNN}" --target "cpu: llvm% compat: c" --assign "${TD}/no_such_assign.json"
  TEXT "no_such_assign.json: no such file")
add_cli_check(cli_target_assign_unknown_names
  EXIT 1
  ARGS build "${CNN}" --target "cpu: llvm% conv: dnnl% compat: c" --assign
    "${TD}/unknown_names.json"
  TEXT "unknown_names.json: no binding or source-model node named 'conv9', 'nosuch' in the module")
add_cli_check(cli_target_assign_unknown_subtarget
  EXIT 1
  ARGS run "${CNN}" --target "cpu: llvm% compat: c" --assign "${TD}/unknown_subtarget.json"
  TEXT "unknown_subtarget.json: unknown sub-target 'gpu' (for 'conv1')" "has 'cpu', 'compat'")
add_cli_check(cli_target_assign_wrong_value
  EXIT 1
  ARGS build "${CNN}" --target "cpu: llvm% conv: dnnl" --assign "${TD}/wrong_value.json"
  TEXT "wrong_value.json: the value of \"conv1\" must be a sub-target name")
add_cli_check(cli_target_json_bad_attribute
  EXIT 1
  ARGS build "${CNN}" --target "${TD}/bad_target.json"
  TEXT "bad_target.json: composite target JSON: sub-target 'cpu': " -bogus)

# The acceptance scenario from the command line, on an imported ONNX model
# (tests/app/data/conv_classifier.onnx, written by gen_conv_classifier.py):
# its convolutions on dnnl and its classifier on a C part, by ONNX node name.
set(CONV_ONNX "${CMAKE_CURRENT_SOURCE_DIR}/data/conv_classifier.onnx")
file(WRITE "${TD}/onnx_assign.json" [=[{"Conv_0": "dnnl", "Conv_2": "dnnl", "Gemm_6": "compat"}]=])
add_cli_check(cli_target_onnx_assign_run
  EXIT 0
  ARGS run "${CONV_ONNX}" --target "cpu: llvm% dnnl: dnnl% compat: c" --assign
    "${TD}/onnx_assign.json" --repeat 1 --profile
  TEXT "output 0: float32 (1, 3)" "dnnl_main_dnnl ")
add_cli_check(cli_target_onnx_assign_emit
  EXIT 0
  ARGS build "${CONV_ONNX}" --target "cpu: llvm% dnnl: dnnl% compat: c" --assign
    "${TD}/onnx_assign.json" --emit "${TD}/emit_onnx"
  TEXT "part dnnl: dnnl: 2 kernel(s)" "part compat: c: "
  FILE_TEXT "${TD}/emit_onnx/compat/module.c=int32_t matmul("
    "${TD}/emit_onnx/parts.json=dnnl.conv2d"
  CLEAN "${TD}/emit_onnx")
