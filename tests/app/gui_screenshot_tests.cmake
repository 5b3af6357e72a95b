# lowerscope --screenshot with a model (included from tests/app/CMakeLists.txt,
# GUI builds only): the window after --open, after --build --pass, with a
# PrimFunc chosen by --function; each PNG is checked by png_check and the
# "wrote ..." line must name the step and function asked for. Bad --pass /
# --function / --build without --open exit 1 and say why.
set(GUI_SHOTS "${CMAKE_CURRENT_BINARY_DIR}/gui_shots")
file(MAKE_DIRECTORY "${GUI_SHOTS}")
set(SHOT_MLP "${PROJECT_SOURCE_DIR}/resources/examples/mlp.uir")
set(SHOT_CNN "${PROJECT_SOURCE_DIR}/resources/examples/cnn.uir")
set(SHOT_RESNET "${PROJECT_SOURCE_DIR}/docs/images/resnet_cnn.onnx")
set(CHECK_SCREENSHOT "${CMAKE_CURRENT_SOURCE_DIR}/check_screenshot.cmake")

add_test(NAME gui_screenshot_open COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_MLP}" -DOUT=${GUI_SHOTS}/open_mlp.png -DSIZE=1400x900
  "-DEXPECT_TEXT=mlp.uir at step 0 (Input)|graph of main: 7 nodes|IR text: whole module"
  -P ${CHECK_SCREENSHOT})
# cnn after FuseOps (as in cli_render_png_after_fuse; step numbers follow the
# default pipeline, so the tests name the pass): the fused groups
# are clusters, shown before/after.
# The 38-node residual CNN of docs/gui.md ("Reading a graph") at a late
# pass: its ONNX scopes are groups, its fused groups collapsed.
add_test(NAME gui_screenshot_scopes COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_RESNET}|--pass|FuseTIR" -DOUT=${GUI_SHOTS}/resnet_fusetir.png
  -DSIZE=1400x900
  "-DEXPECT_TEXT=resnet_cnn.onnx at step |(FuseTIR)|fused groups|scope groups|before/after"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_screenshot_build_pass COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_CNN}|--build|--pass|FuseOps" -DOUT=${GUI_SHOTS}/cnn_fuse.png
  -DSIZE=1400x900
  "-DEXPECT_TEXT=(FuseOps)|cnn.uir at step |graph of main|before/after"
  -P ${CHECK_SCREENSHOT})
# --pass alone implies --build; a PrimFunc made by LegalizeOps shows as text.
add_test(NAME gui_screenshot_pass_function COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_MLP}|--pass|LegalizeOps|--function|matmul" -DOUT=${GUI_SHOTS}/mlp_matmul.png
  -DSIZE=1280x800
  "-DEXPECT_TEXT=(LegalizeOps)|mlp.uir at step |graph of main|IR text: matmul"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_screenshot_unknown_pass COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--open|${SHOT_MLP}|--pass|NoSuchPass|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=pass 'NoSuchPass': no pass of that name ran|FuseOps"
  -P ${RUN_AND_CHECK})
add_test(NAME gui_screenshot_unknown_function COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--open|${SHOT_MLP}|--function|nope|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=function 'nope'|has no function of that name"
  -P ${RUN_AND_CHECK})
add_test(NAME gui_build_needs_open COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope> "-DARGS=--build|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=--build needs a model: give --open FILE"
  -P ${RUN_AND_CHECK})
