// The ONNX converters of onnx_ops_index.cpp: the real backend-suite node
// cases of each operator (reference outputs computed by ONNX, not by us) and
// the refusals with reasons.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "engine/build.h"
#include "engine/conformance/onnx_conformance.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using unity::testing::OnnxModelBuilder;

namespace {

const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

std::string firstReason(const OnnxModelBuilder& b) {
  try {
    frontend::importOnnxBytes(b.bytes());
  } catch (const frontend::UnsupportedModelError& e) {
    return e.nodes().empty() ? std::string("(no nodes)") : e.nodes()[0].reason;
  }
  return "";
}

} // namespace

// One or more cases per operator, each with the expected outputs of ONNX's
// own reference implementation.
TEST(OnnxIndexOps, BackendSuiteNodeCasesPass) {
  // scripts/install-deps.sh installs the suite: its absence is a broken set-up,
  // not a reason to pass silently.
  ASSERT_TRUE(std::filesystem::exists(kNodeDir))
      << kNodeDir << " is not installed (Debian package libonnx-testdata)";
  for (const char* name : {"test_nllloss_NCd1d2d3_sum_weight_high_ii",
                           "test_nllloss_NCd1_mean_weight_negative_ii",
                           "test_sce_mean_weight_ii_3d_log_prob",
                           "test_sce_NCd1d2d3d4d5_none_no_weight",
                           "test_gather_elements_negative_indices",
                           "test_gathernd_example_int32_batch_dim1",
                           "test_scatter_elements_with_duplicate_indices",
                           "test_scatternd_multiply",
                           "test_tril_square",
                           "test_triu",

                           "test_hardmax_axis_1",

                           "test_eyelike_populate_off_main_diagonal",

                           "test_einsum_batch_diagonal",
                           "test_bitshift_left_uint64",
                           "test_bitshift_right_uint8",
                           "test_isinf_negative",
                           "test_isnan",
                           "test_acosh",
                           "test_atanh_example",
                           "test_tan",
                           "test_quantizelinear",
                           "test_dequantizelinear_axis",
                           "test_dynamicquantizelinear_min_adjusted",
                           "test_shrink_soft",
                           "test_celu",
                           "test_spacetodepth_example"}) {
    std::string dir = std::string(kNodeDir) + "/" + name;
    if (!std::filesystem::exists(dir)) {
      ADD_FAILURE() << "missing case " << dir;
      continue;
    }
    conformance::CaseResult r = conformance::runConformanceCase(dir);
    EXPECT_EQ(r.status, conformance::CaseStatus::Pass)
        << name << ": " << conformance::caseStatusName(r.status) << ": " << r.detail;
  }
}

TEST(OnnxIndexOps, NonConstantOperandsAndBroadcastEllipsisAreRefusedWithReasons) {
  {
    OnnxModelBuilder b;
    b.input("X", {int64_t(2), int64_t(3)});
    // A run-time axis is read as data (see OnnxRuntimeScalars); one of two
    // values is not an axis.
    b.input("axis", {int64_t(2)}, onnx::TensorProto::INT64);
    b.node("CumSum", {"X", "axis"}, {"Y"}, "scan");
    b.output("Y");
    std::string why = firstReason(b);
    EXPECT_NE(why.find("axis must be an integer scalar"), std::string::npos) << why;
  }
  {
    OnnxModelBuilder b;
    // Batch dims 2 and 1 under '...' would broadcast: refused.
    b.input("X", {int64_t(2), int64_t(3), int64_t(4)});
    b.input("Z", {int64_t(1), int64_t(4), int64_t(5)});
    auto* n = b.node("Einsum", {"X", "Z"}, {"Y"}, "es");
    OnnxModelBuilder::attrString(n, "equation", "...ij,...jk->...ik");
    b.output("Y");
    std::string why = firstReason(b);
    EXPECT_NE(why.find("broadcasting dims under '...'"), std::string::npos) << why;
  }
  {
    OnnxModelBuilder b;
    b.input("X", {int64_t(2), int64_t(3)});
    b.intInitializer("K", {2});
    auto* n = b.node("TopK", {"X", "K"}, {"V", "I"}, "top");
    OnnxModelBuilder::attrInt(n, "sorted", 0);
    b.output("V");
    b.output("I");
    std::string why = firstReason(b);
    EXPECT_NE(why.find("sorted=0"), std::string::npos) << why;
  }
}

