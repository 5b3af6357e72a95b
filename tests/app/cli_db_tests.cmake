# lowerscope-cli db ... on small databases written by make_tuning_db (its
# header lists the contents; the figures below follow from them by hand:
# 8192 flops in 2 us = 4.10 GFLOP/s). Included from tests/app/CMakeLists.txt.
add_executable(make_tuning_db make_tuning_db.cpp)
target_link_libraries(make_tuning_db PRIVATE unity_tuner SQLite::SQLite3)

set(DB_DIR "${CMAKE_CURRENT_BINARY_DIR}/db")
set(DB "${DB_DIR}/tune.db")
file(MAKE_DIRECTORY "${DB_DIR}")

# Fixtures: each database is written once before the checks that read it.
foreach(kind tune prune foreign newer truncated bad-trace bad-json)
  if(kind STREQUAL "tune" OR kind STREQUAL "prune")
    set(mode "")
  else()
    set(mode "--${kind}")
  endif()
  add_test(NAME cli_db_make_${kind}
    COMMAND make_tuning_db "${DB_DIR}/${kind}.db" ${mode})
  set_tests_properties(cli_db_make_${kind} PROPERTIES FIXTURES_SETUP db_${kind})
endforeach()

# db_check(NAME FIXTURE ...add_cli_check arguments...)
function(db_check name fixture)
  add_cli_check(${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${fixture}")
endfunction()

db_check(cli_db_list db_tune
  EXIT 0
  ARGS db list "${DB}"
  LINES "${DB}: schema v2, 2 workloads, 2 targets, 1 runs" "workload "
  TEXT "mm-16x32x8  8.19 K  llvm -mcpu=skylake-avx512 -num-cores=1   2       1   2.00 us     4.10"
       "mm-16x32x8  8.19 K  llvm -num-cores=2                        1       0  10.00 us     0.82"
       "mm-8x8x8    1.02 K  llvm -mcpu=skylake-avx512 -num-cores=1   1       0  1.000 ms     0.00")
db_check(cli_db_list_json db_tune
  EXIT 0
  ARGS db list "${DB}" --json
  TEXT "\"hash\": \"mm-8x8x8\"" "\"failed\": 1" "\"best_s\": 2e-06")
db_check(cli_db_runs db_tune
  EXIT 0
  ARGS db runs "${DB}"
  LINES "run  status  "
  TEXT "finished" "3/10" "{\"trials\":10}")
db_check(cli_db_best db_tune
  EXIT 0
  ARGS db best "${DB}" --workload mm-16x32x8 --target "llvm -mcpu=skylake-avx512 -num-cores=1" -k 1
  LINES "record  workload  "
  TEXT "     1  mm-16x32x8  llvm -mcpu=skylake-avx512 -num-cores=1  2.00 us     4.10    1      0  test-node")
db_check(cli_db_best_unknown_target db_tune
  EXIT 1
  ARGS db best "${DB}" --target "c"
  TEXT "tune.db: no target 'c'")
db_check(cli_db_show db_tune
  EXIT 0
  ARGS db show "${DB}" 1
  LINES "workload    mm-16x32x8 (8.19 KFLOP)" "status      ok" "mean        2.00 us (4.10 GFLOP/s)"
        "  split(C[0], [4, 4])" "  parallel(C[0])")
db_check(cli_db_show_failure db_tune
  EXIT 0
  ARGS db show "${DB}" 3
  LINES "status      crash" "error       signal: SIGSEGV in worker" "run         1, trial 2")
db_check(cli_db_show_json db_tune
  EXIT 0
  ARGS db show "${DB}" 3 --json
  TEXT "\"error_message\": \"SIGSEGV in worker\"" "\"status\": \"crash\"")
db_check(cli_db_show_missing_record db_tune
  EXIT 1
  ARGS db show "${DB}" 99
  TEXT "tune.db: no record 99")

# export -> import into a fresh file -> the same best record.
db_check(cli_db_export db_tune
  EXIT 0
  ARGS db export "${DB}" --format metaschedule "${DB_DIR}/ms"
  CLEAN "${DB_DIR}/ms"
  TEXT "exported 2 workloads and 4 records"
  # (no square brackets: CMake lists would not split at the ';' between them)
  FILE_TEXT "${DB_DIR}/ms/database_workload.json=\"mm-16x32x8\","
            "${DB_DIR}/ms/database_tuning_record.json=\"Split\","
            "${DB_DIR}/ms/database_tuning_record.json=\"l1\",4,4")
set_tests_properties(cli_db_export PROPERTIES FIXTURES_SETUP db_exported)
add_test(NAME cli_db_import_clean
  COMMAND ${CMAKE_COMMAND} -E rm -f "${DB_DIR}/imported.db" "${DB_DIR}/imported.db-wal"
    "${DB_DIR}/imported.db-shm")
set_tests_properties(cli_db_import_clean PROPERTIES FIXTURES_SETUP db_import_clean)
db_check(cli_db_import "db_exported;db_import_clean"
  EXIT 0
  ARGS db import "${DB_DIR}/imported.db" --format metaschedule "${DB_DIR}/ms"
  TEXT "imported 4 records (0 failed) of 2 workloads")
set_tests_properties(cli_db_import PROPERTIES FIXTURES_SETUP db_imported)
db_check(cli_db_imported_best db_imported
  EXIT 0
  ARGS db best "${DB_DIR}/imported.db" --workload mm-16x32x8 -k 1
  TEXT "mm-16x32x8  llvm -mcpu=skylake-avx512 -num-cores=1   2.00 us     4.10"
       "mm-16x32x8  llvm -num-cores=2                       10.00 us     0.82")
db_check(cli_db_export_unknown_format db_tune
  EXIT 1
  ARGS db export "${DB}" --format ansor "${DB_DIR}/ms-ansor"
  TEXT "unknown --format 'ansor' (supported: metaschedule)")
add_cli_check(cli_db_import_missing_dir
  EXIT 1
  ARGS db import "${DB_DIR}/never.db" --format metaschedule "${DB_DIR}/no-such-dir"
  CLEAN "${DB_DIR}/never.db"
  TEXT "no-such-dir/database_workload.json: cannot open")
# ... and it did not leave a new, empty database behind.
add_test(NAME cli_db_import_missing_dir_created_nothing
  COMMAND ${CMAKE_COMMAND} -E cat "${DB_DIR}/never.db")
set_tests_properties(cli_db_import_missing_dir_created_nothing PROPERTIES
  WILL_FAIL TRUE DEPENDS cli_db_import_missing_dir)

db_check(cli_db_prune db_prune
  EXIT 0
  ARGS db prune "${DB_DIR}/prune.db" --keep 1 --workload mm-16x32x8
  TEXT "pruned 1 ok records of 2 workload/target pairs")
set_tests_properties(cli_db_prune PROPERTIES FIXTURES_SETUP db_pruned)
db_check(cli_db_pruned_list db_pruned
  EXIT 0
  ARGS db list "${DB_DIR}/prune.db"
  TEXT "mm-16x32x8  8.19 K  llvm -mcpu=skylake-avx512 -num-cores=1   1       1")

# Files that are not (our) tuning databases: one message naming the file
# and the cause, exit code 1.
file(WRITE "${DB_DIR}/text.db" "this is not a database\n")
file(WRITE "${DB_DIR}/empty.db" "")
add_cli_check(cli_db_not_sqlite
  EXIT 1
  ARGS db list "${DB_DIR}/text.db"
  TEXT "text.db: not a tuning database (not a readable SQLite file")
add_cli_check(cli_db_empty_file
  EXIT 1
  ARGS db runs "${DB_DIR}/empty.db"
  TEXT "empty.db: empty file, not a tuning database")
add_cli_check(cli_db_missing_file
  EXIT 1
  ARGS db list "${DB_DIR}/missing.db"
  TEXT "missing.db: no such file")
db_check(cli_db_foreign db_foreign
  EXIT 1
  ARGS db list "${DB_DIR}/foreign.db"
  TEXT "foreign.db: not a tuning database (a SQLite database with other tables: photos)")
db_check(cli_db_newer db_newer
  EXIT 1
  ARGS db best "${DB_DIR}/newer.db"
  TEXT "newer.db: tuning database schema version 99 is newer than this program supports")
db_check(cli_db_truncated db_truncated
  EXIT 1
  ARGS db best "${DB_DIR}/truncated.db"
  TEXT "truncated.db: damaged or truncated database file (database disk image is malformed)")
db_check(cli_db_bad_json db_bad-json
  EXIT 1
  ARGS db best "${DB_DIR}/bad-json.db"
  TEXT "bad-json.db: malformed JSON in times of row 1")
db_check(cli_db_show_unreadable_trace db_bad-trace
  EXIT 0
  ARGS db show "${DB_DIR}/bad-trace.db" 1
  TEXT "(unreadable: schedule trace: expected an object with an \"instructions\" array)")
