// Built-in library kernels and the LibraryModule serving them.
//
// Static attributes travel as a small int64 "params" tensor, the last input
// (call_tir carries tensors only).
// openblas.dense / openblas.matmul:  A (M, K), B (N, K) or (K, N), [bias (N)],
//   params [relu, threads], C (M, N). One cblas_sgemm (row-major) into C after C
//   is filled with the broadcast bias (beta = 1) or zeros (beta = 0), then an
//   optional in-place ReLU.
// dnnl.conv2d: data (N, C, H, W), weight (O, C/g, KH, KW), [bias (O, ...)],
//   params [stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
//   dilation_h, dilation_w, groups, relu, threads], out (N, O, OH, OW). One oneDNN
//   convolution_forward primitive (forward_inference, direct) on the plain
//   nchw/oihw buffers, ReLU as an eltwise post-op. Library exceptions become
//   status kKernelLibraryError (-4), never escape into generated code's caller.
//
// threads: the sub-target's -num-cores (0: the library's default, read once
// before the first change). OpenBLAS (Debian's pthread build) has one global
// thread count, set with openblas_set_num_threads before each call when it
// differs. oneDNN here uses the OpenMP runtime (Debian's libdnnl links
// libgomp): its kernels use omp_get_max_threads() of the calling thread at
// primitive creation, so omp_set_num_threads is called on the calling thread
// before the primitive is made (the primitive cache keys on that count).
// omp_* are found in the already loaded OpenMP runtime with dlsym, so the
// engine is not compiled with -fopenmp. The settings stay after the call
// (every library call sets its own), which is what libraryThreadSettings()
// reports.
#include "engine/runtime/library_kernels.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <dnnl.hpp>
#include <mutex>
#include <unordered_map>

#include "engine/support/error.h"

namespace unity::runtime {

namespace {

/// OpenBLAS's thread count when first asked, before any change of ours.
int openblasDefaultThreads() {
  static const int n = openblas_get_num_threads();
  return n;
}

void useOpenblasThreads(int64_t n) {
  int dflt = openblasDefaultThreads(); // read before the first change
  int want = n > 0 ? static_cast<int>(n) : dflt;
  if (openblas_get_num_threads() != want)
    openblas_set_num_threads(want);
}

/// The OpenMP runtime oneDNN runs on, if one is loaded.
struct OpenMP {
  void (*setNumThreads)(int) = nullptr;
  int (*getMaxThreads)() = nullptr;
  int defaultThreads = 0;
};
const OpenMP& openmp() {
  static const OpenMP o = [] {
    OpenMP r;
    r.setNumThreads = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    r.getMaxThreads = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    if (r.getMaxThreads)
      r.defaultThreads = r.getMaxThreads();
    return r;
  }();
  return o;
}

void useOpenmpThreads(int64_t n) {
  const OpenMP& o = openmp();
  if (!o.setNumThreads || !o.getMaxThreads)
    return;
  int want = n > 0 ? static_cast<int>(n) : o.defaultThreads;
  if (want > 0 && o.getMaxThreads() != want)
    o.setNumThreads(want);
}

int32_t openblasGemm(void** args, int64_t* shapes, int32_t nargs, bool transB) {
  // Buffers: A, B, [bias], params (int64: relu, threads), C.
  if (nargs != 4 && nargs != 5)
    return kKernelBadArgCount;
  bool bias = nargs == 5;
  const float* A = static_cast<const float*>(args[0]);
  const float* B = static_cast<const float*>(args[1]);
  const float* b = bias ? static_cast<const float*>(args[2]) : nullptr;
  float* C = static_cast<float*>(args[nargs - 1]);
  const int64_t* params = static_cast<const int64_t*>(args[nargs - 2]);
  bool relu = params[0] != 0;
  useOpenblasThreads(params[1]);
  int64_t M = shapes[0], K = shapes[1];
  int64_t N = transB ? shapes[2] : shapes[3];
  if (bias) {
    for (int64_t i = 0; i < M; ++i)
      std::copy(b, b + N, C + i * N);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, static_cast<int>(M),
              static_cast<int>(N), static_cast<int>(K), 1.0f, A, static_cast<int>(K), B,
              static_cast<int>(transB ? K : N), bias ? 1.0f : 0.0f, C, static_cast<int>(N));
  if (relu)
    for (int64_t i = 0; i < M * N; ++i)
      C[i] = std::max(C[i], 0.0f);
  return kKernelOk;
}

int32_t openblasDense(void** a, int64_t* s, int32_t n) { return openblasGemm(a, s, n, true); }
int32_t openblasMatmul(void** a, int64_t* s, int32_t n) { return openblasGemm(a, s, n, false); }

int32_t dnnlConv2d(void** args, int64_t* shapes, int32_t nargs) {
  // Buffers: data, weight, [bias], params (int64 x 11), out.
  if (nargs != 4 && nargs != 5)
    return kKernelBadArgCount;
  bool hasBias = nargs == 5;
  const int64_t* params = static_cast<const int64_t*>(args[nargs - 2]);
  auto scalar = [&](int k) { return params[k]; };
  using dims = dnnl::memory::dims;
  dims src = {shapes[0], shapes[1], shapes[2], shapes[3]};
  dims wei = {shapes[4], shapes[5], shapes[6], shapes[7]};
  int64_t groups = scalar(8);
  bool relu = scalar(9) != 0;
  useOpenmpThreads(scalar(10));
  try {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    int64_t O = wei[0];
    dims dst = {src[0], O, 0, 0};
    int64_t sh = scalar(0), sw = scalar(1), pt = scalar(2), pl = scalar(3), pb = scalar(4),
            pr = scalar(5), dh = scalar(6), dw = scalar(7);
    dst[2] = (src[2] + pt + pb - (dh * (wei[2] - 1) + 1)) / sh + 1;
    dst[3] = (src[3] + pl + pr - (dw * (wei[3] - 1) + 1)) / sw + 1;
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc srcMd(src, dt::f32, tag::nchw), dstMd(dst, dt::f32, tag::nchw);
    dnnl::memory::desc weiMd;
    if (groups == 1) {
      weiMd = dnnl::memory::desc(wei, dt::f32, tag::oihw);
    } else {
      dims gw = {groups, O / groups, wei[1], wei[2], wei[3]};
      weiMd = dnnl::memory::desc(gw, dt::f32, tag::goihw);
    }
    dnnl::memory::desc biasMd({O}, dt::f32, tag::x);
    dnnl::post_ops ops;
    if (relu)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    auto desc = hasBias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                          dnnl::algorithm::convolution_direct,
                                                          srcMd, weiMd, biasMd, dstMd, {sh, sw},
                                                          {dh - 1, dw - 1}, {pt, pl}, {pb, pr})
                        : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                          dnnl::algorithm::convolution_direct,
                                                          srcMd, weiMd, dstMd, {sh, sw},
                                                          {dh - 1, dw - 1}, {pt, pl}, {pb, pr});
    dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    dnnl::memory srcM(srcMd, eng, args[0]), weiM(weiMd, eng, args[1]),
        dstM(dstMd, eng, args[nargs - 1]);
    std::unordered_map<int, dnnl::memory> margs = {
        {DNNL_ARG_SRC, srcM}, {DNNL_ARG_WEIGHTS, weiM}, {DNNL_ARG_DST, dstM}};
    if (hasBias)
      margs.emplace(DNNL_ARG_BIAS, dnnl::memory(biasMd, eng, args[2]));
    dnnl::convolution_forward(pd).execute(strm, margs);
    strm.wait();
  } catch (const dnnl::error&) {
    return kKernelLibraryError;
  }
  return kKernelOk;
}

