// bench_kernels: untuned unity kernels against their peers, side by side.
//
//   matmul n = 256, 512, 1024   ours (build + Executable, default pipeline
//                               passes incl. DefaultSchedule) | OpenBLAS
//                               cblas_sgemm | naive loop
//   conv2d ResNet / MobileNetV2 layers (3x3, strided, 1x1, depthwise)
//                               ours | oneDNN direct convolution | naive loop
//                               (3x3 stride 1 only)
//   examples (mlp, cnn, transformer .uir) end-to-end latency, with and
//                               without DefaultSchedule
//   epilogue                    conv2d / matmul + bias + relu in one kernel,
//                               the epilogue fused under the reduction's
//                               tile (DefaultSchedule rule 3) against its own
//                               nest (policy knob fuse_epilogues = false),
//                               measured alternately in the same run
//
// Each configuration runs with 1 thread and with 2 threads (unity: target
// -num-cores and the schedule's core count; OpenBLAS:
// openblas_set_num_threads; oneDNN (OpenMP runtime): omp_set_num_threads).
// The naive loops are single-threaded C++ built with -O3 -march=native.
// A time is the best of several runs after one warm-up run (unity::measure;
// 1 thread: CPU time of the calling thread; 2 threads: wall time); GFLOP/s
// counts 2 flops per multiply-add. "peak" is the fp32 FMA peak measured at
// the start of the same run with as many threads (unity::measureFp32FmaPeak:
// an FMA loop on the widest vectors the host has), and "ours/peak" our rate
// against it.
// Usage: bench_kernels [--quick] [--threads 1,2] [--only matmul|conv|examples|epilogue]
//                      [--mattr -prefer-256-bit]   (extra LLVM target features)
//                      [--db FILE.db]   apply the tuned schedules of a tuning database
//                      [--tune N] [--tune-seconds S] [--curves DIR]
// With --tune, every matmul and conv row is first tuned (at most N trials
// and S seconds, tuner::TuningRun, records in --db) and then measured with
// its best schedule beside the peer; --curves writes each row's tuning
// curve (best GFLOP/s against trials and seconds) as CSV, with the peer's
// rate of the same run, for bench/plot_curves. --rows a,b keeps the matmul
// and conv rows whose label ("matmul 1024x1024x1024", "conv 64x56->128
// k3/2") contains one of the strings.
//                      [--policy JSON]   (schedule policy knobs for unity's kernels,
//                                         e.g. '{"pack_reused_input": false}')
//                      [--conv-form auto|wide]   auto: each conv row in the form a model
//                                         build gives it (AlterConvLayout: weight packed
//                                         OIHW<b>o, shown as "[32o]"; WinogradConv:
//                                         F(4x4, 3x3), "[F4]", GFLOP/s of the direct
//                                         convolution's count); wide: never either
//                      [--conv-shapes 'C,HW,F,K,S[,G];...']   these conv layers instead of
//                                         the built-in rows (a model's layers: C input
//                                         channels, an HW x HW image, F filters K x K,
//                                         stride S, G groups, padding K / 2)
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/build.h"
#include "engine/runtime/kernel_call.h"
#include "engine/runtime/thread_pool.h"
#include "engine/support/cpu_peak.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/te/te.h"
#include "engine/te/topi.h"
#include "engine/te/workloads.h"
#include "engine/text/parser.h"
#include "engine/transform/alter_conv_layout.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "naive_kernels.h"
#include "tuner/apply_database.h"
#include "tuner/features.h"
#include "tuner/search.h"
#include "tuner/task.h"

using namespace unity;
using namespace unity::ir;