set_tests_properties(gui_screenshot_open gui_screenshot_build_pass gui_screenshot_pass_function
  gui_screenshot_unknown_pass gui_screenshot_unknown_function gui_build_needs_open
  gui_screenshot_scopes PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" LABELS gui TIMEOUT 120)

if(XVFB_RUN)
  add_test(NAME gui_screenshot_build_pass_xvfb COMMAND ${CMAKE_COMMAND}
    -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
    "-DLAUNCHER=${XVFB_RUN}|-a|-s|-screen 0 1600x1200x24"
    "-DARGS=--open|${SHOT_CNN}|--pass|FuseOps" -DOUT=${GUI_SHOTS}/cnn_fuse_xvfb.png
    -DSIZE=1280x800 "-DEXPECT_TEXT=(FuseOps)|cnn.uir at step |before/after"
    -P ${CHECK_SCREENSHOT})
  add_test(NAME gui_screenshot_scopes_xvfb COMMAND ${CMAKE_COMMAND}
    -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
    "-DLAUNCHER=${XVFB_RUN}|-a|-s|-screen 0 1600x1200x24"
    "-DARGS=--open|${SHOT_RESNET}|--pass|FuseTIR" -DOUT=${GUI_SHOTS}/resnet_fusetir_xvfb.png
    -DSIZE=1400x900 "-DEXPECT_TEXT=(FuseTIR)|scope groups|before/after"
    -P ${CHECK_SCREENSHOT})
  set_tests_properties(gui_screenshot_build_pass_xvfb gui_screenshot_scopes_xvfb PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=xcb"
    ENVIRONMENT_MODIFICATION "WAYLAND_DISPLAY=unset:"
    LABELS gui TIMEOUT 120)
endif()

# Targets (docs/gui.md, "Targets and drag-to-target"): cnn with its Gemm on
# the c sub-target, built, the Code dock showing the C of the compat part.
# --target is given twice: a ';' cannot pass through these '|' lists.
add_test(NAME gui_screenshot_targets COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_CNN}|--target|fast: llvm|--target|compat: c|--assign|fc=compat|--build|--code|compat"
  -DOUT=${GUI_SHOTS}/cnn_targets.png -DSIZE=1400x900
  "-DEXPECT_TEXT=cnn.uir at step |graph of main|1 assignment(s)"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_targets_bad_assign COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--open|${SHOT_CNN}|--target|fast: llvm|--target|compat: c|--assign|nosuchnode=compat|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=--assign|nosuchnode"
  -P ${RUN_AND_CHECK})
add_test(NAME gui_targets_bad_target COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--open|${SHOT_CNN}|--target|fast: nosuchkind|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=invalid --target|nosuchkind"
  -P ${RUN_AND_CHECK})
set_tests_properties(gui_screenshot_targets gui_targets_bad_assign gui_targets_bad_target
  PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" LABELS gui TIMEOUT 180)

# The Tuning panel (docs/gui.md, "Tuning"): a short `lowerscope-cli tune` of a
# two-task model fills a database, and `--tuning-db` renders the run view
# alone; the "wrote" line must name the run, its tasks and records. A bad
# database path exits 1 naming it.
set(TUNING_SHOT_DIR "${GUI_SHOTS}/tuning")
add_cli_check(gui_tuning_db_setup EXIT 0
  CLEAN "${TUNING_SHOT_DIR}"
  ARGS tune "${PROJECT_SOURCE_DIR}/tests/views/data/two_layers.uir" --db "${TUNING_SHOT_DIR}/t.db"
       --trials 16 --batch 4 --threads 1 --timeout 20 --quiet
  TEXT "run 1 finished: 16 trials recorded")
set_tests_properties(gui_tuning_db_setup PROPERTIES FIXTURES_SETUP tuning_shot_db LABELS gui
  TIMEOUT 300)
add_test(NAME gui_screenshot_tuning COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--tuning-db|${TUNING_SHOT_DIR}/t.db|--tuning-run|1" -DOUT=${GUI_SHOTS}/tuning_run.png
  -DSIZE=1280x800
  "-DEXPECT_TEXT=tuning run 1 of t.db (finished): 2 tasks, 16 records; runs in the history: 1"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_tuning_db_missing COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--tuning-db|${GUI_SHOTS}/no_such_tuning.db|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=no_such_tuning.db: no such tuning database"
  -P ${RUN_AND_CHECK})
set_tests_properties(gui_screenshot_tuning gui_tuning_db_missing PROPERTIES
  ENVIRONMENT "QT_QPA_PLATFORM=offscreen" LABELS gui TIMEOUT 120)
set_tests_properties(gui_screenshot_tuning PROPERTIES FIXTURES_REQUIRED tuning_shot_db)
if(XVFB_RUN)
  add_test(NAME gui_screenshot_tuning_xvfb COMMAND ${CMAKE_COMMAND}
    -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
    "-DLAUNCHER=${XVFB_RUN}|-a|-s|-screen 0 1600x1200x24"
    "-DARGS=--tuning-db|${TUNING_SHOT_DIR}/t.db" -DOUT=${GUI_SHOTS}/tuning_run_xvfb.png
    -DSIZE=1280x800 "-DEXPECT_TEXT=tuning run 1 of t.db (finished): 2 tasks, 16 records"
    -P ${CHECK_SCREENSHOT})
  set_tests_properties(gui_screenshot_tuning_xvfb PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=xcb"
    ENVIRONMENT_MODIFICATION "WAYLAND_DISPLAY=unset:"
    FIXTURES_REQUIRED tuning_shot_db
    LABELS gui TIMEOUT 120)
endif()

# Tuning (docs/gui.md, "Tuning records, heat overlay and Apply best"): a short
# real tuning run of cnn fills a database (fixture), then the records browser
# with one record opened beside the default schedule, the heat overlay on the
# graph after FuseTIR, and Apply best; a file that is not a tuning database
# exits 1 with its name and the cause.
set(TUNE_SHOT_DB "${GUI_SHOTS}/tuning_records/cnn.db")
add_test(NAME gui_tuning_db_fixture COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope-cli> "-DCLEAN_DIRS=${GUI_SHOTS}/tuning_records"
  "-DARGS=tune|${SHOT_CNN}|--db|${TUNE_SHOT_DB}|--trials|12|--timeout|20|--quiet"
  -DEXPECT_EXIT=0 "-DEXPECT_TEXT=run 1 finished: 12 trials recorded"
  -P ${RUN_AND_CHECK})
set_tests_properties(gui_tuning_db_fixture PROPERTIES FIXTURES_SETUP gui_tuning_db
  LABELS gui TIMEOUT 300)

add_test(NAME gui_screenshot_records COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_CNN}|--build|--tuning-db|${TUNE_SHOT_DB}|--record|1"
  -DOUT=${GUI_SHOTS}/tuning_records.png -DSIZE=1400x900
  "-DEXPECT_TEXT=tuning database cnn.db: 12 records|12 shown"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_screenshot_heat COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_CNN}|--tuning-db|${TUNE_SHOT_DB}|--heat|--pass|FuseTIR"
  -DOUT=${GUI_SHOTS}/heat_overlay.png -DSIZE=1400x900
  "-DEXPECT_TEXT=(FuseTIR)|heat overlay: |kernels tuned"
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_screenshot_apply_best COMMAND ${CMAKE_COMMAND}
  -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
  "-DARGS=--open|${SHOT_CNN}|--tuning-db|${TUNE_SHOT_DB}|--apply-best"
  -DOUT=${GUI_SHOTS}/apply_best.png -DSIZE=1400x900
  "-DEXPECT_TEXT=model latency before |, after "
  -P ${CHECK_SCREENSHOT})