TEST(OnnxIndexOps, SoftmaxCrossEntropyWithIgnoreIndexMatchesHandComputation) {
  // scores (2, 3), labels {2, 0} with ignore_index 0: only row 0 counts.
  OnnxModelBuilder b;
  b.input("S", {int64_t(2), int64_t(3)});
  auto* lab = b.intInitializer("L", {2, 0});
  (void)lab;
  auto* n = b.node("SoftmaxCrossEntropyLoss", {"S", "L"}, {"loss", "lp"}, "sce");
  OnnxModelBuilder::attrInt(n, "ignore_index", 0);
  b.output("loss");
  b.output("lp");
  ir::IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto outs = r.executable->runTensors(
      {Tensor::fromFloats({2, 3}, std::vector<float>{1, 2, 3, 0.5f, -1, 0})});
  ASSERT_EQ(outs.size(), 2u);
  double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(outs[0].getDouble(0), -(3.0 - lse0), 1e-5);
  double lse1 = std::log(std::exp(0.5) + std::exp(-1.0) + std::exp(0.0));
  EXPECT_NEAR(outs[1].getDouble(3), 0.5 - lse1, 1e-5);
}

TEST(OnnxIndexOps, ConstantOperandsOfCumSumTopKTriluOneHotRunAsHandComputed) {
  // The suite's cases of these operators pass K / axis / depth as graph
  // inputs; here they are initializers, as in real models.
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(3)});
  b.intInitializer("axis", {1});
  b.intInitializer("K", {2});
  b.intInitializer("k", {1});
  b.intInitializer("depth", {4});
  b.intInitializer("idx", {0, -1, 2});
  b.initializer("vals", {2}, {-1, 3});
  auto* cs = b.node("CumSum", {"X", "axis"}, {"C"}, "cs");
  OnnxModelBuilder::attrInt(cs, "exclusive", 1);
  auto* tk = b.node("TopK", {"X", "K"}, {"V", "I"}, "tk");
  OnnxModelBuilder::attrInt(tk, "largest", 0);
  auto* tr = b.node("Trilu", {"X", "k"}, {"T"}, "tr");
  OnnxModelBuilder::attrInt(tr, "upper", 0);
  auto* oh = b.node("OneHot", {"idx", "depth", "vals"}, {"O"}, "oh");
  OnnxModelBuilder::attrInt(oh, "axis", 0);
  for (const char* o : {"C", "V", "I", "T", "O"})
    b.output(o);
  ir::IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  const std::vector<float> x = {3, -1, 2, 0, 5, 5};
  auto outs = r.executable->runTensors({Tensor::fromFloats({2, 3}, x)});
  ASSERT_EQ(outs.size(), 5u);
  const double wantC[] = {0, 3, 2, 0, 0, 5};       // exclusive running sums per row
  const double wantV[] = {-1, 2, 0, 5};            // two smallest per row
  const double wantI[] = {1, 2, 0, 1};             // ties (5, 5) by lower index
  const double wantT[] = {3, -1, 0, 0, 5, 5};      // lower triangle with k = 1
  const double wantO[] = {3,  -1, -1, -1, -1, -1,  // class 0: idx[0]
                          -1, -1, 3,  -1, 3,  -1}; // class 2: idx[2]; class 3: idx[1] = -1
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(outs[0].getDouble(i), wantC[i]) << i;
    EXPECT_EQ(outs[3].getDouble(i), wantT[i]) << i;
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(outs[1].getDouble(i), wantV[i]) << i;
    EXPECT_EQ(outs[2].getDouble(i), wantI[i]) << i;
  }
  ASSERT_EQ(outs[4].shape(), (std::vector<int64_t>{4, 3}));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(outs[4].getDouble(i), wantO[i]) << i;
}