std::mutex& tableMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, KernelFn>& table() {
  static std::map<std::string, KernelFn> t = {
      {"openblas.dense", &openblasDense},
      {"openblas.matmul", &openblasMatmul},
      {"dnnl.conv2d", &dnnlConv2d},
  };
  return t;
}

} // namespace

KernelFn findLibraryKernel(const std::string& symbol) {
  std::lock_guard lock(tableMutex());
  auto it = table().find(symbol);
  return it == table().end() ? nullptr : it->second;
}

void registerLibraryKernel(const std::string& symbol, KernelFn fn) {
  std::lock_guard lock(tableMutex());
  table()[symbol] = fn;
}

LibraryThreadSettings libraryThreadSettings() {
  LibraryThreadSettings s;
  s.openblas = openblas_get_num_threads();
  if (openmp().getMaxThreads)
    s.openmp = openmp().getMaxThreads();
  return s;
}

std::vector<std::string> libraryKernelNames() {
  std::lock_guard lock(tableMutex());
  std::vector<std::string> out;
  for (auto& [k, _] : table())
    out.push_back(k);
  return out;
}

LibraryModule::LibraryModule(const NamedPrimFuncs& funcs) {
  for (auto& [name, f] : funcs) {
    std::string symbol = f ? f->attrs.getString("library_kernel") : std::string();
    if (symbol.empty())
      throw Error("library module: tensor function '" + name +
                  "' has no \"library_kernel\" attribute (only claimed patterns can run on a "
                  "library target)");
    KernelFn fn = findLibraryKernel(symbol);
    if (!fn)
      throw Error("library module: function '" + name + "' names unknown library kernel '" +
                  symbol + "'");
    kernels_[name] = {fn, f};
    order_.push_back(name);
  }
}

KernelFn LibraryModule::lookup(const std::string& name) const {
  auto it = kernels_.find(name);
  if (it == kernels_.end())
    throw Error("library module has no kernel '" + name + "'");
  return it->second.first;
}

ir::PrimFuncRef LibraryModule::function(const std::string& name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? ir::PrimFuncRef() : it->second.second;
}

std::vector<std::string> LibraryModule::names() const { return order_; }

std::string LibraryModule::describe() const {
  std::string s;
  for (auto& n : order_)
    s += n + " -> " + kernels_.at(n).second->attrs.getString("library_kernel") + "\n";
  return s;
}

} // namespace unity::runtime
