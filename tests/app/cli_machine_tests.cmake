# lowerscope-cli and the machine model (issue #13): the -mcpu of a target
# decides the vector width of the emitted code on any build machine
# (Haswell: AVX2, no zmm register; Zen 4 and Skylake-AVX512: AVX-512), and
# a Cortex-M7 gets Thumb code with no threads. Only `build` runs here: the
# code is inspected, never executed (an AVX2-only CI machine could not run
# the AVX-512 code; MachineCodegen.* in test_engine runs what the host
# supports). Included from CMakeLists.txt.

set(MD "${CMAKE_CURRENT_BINARY_DIR}/machine_data")
set(CNN "${PROJECT_SOURCE_DIR}/resources/examples/cnn.uir")

add_cli_check(cli_machine_haswell_has_no_zmm
  EXIT 0
  ARGS build "${CNN}" --target "llvm -mcpu=haswell" --emit "${MD}/haswell"
  TEXT "for 'llvm -mcpu=haswell'"
  FILE_TEXT "${MD}/haswell/module.s=%ymm"
  FILE_NO_TEXT "${MD}/haswell/module.s=%zmm"
  CLEAN "${MD}/haswell")
add_cli_check(cli_machine_znver4_has_zmm
  EXIT 0
  ARGS build "${CNN}" --target "llvm -mcpu=znver4" --emit "${MD}/znver4"
  FILE_TEXT "${MD}/znver4/module.s=%zmm"
  CLEAN "${MD}/znver4")
add_cli_check(cli_machine_skylake_avx512_has_zmm
  EXIT 0
  ARGS build "${CNN}" --target "llvm -mcpu=skylake-avx512" --emit "${MD}/skx"
  FILE_TEXT "${MD}/skx/module.s=%zmm"
  CLEAN "${MD}/skx")
# -mattr takes AVX-512 away again.
add_cli_check(cli_machine_mattr_removes_avx512
  EXIT 0
  ARGS build "${CNN}" --target "llvm -mcpu=znver4 -mattr=-avx512f" --emit "${MD}/noavx512"
  FILE_NO_TEXT "${MD}/noavx512/module.s=%zmm"
  CLEAN "${MD}/noavx512")
add_cli_check(cli_machine_cortex_m7_is_thumb
  EXIT 0
  ARGS build "${CNN}" --target "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7"
    --emit "${MD}/m7"
  TEXT "(compile-only target)"
  FILE_TEXT "${MD}/m7/module.s=.thumb_func" "${MD}/m7/module.s=.cpu	cortex-m7"
    "${MD}/m7/module.s=vfma.f32"
  ELF_ARM "${MD}/m7/module.o"
  CLEAN "${MD}/m7")
# The module's "target" attribute carries the sub-target to DefaultSchedule:
# no parallel or vectorized loops for the bare-metal Cortex-M7, so no call
# into the runtime's thread pool.
add_cli_check(cli_machine_cortex_m7_part_is_scalar_and_serial
  EXIT 0
  ARGS build "${CNN}" --target "m7: llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7"
    --emit "${MD}/m7_part"
  TEXT "part m7: "
  FILE_TEXT "${MD}/m7_part/m7/module.s=.thumb_func"
  FILE_NO_TEXT "${MD}/m7_part/m7/module.s=unity_parallel_for"
    "${MD}/m7_part/lowered.uir=T.parallel(" "${MD}/m7_part/lowered.uir=T.vectorized("
  CLEAN "${MD}/m7_part")
