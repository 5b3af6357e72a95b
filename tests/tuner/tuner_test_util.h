#pragma once
// Fixtures shared by the tuner tests: a scratch directory per test, small
// static-shape workloads (te::matmulPrimFunc) and models built from text IR.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "engine/ir/module.h"
#include "engine/runtime/module.h"
#include "engine/te/workloads.h"
#include "engine/text/parser.h"

namespace unity::tuner::testing {

/// A fresh directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("tuner_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

/// A graph with two matmuls of the same shape (one workload called twice),
/// a bias add + relu fused into the first, and a different-shaped third.
inline ir::IRModule smallModel(int n = 64) {
  std::string s = std::to_string(n), h = std::to_string(n / 2);
  std::string src = "@R.function\n"
                    "def main(x: R.Tensor((" +
                    s + ", " + s + "), \"float32\"), w: R.Tensor((" + s + ", " + s +
                    "), \"float32\"), v: R.Tensor((" + s + ", " + h +
                    "), \"float32\")) -> R.Tensor((" + s + ", " + h +
                    "), \"float32\"):\n"
                    "    with R.dataflow():\n"
                    "        lv0 = R.matmul(x, w)\n"
                    "        lv1 = R.nn.relu(lv0)\n"
                    "        lv2 = R.matmul(lv1, w)\n"
                    "        lv3 = R.nn.relu(lv2)\n"
                    "        gv = R.matmul(lv3, v)\n"
                    "        R.output(gv)\n"
                    "    return gv\n";
  return text::parseModule(src, "<small model>");
}

// Faulty kernels for the measurement tests (the packed calling convention).
inline int32_t segfaultKernel(void**, int64_t*, int32_t) {
  raise(SIGSEGV);
  return 0;
}
inline int32_t hangingKernel(void**, int64_t*, int32_t) {
  for (;;)
    pause();
}
inline int32_t wrongKernel(void** args, int64_t*, int32_t nargs) {
  static_cast<float*>(args[nargs - 1])[0] = 12345.0f; // one element off
  return 0;
}

/// A module whose kernel is replaced by `fn`.
class SwappedModule : public runtime::CompiledModule {
public:
  SwappedModule(std::shared_ptr<const runtime::CompiledModule> inner, KernelFn fn)
      : inner_(std::move(inner)), fn_(fn) {}
  KernelFn lookup(const std::string& name) const override {
    auto real = inner_->lookup(name); // unknown names still fail
    return fn_ ? fn_ : real;
  }
  ir::PrimFuncRef function(const std::string& name) const override {
    return inner_->function(name);
  }
  std::vector<std::string> names() const override { return inner_->names(); }
  std::string llvmIR() const override { return {}; }
  std::string assembly() const override { return {}; }
  std::vector<char> object() const override { return {}; }

private:
  std::shared_ptr<const runtime::CompiledModule> inner_;
  KernelFn fn_;
};

} // namespace unity::tuner::testing
