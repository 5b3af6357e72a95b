// One ONNX backend-test case, run in-process (see onnx_conformance.h).
//
// Classification: the importer refusing the model, or legalization leaving
// an operator without a tensor implementation (or rejecting its attributes),
// is "unsupported" -- a known gap, not a bug; so is a run that stops with an
// error saying a feature is "not supported". Any other failure while
// importing, building or running is "error". A run whose outputs differ
// beyond the tolerances is "fail", with the largest absolute error.
#include "engine/conformance/onnx_conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/runtime/compare.h"
#include "engine/support/error.h"
#include "engine/transform/legalize.h"
#include "engine/transform/normalize.h"

namespace unity::conformance {

namespace fs = std::filesystem;
using frontend::importOnnx;
using frontend::ImportOptions;
using frontend::readTensorProto;
using frontend::UnsupportedModelError;
using frontend::UnsupportedNode;

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

std::string compareTensors(const Tensor& got, const Tensor& want, const Tolerance& tol,
                           double* maxAbsErr) {
  runtime::TensorDifference d = runtime::compareTensors(got, want, {tol.rtol, tol.atol});
  if (!d.structural.empty())
    return d.structural;
  if (maxAbsErr)
    *maxAbsErr = std::max(*maxAbsErr, d.maxAbs);
  if (d.same())
    return {};
  std::ostringstream os;
  os << d.mismatches << " of " << d.elements << " elements differ (first at flat index "
     << d.firstMismatch << ": got " << runtime::elementAsDouble(got, d.firstMismatch)
     << ", expected " << runtime::elementAsDouble(want, d.firstMismatch) << ")";
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

bool sameTensor(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::equal(static_cast<const char*>(a.data()),
                    static_cast<const char*>(a.data()) + a.nbytes(),
                    static_cast<const char*>(b.data()));
}

struct Prepared {
  Prepared() = default;
  Prepared(std::shared_ptr<runtime::Executable> exe, std::optional<CaseResult> failure,
           std::vector<UnsupportedNode> refused = {})
      : exe(std::move(exe)), failure(std::move(failure)), refused(std::move(refused)) {}
  std::shared_ptr<runtime::Executable> exe;
  std::optional<CaseResult> failure;    // set when import/lowering/build failed
  std::vector<UnsupportedNode> refused; // the importer's refusals
};

/// Imports (with the given specialized inputs), checks lowering, builds.
Prepared prepare(const std::string& dir, const std::string& target,
                 const std::map<std::string, Tensor>& spec) {
  ir::IRModule m;
  try {
    ImportOptions io;
    io.inputValues = spec;
    m = importOnnx((fs::path(dir) / "model.onnx").string(), io);
  } catch (const UnsupportedModelError& e) {
    std::string reason;
    for (auto& n : e.nodes())
      reason += (reason.empty() ? "" : "; ") + n.node + " (" + n.opType + "): " + n.reason;
    return {nullptr, CaseResult{CaseStatus::Unsupported, "import: " + reason}, e.nodes()};
  } catch (const Error& e) {
    return {nullptr, CaseResult{CaseStatus::Error, "import: " + oneLine(e.what())}};
  }
  try {
    auto left = transform::unsupportedOps(transform::legalize(transform::normalize(m)));
    if (!left.empty()) {
      std::string ops;
      for (auto& o : left)
        ops += (ops.empty() ? "" : ", ") + o;
      return {nullptr,
              CaseResult{CaseStatus::Unsupported, "lowering: no implementation for " + ops}};
    }
  } catch (const Error& e) {
    return {nullptr, CaseResult{CaseStatus::Unsupported, "lowering: " + oneLine(e.what())}};
  }
  BuildResult r;
  try {
    BuildOptions o;
    o.target = target;
    o.record = false;
    r = build(m, o);
  } catch (const Error& e) {
    return {nullptr, CaseResult{CaseStatus::Error, "build: " + oneLine(e.what())}};
  }
  if (!r.executable)
    return {nullptr,
            CaseResult{CaseStatus::Error, "build: target '" + target + "' is compile-only"}};
  return {r.executable, std::nullopt};
}

/// A test-data value as the executor's run-time value: a sequence is a
/// tuple of any length, an empty optional no value.
runtime::Value runtimeValue(const frontend::ProtoValue& v) {
  using K = frontend::ProtoValue::Kind;
  if (v.kind == K::Tensor)
    return runtime::Value(v.tensor);
  if (v.kind == K::Optional)
    return v.items.empty() ? runtime::Value() : runtimeValue(v.items[0]);
  runtime::Value out;
  std::vector<runtime::Value> items;
  for (auto& i : v.items)
    items.push_back(runtimeValue(i));
  out.v = std::move(items);
  return out;
}

CaseResult runCase(const std::string& dir, const std::string& target, const Tolerance& tol) {
  std::vector<fs::path> setDirs;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      setDirs.push_back(e.path());
  std::sort(setDirs.begin(), setDirs.end());
  // Test data we cannot read (strings, bfloat16) is reported only once the
  // model imported and built: an unsupported model stays so. Sequence and
  // optional files are read as the model declares them (they carry no tag);
  // they are passed as run-time values, and an output's tensors are
  // compared in order (a sequence's elements; an empty optional has none).
  frontend::OnnxValueKinds kinds;
  try {
    kinds = frontend::onnxValueKinds((fs::path(dir) / "model.onnx").string());
  } catch (const Error&) {
    // an unreadable model: the import reports it
  }
  auto kindAt = [](const std::vector<frontend::ProtoValue::Kind>& ks, size_t k) {
    return k < ks.size() ? ks[k] : frontend::ProtoValue::Kind::Tensor;
  };
  std::vector<std::vector<Tensor>> setInputs, setWants;
  std::vector<std::vector<runtime::Value>> setValues; // the inputs as run-time values
  std::string dataError;
  for (auto& set : setDirs) {
    try {
      setInputs.emplace_back();
      setValues.emplace_back();
      size_t k = 0;
      for (auto& f : sortedPbs(set, "input_")) {
        auto kind = kindAt(kinds.inputs, k++);
        if (kind == frontend::ProtoValue::Kind::Tensor) {
          setInputs.back().push_back(readTensorProto(f));
          setValues.back().emplace_back(setInputs.back().back());
        } else {
          setInputs.back().emplace_back(); // never specialized
          setValues.back().push_back(runtimeValue(frontend::readValueProto(f, kind)));
        }
      }
      setWants.emplace_back();
      k = 0;
      for (auto& f : sortedPbs(set, "output_"))
        frontend::readValueProto(f, kindAt(kinds.outputs, k++)).flatten(setWants.back());
    } catch (const Error& e) {
      dataError = "test data: " + oneLine(e.what());
    } catch (const std::bad_alloc&) {
      dataError = "test data: " + set.filename().string() + " is not a readable TensorProto";
    }
    if (!dataError.empty()) {
      setInputs.clear();
      setWants.clear();
      break;
    }
  }

  // Input specialization: while the importer refuses only because an operand
  // that decides a shape is a graph input, fix that input to the value of
  // the first data set and import again (docs/onnx.md).
  std::map<std::string, Tensor> spec;
  std::map<std::string, int> specIndex; // name -> input_K index
  Prepared p;
  for (int round = 0;; ++round) {
    p = prepare(dir, target, spec);
    if (!p.failure || p.failure->status != CaseStatus::Unsupported || round >= 8 ||
        setInputs.empty())
      break;
    bool added = false;
    for (auto& n : p.refused) {
      int k = n.specializableIndex;
      if (k < 0 || spec.count(n.specializable) || k >= static_cast<int>(setInputs[0].size()))
        continue;
      spec[n.specializable] = setInputs[0][k];
      specIndex[n.specializable] = k;
      added = true;
    }
    if (!added)
      break;
  }
  std::string specNote;
  for (auto& [name, k] : specIndex)
    specNote += (specNote.empty() ? "specialized: " : ", ") + name;
  auto withNote = [&](CaseResult r) {
    if (!specNote.empty())
      r.detail = specNote + "; " + r.detail;
    return r;
  };
  if (p.failure)
    return withNote(*p.failure);
  if (!dataError.empty())
    return withNote({CaseStatus::Error, dataError});

  double maxErr = 0;
  int sets = 0;
  for (size_t si = 0; si < setDirs.size(); ++si) {
    std::string setName = setDirs[si].filename().string();
    std::vector<Tensor> inputs;
    std::vector<runtime::Value> values;
    if (!spec.empty()) {
      // A data set with other values for the specialized inputs needs its
      // own specialized build.
      std::map<std::string, Tensor> mine;
      bool differs = false;
      for (auto& [name, k] : specIndex) {
        if (k >= static_cast<int>(setInputs[si].size()))
          return withNote(
              {CaseStatus::Error, "test data: " + setName + " lacks input " + std::to_string(k)});
        mine[name] = setInputs[si][k];
        differs |= !sameTensor(mine[name], spec[name]);
      }
      if (differs) {
        spec = mine;
        p = prepare(dir, target, spec);
        if (p.failure)
          return withNote(*p.failure);
      }
      for (size_t k = 0; k < setInputs[si].size(); ++k) {
        bool isSpec = false;
        for (auto& [name, sk] : specIndex)
          isSpec |= sk == static_cast<int>(k);
        if (!isSpec) {
          inputs.push_back(setInputs[si][k]);
          values.push_back(setValues[si][k]);
        }
      }
    } else {
      inputs = setInputs[si];
      values = setValues[si];
    }
    auto& wants = setWants[si];
    std::vector<Tensor> outs;
    try {
      if (kinds.allTensors())
        outs = p.exe->runTensors(inputs);
      else
        p.exe->run(p.exe->entry(), values).flatten(outs);
    } catch (const Error& e) {
      // A run-time refusal of a feature (a Dropout in training mode whose
      // run-time ratio is not 0 would be random) is a known gap too.
      std::string what = oneLine(e.what());
      bool refused = what.find(" not supported") != std::string::npos;
      return withNote(
          {refused ? CaseStatus::Unsupported : CaseStatus::Error, "run " + setName + ": " + what});
    }
    if (outs.size() != wants.size())
      return withNote({CaseStatus::Fail, setName + ": " + std::to_string(outs.size()) +
                                             " outputs, expected " + std::to_string(wants.size())});
    for (size_t k = 0; k < outs.size(); ++k) {
      std::string diff = compareTensors(outs[k], wants[k], tol, &maxErr);
      if (!diff.empty()) {
        std::ostringstream os;
        os << setName << " output " << k << ": " << diff << "; max abs error " << maxErr;
        return withNote({CaseStatus::Fail, os.str()});
      }
    }
    ++sets;
  }
  if (sets == 0)
    return {CaseStatus::Error, "no test_data_set_* folders"};
  std::ostringstream os;
  os << sets << " data set" << (sets == 1 ? "" : "s") << ", max abs error " << maxErr;
  return withNote({CaseStatus::Pass, os.str()});
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

} // namespace unity::conformance
