#pragma once
// TVM MetaSchedule's JSON database files, in both directions, so that tuning
// results can move between lowerscope and TVM for the schedule instructions
// the two share.
//
// MetaSchedule keeps two JSON-lines files in a directory:
//   database_workload.json       one line per workload: [hash, payload]
//       (TVM: the structural hash as a decimal string and
//        base64(tvm.ir.save_json(IRModule)));
//   database_tuning_record.json  one line per record:
//       [workload_index, [trace, run_secs, target, args_info]]
//       workload_index: the workload's line (0-based);
//       trace: [[inst, ...], [[inst_index, decision], ...]] with
//              inst = [kind, inputs, attrs, outputs]; inputs name random
//              variables ("b0" blocks, "l1" loops, "v2" sampled integers,
//              numbered by one counter in order of definition), "None", or
//              integer constants;
//       run_secs: measured seconds (TVM writes [1e10] for a failed candidate);
//       target: TVM's exported target dict {"kind": "llvm", "keys": [...], ...};
//       args_info: [["TENSOR", dtype, shape], ...] of the function's arguments.
//
// Export. Our trace names loops by (block, index) at the time of each step;
// MetaSchedule names them by variables. Each instruction is therefore written
// after a preamble that fetches what it uses: GetBlock(name, "main") the
// first time a block is used (again after it was inlined away) and
// GetLoops(block) for the blocks whose loops the step names, whose output
// count must be the block's loop count at that moment, so export replays the
// trace step by step on the workload's function. Instructions with no
// MetaSchedule counterpart (split_tail, which TVM does with predicates) refuse
// the record with a message naming the instruction; the other records are
// still written. Only `ok` records are exported: a failure's error text has
// no place in the format, and TVM's own failures ([1e10]) carry none either.
//
// Workload payloads. TVM's payload is a serialized TVM IRModule, which we
// cannot parse, and TVM cannot use our tensor functions. Export writes our
// hash and, as payload, base64 of {"format": "lowerscope-workload",
// "version": 1, "text": <workload text>, "flops": <flops>}. Import accepts
// these; a foreign (TVM) workload is not added to the database, and its
// records are skipped and counted (ImportReport::foreignRecords): without
// the function we can neither replay nor verify their traces.
//
// Import replays each record's trace on the workload's function through the
// Schedule primitives, so the stored trace is ours and known to apply.
// Sampling instructions (SamplePerfectTile, SampleCategorical) bind their
// recorded decisions as constants; Annotate / Unannotate (hints for TVM's
// postprocessors and pragmas our codegen does not have) and EnterPostproc are
// dropped and counted. Any other instruction we do not have refuses that
// record with a message naming it. run_secs of 1e9 or more is TVM's failure
// marker: such a record becomes a run_error record. Records already present
// (same workload, target, trace and times) are skipped, so importing twice
// adds nothing. The whole import is one transaction.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/tir.h"
#include "engine/schedule/trace.h"
#include "tuner/database.h"

namespace unity::tuner::metaschedule {

inline constexpr const char* kWorkloadFile = "database_workload.json";
inline constexpr const char* kRecordFile = "database_tuning_record.json";

/// The tensor function of a workload's text (the printed module holding it:
/// its only PrimFunc, or the one named "main"). Throws unity::Error.
ir::PrimFuncRef workloadFunction(const std::string& text);

/// Our trace as a MetaSchedule trace [insts, decisions], replayed on func to
/// count loops. Throws unity::Error naming the instruction (index and kind)
/// that has no MetaSchedule counterpart or does not apply.
nlohmann::json traceToMetaSchedule(const schedule::Trace& trace, const ir::PrimFuncRef& func);

struct TraceImport {
  schedule::Trace trace;
  int droppedAnnotations = 0;
};
/// A MetaSchedule trace replayed on func; throws unity::Error naming the
/// instruction that is malformed, unknown to us, or does not apply.
TraceImport traceFromMetaSchedule(const nlohmann::json& trace, const ir::PrimFuncRef& func);

/// Our target string as TVM's target dict, and back (attributes our target
/// kind does not know, "tag" and "keys" are dropped). Throw unity::Error.
nlohmann::ordered_json targetToMetaSchedule(const std::string& targetText);
std::string targetFromMetaSchedule(const nlohmann::json& target);

struct ExportOptions {
  std::string workloadHash; // empty: every workload
  std::string target;       // empty: every target
};

struct ExportReport {
  int64_t workloads = 0;
  int64_t records = 0;
  /// One line per record that could not be written, e.g.
  /// "record 12: schedule trace: instruction 3 (split_tail) has no MetaSchedule counterpart".
  std::vector<std::string> refused;
};

/// Writes the two files into dir (created when absent; existing files are
/// replaced). Throws unity::Error naming the file when it cannot be written.
ExportReport exportDatabase(const Database& db, const std::string& dir,
                            const ExportOptions& options = {});

struct ImportReport {
  int64_t workloads = 0;          // our workloads read (new or already present)
  int64_t records = 0;            // records added
  int64_t duplicates = 0;         // records already in the database
  int64_t foreignWorkloads = 0;   // TVM workloads we cannot rebuild
  int64_t foreignRecords = 0;     // their records, skipped
  int64_t failedRecords = 0;      // of `records`: TVM's failure marker, stored as run_error
  int64_t droppedAnnotations = 0; // Annotate / EnterPostproc instructions left out
  /// One line per record refused, e.g. "database_tuning_record.json:7:
  /// instruction 5 (ComputeAt) has no counterpart in lowerscope's schedule".
  std::vector<std::string> refused;
};

/// Reads the two files from dir into db in one transaction. A file that is
/// missing, not JSON lines, or not of MetaSchedule's shape throws
/// unity::Error naming the file and line, and nothing is written.
ImportReport importDatabase(Database& db, const std::string& dir);

} // namespace unity::tuner::metaschedule
