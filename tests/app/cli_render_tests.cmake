# lowerscope-cli render (included from tests/app/CMakeLists.txt): the dataflow
# graph of an example as SVG, PNG and DOT, before and after a pass; bad
# arguments fail with exit code 1 and say why.
set(RENDER_OUT "${CMAKE_CURRENT_BINARY_DIR}/render")
file(MAKE_DIRECTORY "${RENDER_OUT}")
set(MLP "${PROJECT_SOURCE_DIR}/resources/examples/mlp.uir")
set(CNN "${PROJECT_SOURCE_DIR}/resources/examples/cnn.uir")

add_cli_check(cli_render_svg
  EXIT 0
  ARGS render "${MLP}" --format svg -o "${RENDER_OUT}/mlp.svg"
  LINES "rendered main ("
  TEXT "11 nodes, 10 edges"
  FILES "${RENDER_OUT}/mlp.svg")
add_cli_check(cli_render_png_after_fuse
  EXIT 0
  ARGS render "${CNN}" --pass FuseOps --format png -o "${RENDER_OUT}/cnn_fuse.png"
  TEXT "after step"
  FILES "${RENDER_OUT}/cnn_fuse.png")
add_cli_check(cli_render_dot_expanded
  EXIT 0
  ARGS render "${MLP}" --pass FuseOps --expand fused_matmul_add_relu --format dot -o
    "${RENDER_OUT}/mlp_fuse.dot"
  FILES "${RENDER_OUT}/mlp_fuse.dot")
add_cli_check(cli_render_unknown_pass
  EXIT 1
  ARGS render "${MLP}" --pass NoSuchPass --format svg -o "${RENDER_OUT}/never.svg"
  TEXT "pass 'NoSuchPass': no pass of that name ran" FuseOps)
add_cli_check(cli_render_unknown_function
  EXIT 1
  ARGS render "${MLP}" --function nope --format dot -o "${RENDER_OUT}/never.dot"
  TEXT "graph of 'nope': the module has no function of that name")
add_cli_check(cli_render_bad_format
  EXIT 1
  ARGS render "${MLP}" --format gif -o "${RENDER_OUT}/never.gif"
  TEXT --format)
