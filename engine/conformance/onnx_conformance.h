#pragma once
// One case of the ONNX backend test suite (a folder holding model.onnx and
// test_data_set_N/{input,output}_K.pb): import, build, run every data set and
// compare with the reference outputs. The CLI's `onnx-test` runs each case
// in its own child process through this.
#include <string>

#include "engine/support/tensor.h"

namespace unity::conformance {

enum class CaseStatus { Pass, Fail, Unsupported, Error, Crash, Timeout };
const char* caseStatusName(CaseStatus s);

struct CaseResult {
  CaseStatus status = CaseStatus::Error;
  std::string detail; // fail: max abs error; unsupported/error: the reason
};

/// Tolerances: floats |got - want| <= atol + rtol * |want| (NaN matches NaN,
/// infinities must match exactly); integers and bools exactly.
struct Tolerance {
  double rtol = 1e-3, atol = 1e-4;
};

/// Compares one output. Returns an empty string when it matches, else what
/// differs; `maxAbsErr` receives the largest absolute difference seen.
std::string compareTensors(const Tensor& got, const Tensor& want, const Tolerance& tol,
                           double* maxAbsErr);

/// Runs the case in `dir` in this process, building for `target`.
CaseResult runConformanceCase(const std::string& dir, const std::string& target = "llvm",
                              const Tolerance& tol = {});

} // namespace unity::conformance
