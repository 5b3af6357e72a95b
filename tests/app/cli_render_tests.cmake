# lowerscope-cli render (included from tests/app/CMakeLists.txt): the dataflow
# graph of an example as SVG, PNG and DOT, before and after a pass; bad
# arguments fail with exit code 1 and say why.
set(RENDER_OUT "${CMAKE_CURRENT_BINARY_DIR}/render")
file(MAKE_DIRECTORY "${RENDER_OUT}")
set(MLP "${PROJECT_SOURCE_DIR}/resources/examples/mlp.uir")
set(CNN "${PROJECT_SOURCE_DIR}/resources/examples/cnn.uir")

add_test(NAME cli_render_svg COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${MLP}|--format|svg|-o|${RENDER_OUT}/mlp.svg" -DEXPECT_EXIT=0
  "-DEXPECT_LINES=rendered main (" "-DEXPECT_TEXT=11 nodes, 10 edges"
  "-DEXPECT_FILES=${RENDER_OUT}/mlp.svg"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_render_png_after_fuse COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${CNN}|--pass|FuseOps|--format|png|-o|${RENDER_OUT}/cnn_fuse.png" -DEXPECT_EXIT=0
  "-DEXPECT_TEXT=after step" "-DEXPECT_FILES=${RENDER_OUT}/cnn_fuse.png"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_render_dot_expanded COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${MLP}|--pass|FuseOps|--expand|fused_matmul_add_relu|--format|dot|-o|${RENDER_OUT}/mlp_fuse.dot"
  -DEXPECT_EXIT=0 "-DEXPECT_FILES=${RENDER_OUT}/mlp_fuse.dot"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_render_unknown_pass COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${MLP}|--pass|NoSuchPass|--format|svg|-o|${RENDER_OUT}/never.svg" -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=pass 'NoSuchPass': no pass of that name ran|FuseOps"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_render_unknown_function COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${MLP}|--function|nope|--format|dot|-o|${RENDER_OUT}/never.dot" -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=graph of 'nope': the module has no function of that name"
  -P ${RUN_AND_CHECK})
add_test(NAME cli_render_bad_format COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli>
  "-DARGS=render|${MLP}|--format|gif|-o|${RENDER_OUT}/never.gif" -DEXPECT_EXIT=1
  "-DEXPECT_TEXT=--format"
  -P ${RUN_AND_CHECK})