namespace {

extern "C" char* openblas_get_corename(void);

/// Measured fp32 FMA peak in GFLOP/s by thread count (filled in main).
std::map<int, double> gPeak;

/// With one thread every peer runs on the calling thread, so its CPU time
/// is the kernel's time even when other processes share the cores (the
/// build machine is shared); with more threads only wall time is meaningful.
bool gUseThreadCpuTime = false;
std::string gTargetExtra;                 // --mattr: appended to the target string
std::vector<std::string> gDisabledPasses; // --disable-passes: for before/after comparisons
std::string gDb;                          // --db: tuning database applied to every build
int gTuneTrials = 0;                      // --tune: trials per kernel before measuring it
double gTuneSeconds = 0;                  // --tune-seconds: time budget per kernel
std::string gCurves;                      // --curves: folder of tuning-curve CSVs
std::vector<std::string> gRows;           // --rows: only rows whose label has one of these
std::string gPolicy;                      // --policy: schedule policy knobs (JSON)
std::string gConvForm = "auto";           // --conv-form auto|wide

/// Best time of fn in seconds: one warm-up, then at least 3 runs and more
/// until ~budget seconds (at most 200).
double bestTime(const std::function<void()>& fn, double budget) {
  MeasureOptions o;
  o.warmup = 1;
  o.repeats = 3;
  o.minSeconds = budget;
  o.maxRepeats = 200;
  o.cpuClock = CpuClock::Thread;
  Measurement m = measure(fn, o);
  return gUseThreadCpuTime ? m.cpuStats().min : m.wallStats().min;
}

unity::Tensor randomTensor(std::vector<int64_t> shape, unsigned seed) {
  unity::Tensor t(DataType::Float32(), std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  float* p = t.mutableDataAs<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = d(rng);
  return t;
}

std::shared_ptr<runtime::Executable> buildOurs(const IRModule& m, int threads, bool schedule,
                                               bool fullPipeline,
                                               const std::string& policy = gPolicy) {
  BuildOptions opts;
  opts.target = "llvm -num-cores=" + std::to_string(threads) + gTargetExtra;
  if (!fullPipeline)
    opts.passes = {"Normalize",      "DefaultSchedule", "LowerBlocks", "Simplify",
                   "FlattenBuffers", "LowerIntrinsics", "UnrollLoops", "VectorizeLoops",
                   "MakePackedAPI",  "LowerToExecutor"};
  if (!gDb.empty()) {
    if (opts.passes.empty())
      opts.passes = tuner::pipelineWithDatabase("default");
    else
      opts.passes.insert(std::find(opts.passes.begin(), opts.passes.end(), "DefaultSchedule"),
                         "ApplyTuningDatabase");
    opts.config.set(tuner::kDatabaseConfigKey, gDb);
  }
  opts.disabledPasses = gDisabledPasses;
  if (!schedule)
    opts.disabledPasses.push_back("DefaultSchedule");
  opts.config.set("tir.num_cores", int64_t(threads));
  if (!policy.empty())
    opts.config.set("tir.schedule_policy", policy);
  opts.record = false;
  return build(m, opts).executable;
}

/// Times the single kernel of a one-call build as a model runs it: the
/// output written into a tensor allocated once (a model's executor gives
/// each kernel a planned slot). runTensors would also allocate and zero the
/// output per call, which for a small layer costs as long as the kernel
/// (32x28x28 -> 192 1x1: 134 GFLOP/s timed that way with two threads, 190
/// for the kernel) and does not scale with threads. `out` holds the result.
double kernelTime(runtime::Executable& exe, std::vector<unity::Tensor> ins, unity::Tensor& out,
                  double budget) {
  out = exe.runTensors(ins)[0];
  std::string name;
  for (auto& [fname, f] : exe.module()->functions)
    if (cast<PrimFunc>(f)) {
      if (!name.empty())
        throw Error("bench_kernels: the build has several kernels ('" + name + "', '" + fname +
                    "'); kernelTime times one");
      name = fname;
    }
  std::vector<runtime::KernelArg> args;
  for (auto& t : ins)
    args.emplace_back(t);
  args.emplace_back(out);
  return bestTime([&] { runtime::callKernel(*exe.kernels(), name, args); }, budget);
}

double maxRelDiff(const unity::Tensor& a, const float* b) {
  double worst = 0;
  const float* p = a.dataAs<float>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::fabs(double(p[i]) - b[i]) / (1.0 + std::fabs(double(b[i])));
    if (std::isnan(d))
      return d; // a NaN on either side must not read as "no error"
    worst = std::max(worst, d);
  }
  return worst;
}

void setThreads(int n) {
  gUseThreadCpuTime = n == 1;
  runtime::ThreadPool::setNumThreads(n);
  openblas_set_num_threads(n);
  omp_set_num_threads(n);
}

// ------------------------------------------------------------------ tuning

/// One tuning-curve point: after `trial` candidates and `seconds` of tuning,
/// the best rate found.
struct CurvePoint {
  int trial;
  double seconds, bestSeconds;
};

/// Tunes one kernel (the PrimFunc the row builds) with --tune/--tune-seconds,
/// recording in --db; returns its curve. Nothing when --tune is not given.
std::vector<CurvePoint> tuneKernel(const PrimFuncRef& f, int threads, const std::string& label) {
  std::vector<CurvePoint> curve;
  if (gTuneTrials <= 0)
    return curve;
  tuner::Task t;
  t.name = "kernel";
  t.functions = {"kernel"};
  t.workload = tuner::workloadOf(f);
  t.hash = tuner::workloadHash(f);
  t.target =
      target::Target::parse("llvm -num-cores=" + std::to_string(threads) + gTargetExtra).str();
  t.flops = tuner::estimateFlops(f);
  t.weight = 1;
  tuner::Database db(gDb);
  tuner::TuneOptions o;
  o.trials = gTuneTrials;
  o.timeBudgetSeconds = gTuneSeconds;
  tuner::LocalRunner runner;
  tuner::TuningRun run(db, {t}, o, runner, {{"bench", "bench_kernels"}});
  Stopwatch sw;
  run.run([&](const tuner::Progress& p) {
    const auto& st = (*p.tasks)[0];
    if (p.lastRecord != 0 && st.bestSeconds > 0)
      curve.push_back({p.trialsDone, p.elapsedSeconds, st.bestSeconds});
  });
  const auto& st = run.tasks()[0];
  double s = sw.wallSeconds();
  std::printf("# tuned %s (%d threads): %d trials (%d failed) in %.1f s = %.1f candidates/min; "
              "default %.1f, best %.1f GFLOP/s\n",
              label.c_str(), threads, st.trials, st.errors, s, 60.0 * st.trials / s,
              st.defaultSeconds > 0 ? t.flops / st.defaultSeconds * 1e-9 : 0,
              st.bestSeconds > 0 ? t.flops / st.bestSeconds * 1e-9 : 0);
  return curve;
}

/// Writes a curve as CSV (trial, seconds, best GFLOP/s, the peer's GFLOP/s).
void writeCurve(const std::string& name, const std::vector<CurvePoint>& curve, double flops,
                double peerGflops) {
  if (gCurves.empty() || curve.empty())
    return;
  std::error_code ec; // the folder is made when missing, as --db makes its file
  std::filesystem::create_directories(gCurves, ec);
  std::string path = gCurves + "/" + name + ".csv";
  FILE* out = std::fopen(path.c_str(), "w");
  if (!out)
    throw Error(path + ": cannot write the tuning curve: " + std::strerror(errno));
  std::fprintf(out, "trial,seconds,best_gflops,peer_gflops\n");
  for (auto& p : curve)
    std::fprintf(out, "%d,%.3f,%.2f,%.2f\n", p.trial, p.seconds, flops / p.bestSeconds * 1e-9,
                 peerGflops);
  std::fclose(out);
}

/// "matmul  1024 t1" -> "matmul_1024_t1": runs of other characters become one '_'.
std::string fileName(const std::string& s) {
  std::string out;
  for (char c : s)
    if (isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

// ------------------------------------------------------------------ matmul

/// m x k times k x n. The naive loop is square-only: other shapes print "-".
void benchMatmul(int64_t m, int64_t k, int64_t n, int threads, double budget) {
  auto fn = te::matmulPrimFunc(m, n, k);
  auto curve =
      tuneKernel(fn, threads,
                 "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
  auto exe = buildOurs(transform::moduleCallingPrimFunc(fn), threads, true, true);
  auto a = randomTensor({m, k}, 1), b = randomTensor({k, n}, 2);
  std::vector<float> c(m * n), ref(m * n);
  setThreads(threads);
  double flops = 2.0 * m * n * k;

  unity::Tensor out;
  double tOurs = kernelTime(*exe, {a, b}, out, budget);
  double tBlas = bestTime(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.dataAs<float>(), k,
                    b.dataAs<float>(), n, 0.0f, c.data(), n);
      },
      budget);
  bool square = m == n && k == n;
  double tNaive =
      square ? bestTime(
                   [&] { bench::naiveMatmul(a.dataAs<float>(), b.dataAs<float>(), ref.data(), n); },
                   budget)
             : 0;
  double err = maxRelDiff(out, c.data());
  char name[64], naive[32] = "       -";
  if (square)
    std::snprintf(name, sizeof name, "%5lld", (long long)n);
  else
    std::snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)m, (long long)k, (long long)n);
  if (square)
    std::snprintf(naive, sizeof naive, "%8.1f", flops / tNaive * 1e-9);
  writeCurve(fileName(std::string("matmul_") + name + "_t" + std::to_string(threads)), curve, flops,
             flops / tBlas * 1e-9);
  double peak = gPeak[threads];
  std::printf("matmul %-5s   %d   %8.1f  %8.1f  %s   %5.1f%%   %6.1f   %5.1f%%    %.1e\n", name,
              threads, flops / tOurs * 1e-9, flops / tBlas * 1e-9, naive, 100.0 * tBlas / tOurs,
              peak, 100.0 * flops / tOurs * 1e-9 / peak, err);
}

