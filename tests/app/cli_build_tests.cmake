# lowerscope-cli build / run on every example (included from CMakeLists.txt).
set(EXAMPLES_DIR "${PROJECT_SOURCE_DIR}/resources/examples")
foreach(example mlp cnn transformer call_tir)
  add_cli_check(cli_run_${example}
    EXIT 0
    ARGS run "${EXAMPLES_DIR}/${example}.uir" --repeat 3 --profile
    LINES "median " "output 0: ")
endforeach()
add_cli_check(cli_build_dump_and_emit
  EXIT 0
  ARGS build "${EXAMPLES_DIR}/mlp.uir" --dump-passes "${CMAKE_CURRENT_BINARY_DIR}/mlp_passes" --emit
    "${CMAKE_CURRENT_BINARY_DIR}/mlp_emit"
  TEXT "built " kernels
  FILES "${CMAKE_CURRENT_BINARY_DIR}/mlp_passes/index.json"
    "${CMAKE_CURRENT_BINARY_DIR}/mlp_passes/000_Input.txt"
    "${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.o" "${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.s"
    "${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.ll")
add_cli_check(cli_build_unknown_pass
  EXIT 1
  ARGS build "${EXAMPLES_DIR}/mlp.uir" --passes Normalize,NoSuchPass
  TEXT "unknown pass 'NoSuchPass'")
add_cli_check(cli_run_missing_file
  EXIT 1
  ARGS run "${CMAKE_CURRENT_BINARY_DIR}/no-such-model.uir"
  TEXT "no-such-model.uir: no such file")
add_cli_check(cli_run_bad_target
  EXIT 1
  ARGS run "${EXAMPLES_DIR}/mlp.uir" --target "llvm -mcpuu=x"
  TEXT "has no attribute -mcpuu")
# --policy: schedule policy knobs over the target's defaults; an unknown
# knob is an error naming it, before the model loads.
add_cli_check(cli_run_policy
  EXIT 0
  ARGS run "${EXAMPLES_DIR}/cnn.uir" --repeat 2 --policy "{\"packed_conv_min_channels\": 0}"
  LINES "median " "output 0: ")
add_cli_check(cli_build_policy_unknown_knob
  EXIT 1
  ARGS build "${EXAMPLES_DIR}/mlp.uir" --policy "{\"tile_rowz\": [2]}"
  TEXT "unknown knob" "tile_rowz")
