# lowerscope-cli build / run on every example (included from CMakeLists.txt).
set(EXAMPLES_DIR "${PROJECT_SOURCE_DIR}/resources/examples")
foreach(example mlp cnn transformer call_tir)
  add_test(NAME cli_run_${example} COMMAND ${CMAKE_COMMAND}
    -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
    "-DARGS=run|${EXAMPLES_DIR}/${example}.uir|--repeat|3|--profile"
    -DEXPECT_EXIT=0 "-DEXPECT_LINES=median |output 0: "
    -P ${RUN_AND_CHECK})
endforeach()
add_test(NAME cli_build_dump_and_emit COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${EXAMPLES_DIR}/mlp.uir|--dump-passes|${CMAKE_CURRENT_BINARY_DIR}/mlp_passes|--emit|${CMAKE_CURRENT_BINARY_DIR}/mlp_emit"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=built |kernels"
  "-DEXPECT_FILES=${CMAKE_CURRENT_BINARY_DIR}/mlp_passes/index.json|${CMAKE_CURRENT_BINARY_DIR}/mlp_passes/000_Input.txt|${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.o|${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.s|${CMAKE_CURRENT_BINARY_DIR}/mlp_emit/module.ll"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_build_unknown_pass COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=build|${EXAMPLES_DIR}/mlp.uir|--passes|Normalize,NoSuchPass"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=unknown pass 'NoSuchPass'"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_run_missing_file COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${CMAKE_CURRENT_BINARY_DIR}/no-such-model.uir"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=no-such-model.uir: no such file"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_run_bad_target COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=run|${EXAMPLES_DIR}/mlp.uir|--target|llvm -mcpuu=x"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=has no attribute -mcpuu"
  -P ${RUN_AND_CHECK})