// ------------------------------------------------------------------ conv2d

struct ConvShape {
  // 1 x c x hw x hw input, f filters of k x k, stride, groups, padding
  // (pad < 0: k / 2 on every side, as the models' layers have).
  int64_t c, hw, f, k = 3, stride = 1, groups = 1, pad = -1;
  int64_t padding() const { return pad < 0 ? k / 2 : pad; }
  int64_t out() const { return (hw + 2 * padding() - k) / stride + 1; }
  bool resnet3x3() const { return k == 3 && stride == 1 && groups == 1 && padding() == 1; }
};

std::vector<ConvShape> gConvShapes; // --conv-shapes (empty: the built-in rows)

/// "C,HW,F,K,S[,G]" rows separated by ';' (--conv-shapes); nullopt when one
/// is malformed.
std::optional<std::vector<ConvShape>> parseConvShapes(const std::string& text) {
  std::vector<ConvShape> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    std::string row =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    long long v[6] = {0, 0, 0, 0, 0, 1};
    int n = 0, used = 0;
    n = std::sscanf(row.c_str(), "%lld,%lld,%lld,%lld,%lld%n,%lld%n", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &used, &v[5], &used);
    if (n < 5 || size_t(used) != row.size() || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[3] < 1 ||
        v[4] < 1 || v[5] < 1 || v[0] % v[5] || v[2] % v[5])
      return std::nullopt;
    out.push_back(ConvShape{v[0], v[1], v[2], v[3], v[4], v[5]});
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

/// "conv 64x56->128 k3/2" (" dw": depthwise): --rows matches it, --tune prints it.
std::string convLabel(const ConvShape& s) {
  return "conv " + std::to_string(s.c) + "x" + std::to_string(s.hw) + "->" + std::to_string(s.f) +
         " k" + std::to_string(s.k) + "/" + std::to_string(s.stride) + (s.groups > 1 ? " dw" : "") +
         (s.pad >= 0 ? " p" + std::to_string(s.pad) : "");
}

bool wantRow(const std::string& label) {
  if (gRows.empty())
    return true;
  for (auto& r : gRows)
    if (label.find(r) != std::string::npos)
      return true;
  return false;
}

double onednnConv(const ConvShape& s, const float* x, const float* w, float* y, double budget) {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream st(eng);
  int64_t o = s.out(), p = s.padding(), g = s.groups;
  memory::dims src{1, s.c, s.hw, s.hw}, dst{1, s.f, o, o};
  // Grouped weights are 5-D for oneDNN: groups x f/g x c/g x k x k.
  memory::dims wei =
      g == 1 ? memory::dims{s.f, s.c, s.k, s.k} : memory::dims{g, s.f / g, s.c / g, s.k, s.k};
  auto any = [](const memory::dims& d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, any(src),
                              any(wei), any(dst), {s.stride, s.stride}, {p, p}, {p, p});
  convolution_forward::primitive_desc pd(d, eng);
  memory xu({src, memory::data_type::f32, memory::format_tag::nchw}, eng, const_cast<float*>(x));
  memory wu(
      {wei, memory::data_type::f32, g == 1 ? memory::format_tag::oihw : memory::format_tag::goihw},
      eng, const_cast<float*>(w));
  memory yu({dst, memory::data_type::f32, memory::format_tag::nchw}, eng, y);
  // Inputs are converted to the primitive's preferred layouts once, outside
  // the timing (oneDNN's best case); the output conversion is timed.
  memory xp(pd.src_desc(), eng), wp(pd.weights_desc(), eng), yp(pd.dst_desc(), eng);
  reorder(xu, xp).execute(st, xu, xp);
  reorder(wu, wp).execute(st, wu, wp);
  convolution_forward conv(pd);
  reorder back(yp, yu);
  double t = bestTime(
      [&] {
        conv.execute(st, {{DNNL_ARG_SRC, xp}, {DNNL_ARG_WEIGHTS, wp}, {DNNL_ARG_DST, yp}});
        back.execute(st, yp, yu);
        st.wait();
      },
      budget);
  return t;
}

void benchConv(const ConvShape& s, int threads, double budget) {
  int64_t cg = s.c / s.groups, o = s.out();
  auto X = te::placeholder({intImm(1), intImm(s.c), intImm(s.hw), intImm(s.hw)},
                           DataType::Float32(), "X");
  auto W = te::placeholder({intImm(s.f), intImm(cg), intImm(s.k), intImm(s.k)}, DataType::Float32(),
                           "W");
  te::topi::Conv2dParams p;
  p.padding = {s.padding(), s.padding(), s.padding(), s.padding()};
  p.strides = {s.stride, s.stride};
  p.groups = s.groups;
  // The form a model build gives this layer (AlterConvLayout: its weight
  // packed with output channels innermost, at compile time) unless
  // --conv-form wide; the packed weight is made here, outside the timing,
  // as oneDNN's weights are reordered outside it.
  // Winograd's form (WinogradConv, F(m x m, 3 x 3)) where a model build
  // takes it: the weight transformed here, outside the timing; GFLOP/s
  // count the direct convolution's multiply-adds, so the column compares
  // times.
  int64_t blk = 0, wino = 0;
  if (gConvForm != "wide" && s.groups == 1) {
    auto policy = transform::schedulePolicyFor(
        target::Target::parse("llvm -num-cores=" + std::to_string(threads)));
    if (!gPolicy.empty())
      policy = policy.withJSON(gPolicy);
    wino = transform::winogradConvChoice(s.c, s.f, s.k, s.k, s.stride, s.stride, 1, 1, s.out(),
                                         s.out(), policy);
    if (!wino)
      blk =
          transform::alterConvLayoutChoice(s.c, s.f, s.k, s.k, s.stride, s.stride, s.out(), policy);
  }
  if (blk)
    W = te::placeholder({intImm(s.f / blk), intImm(cg), intImm(s.k), intImm(s.k), intImm(blk)},
                        DataType::Float32(), "W");
  te::Tensor T;
  if (wino) {
    W = te::placeholder({intImm((wino + 2) * (wino + 2)), intImm(cg), intImm(s.f)},
                        DataType::Float32(), "W");
    T = te::placeholder({intImm(2 * wino + 2), intImm(wino + 2)}, DataType::Float32(), "T");
  }
  auto Y = wino  ? te::topi::conv2dWinograd(X, W, T, p.padding, "conv")
           : blk ? te::topi::conv2dBlocked(X, W, p, "conv")
                 : te::topi::conv2d(X, W, p, "conv");
  auto fn = te::createPrimFunc(wino ? std::vector<te::Tensor>{X, W, T, Y}
                                    : std::vector<te::Tensor>{X, W, Y});
  auto curve = tuneKernel(fn, threads, convLabel(s));
  auto exe = buildOurs(transform::moduleCallingPrimFunc(fn), threads, true, true);
  auto x = randomTensor({1, s.c, s.hw, s.hw}, 3), w = randomTensor({s.f, cg, s.k, s.k}, 4);
  unity::Tensor wpk = blk    ? transform::packConvWeight(w, blk)
                      : wino ? transform::winogradWeight(w, wino)
                             : w;
  std::vector<unity::Tensor> args{x, wpk};
  if (wino)
    args.push_back(transform::winogradMatrices(wino));
  std::vector<float> y(s.f * o * o), ref(y.size());
  setThreads(threads);
  double flops = 2.0 * s.f * o * o * cg * s.k * s.k;
  unity::Tensor out;
  double tOurs = kernelTime(*exe, args, out, budget);
  double tDnnl = onednnConv(s, x.dataAs<float>(), w.dataAs<float>(), y.data(), budget);
  // The naive loop exists for the ResNet 3x3 stride-1 layers only.
  char naive[16] = "       -";
  if (s.resnet3x3()) {
    double tNaive = bestTime(
        [&] {
          bench::naiveConv3x3(x.dataAs<float>(), w.dataAs<float>(), ref.data(), s.c, s.hw, s.f);
        },
        budget);
    std::snprintf(naive, sizeof naive, "%8.1f", flops / tNaive * 1e-9);
  }
  double err = maxRelDiff(out, y.data());
  char name[64];
  std::snprintf(name, sizeof name, "1x%lldx%lldx%lld,%lld", (long long)s.c, (long long)s.hw,
                (long long)s.hw, (long long)s.f);
  std::string kind;
  if (!s.resnet3x3()) {
    kind = " " + std::to_string(s.k) + "x" + std::to_string(s.k);
    if (s.stride != 1)
      kind += "/" + std::to_string(s.stride);
    if (s.groups != 1)
      kind += s.groups == s.c ? " dw" : " g" + std::to_string(s.groups);
    if (s.pad >= 0)
      kind += " p" + std::to_string(s.pad);
  }
  if (blk)
    kind += " [" + std::to_string(blk) + "o]"; // packed weight, lanes along output channels
  if (wino)
    kind += " [F" + std::to_string(wino) + "]"; // Winograd F(m x m, 3 x 3)
  writeCurve(fileName("conv_" + std::string(name) + kind + "_t" + std::to_string(threads)), curve,
             flops, flops / tDnnl * 1e-9);
  double peak = gPeak[threads];
  std::printf("conv %-17s %d   %8.1f  %8.1f  %s   %5.1f%%   %6.1f   %5.1f%%    %.1e\n",
              (name + kind).c_str(), threads, flops / tOurs * 1e-9, flops / tDnnl * 1e-9, naive,
              100.0 * tDnnl / tOurs, peak, 100.0 * flops / tOurs * 1e-9 / peak, err);
}

// ------------------------------------------------------------------ examples

void benchExample(const std::string& dir, const std::string& name, int threads, double budget) {
  IRModule m = text::parseFile(dir + "/" + name + ".uir");
  auto* main = as<Function>(m->lookup("main"));
  std::vector<unity::Tensor> inputs;
  unsigned seed = 5;
  for (auto& v : main->params) {
    auto* t = as<TensorSInfo>(v->sinfo);
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(asConstInt(d).value_or(64)); // symbolic dims (batch, sequence): 64
    inputs.push_back(randomTensor(shape, seed++));
  }
  double ms[2];
  for (int sched = 0; sched < 2; ++sched) {
    auto exe = buildOurs(m, threads, sched == 1, true);
    setThreads(threads);
    ms[sched] = 1e3 * bestTime([&] { exe->runTensors(inputs); }, budget);
  }
  std::printf("%-12s %d   %10.3f  %10.3f   %6.1fx\n", name.c_str(), threads, ms[1], ms[0],
              ms[0] / ms[1]);
}

// ------------------------------------------------------------------ epilogue

/// One kernel computing relu(reduction + bias) (the shape FuseTIR gives a
/// conv/matmul + bias + relu group), built with the epilogue fused under
/// the reduction's tile and with it in its own nest, timed alternately
/// (three rounds, the best of each) so both see the same machine load.
void benchEpilogue(const std::string& name, const PrimFuncRef& f,
                   const std::vector<unity::Tensor>& inputs, double flops, int threads,
                   double budget) {
  auto m = transform::moduleCallingPrimFunc(f);
  std::string on = gPolicy.empty() ? "{}" : gPolicy;
  auto fused = buildOurs(m, threads, true, true, on);
  auto split = buildOurs(m, threads, true, true, R"({"fuse_epilogues": false})");
  setThreads(threads);
  auto a = fused->runTensors(inputs)[0], b = split->runTensors(inputs)[0];
  double err = maxRelDiff(a, b.dataAs<float>());
  double tf = 1e30, ts = 1e30;
  for (int round = 0; round < 3; ++round) {
    tf = std::min(tf, bestTime([&] { fused->runTensors(inputs); }, budget / 3));
    ts = std::min(ts, bestTime([&] { split->runTensors(inputs); }, budget / 3));
  }
  std::printf("%-26s %d   %8.3f  %8.3f   %6.3fx   %7.1f  %7.1f    %.1e\n", name.c_str(), threads,
              1e3 * tf, 1e3 * ts, ts / tf, flops / tf * 1e-9, flops / ts * 1e-9, err);
}

void benchConvEpilogue(const ConvShape& s, int threads, double budget) {
  auto X = te::placeholder({intImm(1), intImm(s.c), intImm(s.hw), intImm(s.hw)},
                           DataType::Float32(), "X");
  auto W = te::placeholder({intImm(s.f), intImm(s.c), intImm(s.k), intImm(s.k)},
                           DataType::Float32(), "W");
  auto B = te::placeholder({intImm(s.f)}, DataType::Float32(), "bias");
  te::topi::Conv2dParams p;
  p.padding = {s.padding(), s.padding(), s.padding(), s.padding()};
  p.strides = {s.stride, s.stride};
  auto Y = te::topi::conv2d(X, W, p, "conv");
  auto R = te::compute(
      Y.shape(),
      [&](const std::vector<PrimExpr>& i) {
        return max(Y({i[0], i[1], i[2], i[3]}) + B({i[1]}), floatImm(0.0));
      },
      "T_relu");
  int64_t o = s.out();
  char name[64];
  std::snprintf(name, sizeof name, "conv 1x%lldx%lldx%lld,%lld %lldx%lld%s", (long long)s.c,
                (long long)s.hw, (long long)s.hw, (long long)s.f, (long long)s.k, (long long)s.k,
                s.stride == 1 ? "" : "/2");
  benchEpilogue(name, te::createPrimFunc({X, W, B, R}),
                {randomTensor({1, s.c, s.hw, s.hw}, 3), randomTensor({s.f, s.c, s.k, s.k}, 4),
                 randomTensor({s.f}, 5)},
                2.0 * s.f * o * o * s.c * s.k * s.k, threads, budget);
}

void benchMatmulEpilogue(int64_t m, int64_t k, int64_t n, int threads, double budget) {
  auto A = te::placeholder({intImm(m), intImm(k)}, DataType::Float32(), "A");
  auto Bm = te::placeholder({intImm(k), intImm(n)}, DataType::Float32(), "B");
  auto Bias = te::placeholder({intImm(n)}, DataType::Float32(), "bias");
  auto C = te::topi::matmul(A, Bm, "C");
  auto R = te::compute(
      {intImm(m), intImm(n)},
      [&](const std::vector<PrimExpr>& i) {
        return max(C({i[0], i[1]}) + Bias({i[1]}), floatImm(0.0));
      },
      "T_relu");
  char name[64];
  std::snprintf(name, sizeof name, "matmul %lldx%lldx%lld", (long long)m, (long long)k,
                (long long)n);
  benchEpilogue(name, te::createPrimFunc({A, Bm, Bias, R}),
                {randomTensor({m, k}, 6), randomTensor({k, n}, 7), randomTensor({n}, 8)},
                2.0 * m * n * k, threads, budget);
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string only; // "", "matmul", "conv" or "examples"
  std::vector<int> threads{1, 2};
  std::string examples = LOWERSCOPE_SOURCE_DIR "/resources/examples";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--mattr") && i + 1 < argc) {
      gTargetExtra = std::string(" -mattr=") + argv[++i];
    } else if (!std::strcmp(argv[i], "--disable-passes") && i + 1 < argc) {
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        gDisabledPasses.emplace_back(t);
    } else if (!std::strcmp(argv[i], "--db") && i + 1 < argc) {
      gDb = argv[++i];
    } else if (!std::strcmp(argv[i], "--tune") && i + 1 < argc) {
      gTuneTrials = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--tune-seconds") && i + 1 < argc) {
      gTuneSeconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) {
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        gRows.emplace_back(t);
    } else if (!std::strcmp(argv[i], "--curves") && i + 1 < argc) {
      gCurves = argv[++i];
    } else if (!std::strcmp(argv[i], "--policy") && i + 1 < argc) {
      gPolicy = argv[++i];
    } else if (!std::strcmp(argv[i], "--conv-form") && i + 1 < argc) {
      gConvForm = argv[++i];
      if (gConvForm != "auto" && gConvForm != "wide") {
        std::fprintf(stderr, "--conv-form: auto or wide, got '%s'\n", gConvForm.c_str());
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--conv-shapes") && i + 1 < argc) {
      auto shapes = parseConvShapes(argv[++i]);
      if (!shapes) {
        std::fprintf(stderr, "--conv-shapes: rows C,HW,F,K,S[,G] separated by ';', got '%s'\n",
                     argv[i]);
        return 2;
      }
      gConvShapes = *shapes;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads.clear();
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        threads.push_back(std::atoi(t));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--threads 1,2] [--only matmul|conv|examples|epilogue] "
                   "[--mattr F] [--disable-passes a,b] [--policy JSON] [--conv-form auto|wide] "
                   "[--conv-shapes 'C,HW,F,K,S[,G];...'] [--db FILE.db] [--tune N] "
                   "[--tune-seconds S] [--curves DIR] [--rows 'matmul 1024x,conv 64x56']\n",
                   argv[0]);
      return 2;
    }
  }
  double budget = quick ? 0.2 : 1.0;
  if (gTuneTrials > 0 && gDb.empty()) {
    std::fprintf(stderr, "bench_kernels: --tune needs --db FILE.db (the records go there)\n");
    return 2;
  }
  try {
    tuner::registerTunerPasses();
    // The peak first, on an otherwise idle process: per thread count, as the
    // rows use it.
    std::printf("# CPU: %s\n", cpuModelName().c_str());
    for (int t : threads) {
      FmaPeak p = measureFp32FmaPeak(t);
      gPeak[t] = p.gflops;
      std::printf("# peak: %.1f GFLOP/s fp32 with %d thread%s, measured (FMA loop, %s)\n", p.gflops,
                  t, t == 1 ? "" : "s", p.isa.c_str());
    }
    std::printf("# OpenBLAS kernels: %s (set OPENBLAS_CORETYPE when it misdetects the CPU)\n\n",
                openblas_get_corename());
    auto want = [&](const char* part) { return only.empty() || only == part; };
    if (want("matmul"))
      std::printf("kernel           threads  ours GF/s  OpenBLAS  naive     ours/peer  peak    "
                  "ours/peak  max rel err\n");
    for (int t : threads)
      for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{256, 256, 256},
                             {512, 512, 512},
                             {1024, 1024, 1024},
                             {128, 768, 768},   // transformer projections (seq 128)
                             {128, 768, 3072},  // feed-forward up
                             {128, 3072, 768}}) // feed-forward down
        if (want("matmul") && wantRow("matmul " + std::to_string(m) + "x" + std::to_string(k) +
                                      "x" + std::to_string(n)))
          benchMatmul(m, k, n, t, budget);
    if (want("conv"))
      std::printf("\nkernel                 threads  ours GF/s  oneDNN  naive  ours/peer  peak    "
                  "ours/peak  max rel err\n");
    std::vector<ConvShape> convRows = gConvShapes;
    if (convRows.empty())
      convRows = {ConvShape{64, 56, 64}, ConvShape{128, 28, 128}, ConvShape{256, 14, 256},
                  // ResNet-18's strided layers: the 7x7/2 stem, a 3x3/2 and a 1x1/2
                  // downsample
                  ConvShape{3, 224, 64, 7, 2}, ConvShape{64, 56, 128, 3, 2},
                  ConvShape{64, 56, 128, 1, 2}, ConvShape{512, 7, 512},
                  // The same products with no padding (a 9x9 / 16x16 image, 7x7 /
                  // 14x14 outputs): every tap is inside the image. oneDNN skips
                  // the taps that fall in the padding, so on the padded rows it
                  // computes fewer products than the FLOPs counted for it
                  // (docs/benchmarks.md, "oneDNN's padding taps").
                  ConvShape{512, 9, 512, 3, 1, 1, 0}, ConvShape{256, 16, 256, 3, 1, 1, 0},
                  // MobileNetV2: the 3x3/2 stem, pointwise 1x1 (thin and deep) and
                  // depthwise 3x3 (stride 1 and 2)
                  ConvShape{3, 224, 32, 3, 2}, ConvShape{24, 56, 144, 1}, ConvShape{16, 112, 96, 1},
                  ConvShape{32, 28, 192, 1}, ConvShape{960, 7, 160, 1},
                  ConvShape{144, 56, 144, 3, 1, 144}, ConvShape{96, 112, 96, 3, 2, 96},
                  // MobileNetV2's deep depthwise layers: rows of 14 and 7, narrower
                  // than one AVX-512 vector
                  ConvShape{576, 14, 576, 3, 1, 576}, ConvShape{960, 7, 960, 3, 1, 960}};
    for (int t : threads)
      for (const ConvShape& s : convRows)
        if (want("conv") && wantRow(convLabel(s)))
          benchConv(s, t, budget);
    if (want("examples"))
      std::printf("\nexample   threads  scheduled ms  unscheduled ms  speed-up\n");
    for (int t : threads)
      for (const char* e : {"mlp", "cnn", "transformer"})
        if (want("examples"))
          benchExample(examples, e, t, budget);
    if (want("epilogue"))
      std::printf("\nkernel + bias + relu       threads  fused ms  own nest ms  speed-up  fused "
                  "GF/s  own GF/s  max rel diff\n");
    for (int t : threads) {
      if (!want("epilogue"))
        break;
      for (ConvShape s : {ConvShape{64, 56, 64}, ConvShape{128, 28, 128}, ConvShape{256, 14, 256},
                          ConvShape{64, 56, 128, 3, 2}, ConvShape{256, 14, 256, 1}})
        benchConvEpilogue(s, t, budget);
      for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{256, 256, 256},
                             {128, 768, 768},
                             {128, 768, 3072}})
        benchMatmulEpilogue(m, k, n, t, budget);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
