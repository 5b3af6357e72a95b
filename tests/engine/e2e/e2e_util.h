#pragma once
// Helpers of the end-to-end tests: modules from text, seeded random inputs
// shaped by a function's parameters (shape variables bound by name), the
// compiled run through build(), and tensor comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/runtime/reference.h"
#include "engine/support/error.h"
#include "engine/support/tensor.h"
#include "engine/text/parser.h"
#include "engine/transform/normalize.h"

namespace e2e {

using namespace unity;

/// Value range of one random input (integers: rounded bounds).
struct Range {
  double lo = -2, hi = 2;
  bool nonzero = false; // integers: skip 0 (divisors)
};

inline std::string tensorType(const std::string& dims, const std::string& dtype = "float32") {
  return "R.Tensor((" + dims + "), \"" + dtype + "\")";
}

/// `def main(<params>): gv = <call>; return gv` in one dataflow block.
inline std::string oneOpModule(const std::string& params, const std::string& call) {
  return "@R.function\ndef main(" + params + "):\n    with R.dataflow():\n        gv = " + call +
         "\n        R.output(gv)\n    return gv\n";
}

/// Random tensors for the parameters of graph function `fn` of a normalized
/// module; each shape variable takes its value from `dims` by name.
inline std::vector<Tensor> randomInputs(const ir::IRModule& m,
                                        const std::map<std::string, int64_t>& dims,
                                        const std::vector<Range>& ranges, unsigned seed,
                                        const std::string& fn = "main") {
  auto* f = ir::as<ir::Function>(m->lookup(fn));
  if (!f)
    throw Error("no function " + fn);
  std::mt19937 rng(seed);
  std::vector<Tensor> out;
  for (size_t p = 0; p < f->params.size(); ++p) {
    auto* t = ir::as<ir::TensorSInfo>(f->params[p]->sinfo);
    if (!t || !t->shape)
      throw Error("parameter " + f->params[p]->name + " is not a tensor of known shape");
    std::vector<int64_t> shape;
    for (auto& d : *t->shape) {
      if (auto c = ir::asConstInt(d)) {
        shape.push_back(*c);
      } else if (auto* v = ir::as<ir::PrimVar>(d); v && dims.count(v->name)) {
        shape.push_back(dims.at(v->name));
      } else {
        throw Error("no size for a dimension of parameter " + f->params[p]->name);
      }
    }
    Range r = p < ranges.size() ? ranges[p] : Range{};
    Tensor x(t->dtype, shape);
    std::uniform_real_distribution<double> real(r.lo, r.hi);
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (t->dtype.isFloat()) {
        x.setDouble(i, real(rng));
      } else if (t->dtype.isBool()) {
        x.setDouble(i, rng() % 2);
      } else {
        std::uniform_int_distribution<int64_t> ints(static_cast<int64_t>(std::ceil(r.lo)),
                                                    static_cast<int64_t>(std::floor(r.hi)));
        int64_t v = ints(rng);
        while (r.nonzero && v == 0)
          v = ints(rng);
        x.setDouble(i, static_cast<double>(v));
      }
    }
    out.push_back(x);
  }
  return out;
}

/// Same dtype and shape; floats within atol + rtol * |want| (NaN matches
/// NaN), integers and bools exactly.
inline ::testing::AssertionResult tensorsClose(const Tensor& got, const Tensor& want,
                                               double rtol = 1e-4, double atol = 1e-5) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << got.dtype().str() << ", expected " << want.dtype().str();
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << Tensor::shapeStr(got.shape())
                                         << ", expected " << Tensor::shapeStr(want.shape());
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.getDouble(i), w = want.getDouble(i);
    bool ok = want.dtype().isFloat() ? (std::isnan(g) && std::isnan(w)) ||
                                           std::fabs(g - w) <= atol + rtol * std::fabs(w)
                                     : g == w;
    if (!ok && bad++ == 0)
      first = i;
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.numel() << " elements differ; first at flat index " << first
         << ": got " << got.getDouble(first) << ", expected " << want.getDouble(first);
}

inline ::testing::AssertionResult allClose(const std::vector<Tensor>& got,
                                           const std::vector<Tensor>& want, double rtol = 1e-4,
                                           double atol = 1e-5) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " outputs, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (auto r = tensorsClose(got[i], want[i], rtol, atol); !r)
      return ::testing::AssertionFailure() << "output " << i << ": " << r.message();
  return ::testing::AssertionSuccess();
}

inline Tensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  return Tensor::fromFloats(std::move(shape), values);
}

} // namespace e2e
