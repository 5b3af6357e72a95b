// bench_targets: the same model built all-`llvm` and with its matmuls on an
// `openblas` sub-target (composite target, AssignTargets claims every
// matmul + bias + relu chain), side by side, with 1 and 2 threads.
//
//   all-llvm   target "llvm -num-cores=T" (default pipeline: generated,
//              untuned kernels with the default schedule)
//   openblas   target "cpu: llvm -num-cores=T; blas: openblas -num-cores=T"
//              (the matmul chains call cblas_sgemm with T threads, the rest
//              is generated code)
//
// Models: resources/examples/mlp.uir (784 -> 128 -> 10, symbolic batch) and
// a wider MLP written below (1024 -> 1024 -> 1024 -> 10, weights as inputs,
// the batch a static dimension), both run at batch 64. A time is end-to-end latency of one
// Executable::runTensors call: the best and the median of several runs after one warm-up run, wall
// clock (unity::measure). Each row also gives the largest relative difference between the two
// builds' outputs (they must agree).
// Usage: bench_targets [--quick] [--threads 1,2] [--batch 64]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/text/parser.h"

using namespace unity;
using namespace unity::ir;

namespace {

const char* kWideMlp = R"(
@R.function
def main(x: R.Tensor((BATCH, 1024), "float32"), w1: R.Tensor((1024, 1024), "float32"),
         b1: R.Tensor((1024,), "float32"), w2: R.Tensor((1024, 1024), "float32"),
         b2: R.Tensor((1024,), "float32"), w3: R.Tensor((1024, 10), "float32"),
         b3: R.Tensor((10,), "float32")) -> R.Tensor((BATCH, 10), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        m1 = R.matmul(x, w1)
        a1 = R.add(m1, b1)
        r1 = R.nn.relu(a1)
        m2 = R.matmul(r1, w2)
        a2 = R.add(m2, b2)
        r2 = R.nn.relu(a2)
        m3 = R.matmul(r2, w3)
        gv: R.Tensor((BATCH, 10), "float32") = R.add(m3, b3)
        R.output(gv)
    return gv
)";

std::string wideMlp(int64_t batch) {
  std::string s = kWideMlp;
  for (size_t at; (at = s.find("BATCH")) != std::string::npos;)
    s.replace(at, 5, std::to_string(batch));
  return s;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Tensor> inputsFor(const IRModule& m, int64_t batch) {
  auto* main = as<Function>(m->lookup("main"));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-0.1f, 0.1f);
  std::vector<Tensor> out;
  for (auto& p : main->params) {
    auto* t = as<TensorSInfo>(p->sinfo);
    std::vector<int64_t> shape;
    for (auto& dim : *t->shape)
      shape.push_back(asConstInt(dim).value_or(batch));
    Tensor x(t->dtype, shape);
    float* v = x.mutableDataAs<float>();
    for (int64_t i = 0; i < x.numel(); ++i)
      v[i] = d(rng);
    out.push_back(std::move(x));
  }
  return out;
}

struct Timing {
  double bestMs = 0, medianMs = 0;
};

Timing timeRuns(runtime::Executable& ex, const std::vector<Tensor>& in, int reps) {
  MeasureOptions o;
  o.warmup = 1;
  o.repeats = reps;
  SampleStats s = measure([&] { ex.runTensors(in); }, o).wallStats();
  return {s.min * 1e3, s.median * 1e3};
}

double maxRelDiff(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k)
    for (int64_t i = 0; i < a[k].numel(); ++i) {
      double w = b[k].getDouble(i);
      worst = std::max(worst, std::fabs(a[k].getDouble(i) - w) / (1.0 + std::fabs(w)));
    }
  return worst;
}

int blasKernels(const BuildResult& r) {
  for (auto& p : r.parts)
    if (p.name == "blas")
      return static_cast<int>(p.functions.size());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int64_t batch = 64;
  std::vector<int> threads = {1, 2};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads.clear();
      std::stringstream ss(argv[++i]);
      std::string t;
      while (std::getline(ss, t, ','))
        threads.push_back(std::stoi(t));
    } else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc) {
      batch = std::stoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_targets [--quick] [--threads 1,2] [--batch 64]\n");
      return 2;
    }
  }
  int reps = quick ? 5 : 30;
  try {
    std::vector<std::pair<std::string, IRModule>> models = {
        {"mlp", text::parseModule(
                    readFile(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/mlp.uir"),
                    "mlp.uir")},
        {"wide-mlp", text::parseModule(wideMlp(batch), "wide-mlp")},
    };
    std::printf("batch %lld, %d timed runs after one warm-up; latency in ms (best / median)\n\n",
                static_cast<long long>(batch), reps);
    std::printf("%-10s %7s %9s %9s   %9s %9s   %8s %5s %9s\n", "model", "threads", "llvm best",
                "median", "blas best", "median", "speed-up", "sgemm", "max diff");
    for (int t : threads) {
      for (auto& [name, m] : models) {
        BuildOptions llvmOpts;
        llvmOpts.target = "llvm -num-cores=" + std::to_string(t);
        llvmOpts.record = false;
        BuildResult llvm = build(m, llvmOpts);
        BuildOptions blasOpts;
        blasOpts.target = "cpu: llvm -num-cores=" + std::to_string(t) +
                          "; blas: openblas -num-cores=" + std::to_string(t);
        blasOpts.record = false;
        BuildResult blas = build(m, blasOpts);
        auto in = inputsFor(m, batch);
        double diff = maxRelDiff(blas.executable->runTensors(in), llvm.executable->runTensors(in));
        // Time the two alternately so drifting load on the shared machine
        // hits both.
        Timing a = timeRuns(*llvm.executable, in, reps);
        Timing b = timeRuns(*blas.executable, in, reps);
        Timing a2 = timeRuns(*llvm.executable, in, reps);
        Timing b2 = timeRuns(*blas.executable, in, reps);
        a = {std::min(a.bestMs, a2.bestMs), std::min(a.medianMs, a2.medianMs)};
        b = {std::min(b.bestMs, b2.bestMs), std::min(b.medianMs, b2.medianMs)};
        std::printf("%-10s %7d %9.3f %9.3f   %9.3f %9.3f   %7.2fx %5d %9.1e\n", name.c_str(), t,
                    a.bestMs, a.medianMs, b.bestMs, b.medianMs, a.bestMs / b.bestMs,
                    blasKernels(blas), diff);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_targets: %s\n", e.what());
    return 1;
  }
  return 0;
}
