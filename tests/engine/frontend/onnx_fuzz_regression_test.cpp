// Inputs onnx_import_fuzz (tests/fuzz) found to crash the importer or to hit
// undefined behaviour, kept as regression cases: each must import or be
// refused with unity::Error, in the strict and in the viewing mode, and the
// refusal must name the cause found when it was fixed. Under the asan preset
// (UBSan with halt_on_error) a recurrence of the undefined behaviour fails
// the test too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"

namespace fs = std::filesystem;

namespace {

/// file name -> text the strict import's error must contain.
const std::map<std::string, std::string> kExpected = {
    // A Range whose float start is -9.9e27: converting it to int64 was
    // undefined behaviour.
    {"float_index_out_of_int64.onnx", "outside the int64 range"},
    // A ConvTranspose whose weight has rank 1: slicing its kernel dims threw
    // std::length_error (an internal error).
    {"convtranspose_weight_rank_1.onnx", "the weight has rank 1, the input 3"},
    // A Slice node with no outputs: naming a run-time length after output 0
    // read past the end of the outputs (protobuf aborted). Refused now ("the
    // node has no outputs"; the strict import then names the graph output
    // no node produces): any error naming the file.
    {"slice_without_outputs.onnx", "slice_without_outputs.onnx"},
    // A QLinearConv whose weight input names a scalar (rank 0): slicing its
    // kernel dims offset an empty vector (undefined behaviour). The viewing
    // import reaches the node and marks it ("the weight has rank 0"); the
    // strict one stops at an input of no element type first: any error
    // naming the file.
    {"qlinearconv_weight_rank_0.onnx", "qlinearconv_weight_rank_0.onnx"},
    // A Slice with bounds read at run time on a scalar input: indexing the
    // input's (empty) dims was a null dereference (found by onnx_import_fuzz
    // on the session-7 importer).
    {"slice_runtime_bounds_unknown_dims.onnx", "the input is a scalar (rank 0)"},
    // A Reshape whose run-time target declares a length in the billions:
    // the importer looped over it (a hang, found by onnx_import_fuzz).
    {"reshape_runtime_target_of_huge_rank.onnx", "(the output's rank) is outside 0..64"},
    // A Range whose constant delta is 2.95e20: converting it to int64 was
    // undefined behaviour (found by onnx_import_fuzz). Any error naming the
    // file, or an import (the viewing mode).
    {"range_delta_outside_int64.onnx", "range_delta_outside_int64.onnx"},
    // A Gather whose data input is a scalar: axis 0 was accepted for rank 0
    // and the scalar's empty shape indexed (undefined behaviour, found by
    // onnx_import_fuzz in session 8). A scalar has no axis now ("axis 0 is
    // out of range for rank 0"). Any error naming the file, or an import.
    {"gather_of_a_scalar.onnx", "gather_of_a_scalar.onnx"},
    // A MaxPool with an Indices output and strides [2, 0]: the output size
    // divided by the zero stride (undefined behaviour, found by
    // onnx_import_fuzz in session 9). Kernel, strides and dilations must be
    // positive now.
    {"maxpool_indices_zero_stride.onnx", "strides and dilations must be positive"},
};

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(OnnxFuzzRegression, EveryCaseImportsOrIsRefusedWithItsCause) {
  fs::path dir = fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/onnx/fuzz_regressions";
  int cases = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".onnx")
      continue;
    ++cases;
    std::string name = e.path().filename().string(), bytes = readAll(e.path());
    for (bool keep : {false, true}) {
      unity::frontend::ImportOptions o;
      o.sourceName = name;
      o.keepUnsupported = keep;
      try {
        unity::frontend::importOnnxBytes(bytes, o);
        EXPECT_TRUE(keep) << name << ": imported in strict mode, expected a refusal";
      } catch (const unity::Error& err) {
        auto it = kExpected.find(name);
        ASSERT_NE(it, kExpected.end()) << name << " has no expected cause listed";
        EXPECT_NE(std::string(err.what()).find(it->second), std::string::npos)
            << name << ": " << err.what();
      }
    }
  }
  EXPECT_EQ(cases, int(kExpected.size())) << "every listed case has a file and vice versa";
}

} // namespace
