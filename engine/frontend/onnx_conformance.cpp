// One ONNX backend-test case, run in-process (see onnx_conformance.h).
//
// Classification: the importer refusing the model, or legalization leaving
// an operator without a tensor implementation (or rejecting its attributes),
// is "unsupported" -- a known gap, not a bug. Any other failure while
// importing, building or running is "error". A run whose outputs differ
// beyond the tolerances is "fail", with the largest absolute error.
#include "engine/frontend/onnx_conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/support/error.h"
#include "engine/transform/legalize.h"
#include "engine/transform/normalize.h"

namespace unity::frontend {

namespace fs = std::filesystem;

const char* caseStatusName(CaseStatus s) {
  switch (s) {
  case CaseStatus::Pass:
    return "pass";
  case CaseStatus::Fail:
    return "fail";
  case CaseStatus::Unsupported:
    return "unsupported";
  case CaseStatus::Error:
    return "error";
  case CaseStatus::Crash:
    return "crash";
  case CaseStatus::Timeout:
    return "timeout";
  }
  return "?";
}

namespace {

/// IEEE half -> double (Tensor::getDouble does not read float16).
double halfToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(man + 1024, exp - 25);
  return sign ? -v : v;
}

double elementAt(const Tensor& t, int64_t i) {
  if (t.dtype().isFloat() && t.dtype().bits == 16)
    return halfToDouble(t.dataAs<uint16_t>()[i]);
  return t.getDouble(i);
}

} // namespace

std::string compareTensors(const Tensor& got, const Tensor& want, const Tolerance& tol,
                           double* maxAbsErr) {
  if (got.shape() != want.shape())
    return "shape " + Tensor::shapeStr(got.shape()) + ", expected " +
           Tensor::shapeStr(want.shape());
  if (!(got.dtype() == want.dtype()))
    return "dtype " + got.dtype().str() + ", expected " + want.dtype().str();
  bool isFloat = want.dtype().isFloat();
  int64_t bad = 0, firstBad = -1;
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g = elementAt(got, i), w = elementAt(want, i);
    bool ok;
    if (!isFloat) {
      ok = g == w;
    } else if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
    } else {
      ok = std::abs(g - w) <= tol.atol + tol.rtol * std::abs(w);
    }
    if (!std::isnan(g) && !std::isnan(w) && !std::isinf(g) && !std::isinf(w))
      worst = std::max(worst, std::abs(g - w));
    else if (!ok)
      worst = INFINITY;
    if (!ok && bad++ == 0)
      firstBad = i;
  }
  if (maxAbsErr)
    *maxAbsErr = std::max(*maxAbsErr, worst);
  if (!bad)
    return {};
  std::ostringstream os;
  os << bad << " of " << want.numel() << " elements differ (first at flat index " << firstBad
     << ": got " << elementAt(got, firstBad) << ", expected " << elementAt(want, firstBad) << ")";
  return os.str();
}

namespace {

std::vector<std::string> sortedPbs(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, std::string>> files;
  for (auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ".pb")
      files.push_back({std::atoi(n.c_str() + prefix.size()), e.path().string()});
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (auto& f : files)
    out.push_back(f.second);
  return out;
}

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

} // namespace

namespace {

CaseResult runCase(const std::string& dir, const std::string& target, const Tolerance& tol) {
  ir::IRModule m;
  try {
    m = importOnnx((fs::path(dir) / "model.onnx").string());
  } catch (const UnsupportedModelError& e) {
    std::string reason;
    for (auto& n : e.nodes())
      reason += (reason.empty() ? "" : "; ") + n.node + " (" + n.opType + "): " + n.reason;
    return {CaseStatus::Unsupported, "import: " + reason};
  } catch (const Error& e) {
    return {CaseStatus::Error, "import: " + oneLine(e.what())};
  }
  try {
    auto left = transform::unsupportedOps(transform::legalize(transform::normalize(m)));
    if (!left.empty()) {
      std::string ops;
      for (auto& o : left)
        ops += (ops.empty() ? "" : ", ") + o;
      return {CaseStatus::Unsupported, "lowering: no implementation for " + ops};
    }
  } catch (const Error& e) {
    return {CaseStatus::Unsupported, "lowering: " + oneLine(e.what())};
  }
  BuildResult r;
  try {
    BuildOptions o;
    o.target = target;
    o.record = false;
    r = build(m, o);
  } catch (const Error& e) {
    return {CaseStatus::Error, "build: " + oneLine(e.what())};
  }
  if (!r.executable)
    return {CaseStatus::Error, "build: target '" + target + "' is compile-only"};
  double maxErr = 0;
  int sets = 0;
  std::vector<fs::path> setDirs;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      setDirs.push_back(e.path());
  std::sort(setDirs.begin(), setDirs.end());
  for (auto& set : setDirs) {
    std::vector<Tensor> inputs, wants;
    try {
      for (auto& f : sortedPbs(set, "input_"))
        inputs.push_back(readTensorProto(f));
      for (auto& f : sortedPbs(set, "output_"))
        wants.push_back(readTensorProto(f));
    } catch (const Error& e) {
      return {CaseStatus::Error, "test data: " + oneLine(e.what())};
    }
    std::vector<Tensor> outs;
    try {
      outs = r.executable->runTensors(inputs);
    } catch (const Error& e) {
      return {CaseStatus::Error, "run " + set.filename().string() + ": " + oneLine(e.what())};
    }
    if (outs.size() != wants.size())
      return {CaseStatus::Fail, set.filename().string() + ": " + std::to_string(outs.size()) +
                                    " outputs, expected " + std::to_string(wants.size())};
    for (size_t k = 0; k < outs.size(); ++k) {
      std::string diff = compareTensors(outs[k], wants[k], tol, &maxErr);
      if (!diff.empty()) {
        std::ostringstream os;
        os << set.filename().string() << " output " << k << ": " << diff << "; max abs error "
           << maxErr;
        return {CaseStatus::Fail, os.str()};
      }
    }
    ++sets;
  }
  if (sets == 0)
    return {CaseStatus::Error, "no test_data_set_* folders"};
  std::ostringstream os;
  os << sets << " data set" << (sets == 1 ? "" : "s") << ", max abs error " << maxErr;
  return {CaseStatus::Pass, os.str()};
}

} // namespace

CaseResult runConformanceCase(const std::string& dir, const std::string& target,
                              const Tolerance& tol) {
  try {
    return runCase(dir, target, tol);
  } catch (const Error& e) {
    return {CaseStatus::Error, oneLine(e.what())};
  } catch (const std::exception& e) {
    return {CaseStatus::Error, std::string("internal error: ") + oneLine(e.what())};
  }
}

} // namespace unity::frontend
