# lowerscope-cli tune / build --db: a short tuning run on a 64 x 64 matmul +
# relu fills a database; a build with it applies the tuned kernel (its trace
# is in the pass dump); a finished run resumes to nothing left to do; bad
# database files and missing ones are refused by name.
set(TUNE_DIR "${CMAKE_CURRENT_BINARY_DIR}/tune")
set(TUNE_MODEL "${CMAKE_CURRENT_SOURCE_DIR}/data/matmul_relu64.uir")
add_cli_check(cli_tune_small EXIT 0
  CLEAN "${TUNE_DIR}"
  ARGS tune "${TUNE_MODEL}" --db "${TUNE_DIR}/t.db" --trials 8 --threads 1 --timeout 20
  TEXT "tuning run 1 on" "run 1 finished: 8 trials recorded" "fused_matmul_relu"
       "apply: lowerscope-cli build" "GFLOP/s")
add_cli_check(cli_build_with_tuning_db EXIT 0
  CLEAN "${TUNE_DIR}/passes"
  ARGS build "${TUNE_MODEL}" --target "llvm -num-cores=1" --db "${TUNE_DIR}/t.db"
       --dump-passes "${TUNE_DIR}/passes"
  FILE_TEXT "${TUNE_DIR}/passes/015_ApplyTuningDatabase.txt=tuning_trace"
            "${TUNE_DIR}/passes/index.json=ApplyTuningDatabase")
add_cli_check(cli_tune_resume_finished_run EXIT 0
  ARGS tune --resume 1 --db "${TUNE_DIR}/t.db"
  TEXT "resuming run 1" "run 1 finished: 8 trials recorded")
add_cli_check(cli_build_other_target_keeps_default EXIT 0
  CLEAN "${TUNE_DIR}/passes2"
  ARGS build "${TUNE_MODEL}" --target "llvm -num-cores=2" --db "${TUNE_DIR}/t.db"
       --dump-passes "${TUNE_DIR}/passes2"
  FILE_NO_TEXT "${TUNE_DIR}/passes2/015_ApplyTuningDatabase.txt=tuning_trace")
add_cli_check(cli_tune_not_a_database EXIT 1
  ARGS tune "${TUNE_MODEL}" --db "${TUNE_MODEL}" --trials 1
  TEXT "matmul_relu64.uir")
add_cli_check(cli_build_db_missing EXIT 1
  ARGS build "${TUNE_MODEL}" --db "${CMAKE_CURRENT_BINARY_DIR}/no_such.db"
  TEXT "no_such.db: no such tuning database")
add_cli_check(cli_tune_resume_unknown_run EXIT 1
  ARGS tune --resume 7 --db "${TUNE_DIR}/t.db"
  TEXT "no run 7 to resume")
add_cli_check(cli_tune_resume_missing_db EXIT 1
  ARGS tune --resume 1 --db "${CMAKE_CURRENT_BINARY_DIR}/no_such_tuning.db"
  TEXT "no_such_tuning.db: no such tuning database")

set_tests_properties(cli_tune_small PROPERTIES FIXTURES_SETUP tuned_db)
set_tests_properties(cli_build_with_tuning_db cli_tune_resume_finished_run
  cli_build_other_target_keeps_default cli_tune_resume_unknown_run
  PROPERTIES FIXTURES_REQUIRED tuned_db)

# A running `tune` killed with SIGKILL, then `tune --resume 1`: nothing
# committed is lost and the run ends with its planned trials.
add_test(NAME cli_tune_killed_and_resumed
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tune_kill_resume_test.sh $<TARGET_FILE:lowerscope-cli>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/matmul_relu128.uir ${CMAKE_CURRENT_BINARY_DIR}/tune_kill)
set_tests_properties(cli_tune_killed_and_resumed PROPERTIES TIMEOUT 600)

# Pause (SIGUSR1), continue (SIGUSR2), cancel (SIGTERM) and resume: what the
# workbench's Tuning panel sends (docs/cli.md, `tune`).
add_test(NAME cli_tune_signals_pause_cancel_resume
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tune_signals_test.sh $<TARGET_FILE:lowerscope-cli>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/matmul_relu64.uir ${CMAKE_CURRENT_BINARY_DIR}/tune_signals)
set_tests_properties(cli_tune_signals_pause_cancel_resume PROPERTIES TIMEOUT 600)

# --dim fixes an ONNX model's symbolic batch so its tasks can be timed (and
# the run stores it: --resume imports the model the same way).
set(TUNE_DYNAMIC "${PROJECT_SOURCE_DIR}/tests/onnx/models/classifier_flatten/model.onnx")
add_cli_check(cli_tune_dim_fixes_a_symbolic_batch EXIT 0
  CLEAN "${TUNE_DIR}_dim"
  ARGS tune "${TUNE_DYNAMIC}" --dim N=2 --db "${TUNE_DIR}_dim/t.db" --trials 4 --threads 1 --quiet
  TEXT "run 1 finished: 4 trials recorded" "whose default was measured")
add_cli_check(cli_tune_dim_needs_name_and_value EXIT 1
  ARGS tune "${TUNE_DYNAMIC}" --dim N --db "${TUNE_DIR}_dim_bad.db"
  TEXT "--dim expects NAME=VALUE, got 'N'")

# Without --dim, a symbolic batch is measured at --symbolic-size: the bundled
# example's two kernels are tuned with n = 32, and a build with the database
# applies the tuned schedule to the symbolic kernel (its trace in the dump).
set(TUNE_SYMBOLIC "${PROJECT_SOURCE_DIR}/resources/examples/mlp.uir")
add_cli_check(cli_tune_symbolic_batch_at_a_size EXIT 0
  CLEAN "${TUNE_DIR}_sym"
  ARGS tune "${TUNE_SYMBOLIC}" --symbolic-size 32 --db "${TUNE_DIR}_sym/t.db" --trials 4 --timeout 120
       --threads 1 --quiet
  TEXT "run 1 finished: 4 trials recorded" "fused_matmul_add_relu*"
       "with every free shape variable at 32" "2 of 2 tunable tasks whose default was measured")
add_cli_check(cli_build_symbolic_with_tuning_db EXIT 0
  CLEAN "${TUNE_DIR}_sym/passes"
  ARGS build "${TUNE_SYMBOLIC}" --target "llvm -num-cores=1" --db "${TUNE_DIR}_sym/t.db"
       --dump-passes "${TUNE_DIR}_sym/passes"
  FILE_TEXT "${TUNE_DIR}_sym/passes/015_ApplyTuningDatabase.txt=tuning_trace")
set_tests_properties(cli_tune_symbolic_batch_at_a_size PROPERTIES FIXTURES_SETUP symbolic_db)
set_tests_properties(cli_build_symbolic_with_tuning_db PROPERTIES FIXTURES_REQUIRED symbolic_db)