add_test(NAME gui_tuning_db_not_a_database COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope>
  "-DARGS=--tuning-db|${SHOT_CNN}|--records|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=cannot read the tuning database|cnn.uir"
  -P ${RUN_AND_CHECK})
add_test(NAME gui_records_need_tuning_db COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:lowerscope> "-DARGS=--records|--screenshot|${GUI_SHOTS}/never.png"
  -DEXPECT_EXIT=1 "-DEXPECT_TEXT=--records needs a tuning database: give --tuning-db FILE"
  -P ${RUN_AND_CHECK})
set_tests_properties(gui_screenshot_records gui_screenshot_heat gui_screenshot_apply_best
  PROPERTIES FIXTURES_REQUIRED gui_tuning_db)
set_tests_properties(gui_screenshot_records gui_screenshot_heat gui_screenshot_apply_best
  gui_tuning_db_not_a_database gui_records_need_tuning_db
  PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" LABELS gui TIMEOUT 180)

if(XVFB_RUN)
  foreach(shot records heat)
    if(shot STREQUAL "records")
      set(args "--open|${SHOT_CNN}|--build|--tuning-db|${TUNE_SHOT_DB}|--record|1")
      set(expect "tuning database cnn.db: 12 records")
    else()
      set(args "--open|${SHOT_CNN}|--tuning-db|${TUNE_SHOT_DB}|--heat|--pass|FuseTIR")
      set(expect "heat overlay: ")
    endif()
    add_test(NAME gui_screenshot_${shot}_xvfb COMMAND ${CMAKE_COMMAND}
      -DLOWERSCOPE=$<TARGET_FILE:lowerscope> -DPNG_CHECK=$<TARGET_FILE:png_check>
      "-DLAUNCHER=${XVFB_RUN}|-a|-s|-screen 0 1600x1200x24"
      "-DARGS=${args}" -DOUT=${GUI_SHOTS}/${shot}_xvfb.png -DSIZE=1400x900
      "-DEXPECT_TEXT=${expect}" -P ${CHECK_SCREENSHOT})
    set_tests_properties(gui_screenshot_${shot}_xvfb PROPERTIES
      FIXTURES_REQUIRED gui_tuning_db
      ENVIRONMENT "QT_QPA_PLATFORM=xcb"
      ENVIRONMENT_MODIFICATION "WAYLAND_DISPLAY=unset:"
      LABELS gui TIMEOUT 180)
  endforeach()
endif()
