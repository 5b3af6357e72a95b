// The recurrent converters (onnx_ops_rnn.cpp): RNN, GRU and LSTM unrolled
// over a static sequence length, or an R.scan over a symbolic one. Expected
// values come from two sources that share no code with the importer: ONNX
// Runtime (the cases of tests/onnx/recurrent/, made by make_cases.py) and a
// plain loop over the LSTM equations of the ONNX specification written here
// (for layout=1, which ONNX Runtime refuses, with a symbolic batch run at two
// sizes, and with a symbolic length at three).
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
using unity::testing::OnnxDim;
using unity::testing::OnnxModelBuilder;

namespace {

std::vector<float> pseudoRandom(size_t n, unsigned seed, float scale) {
  std::vector<float> v(n);
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1103515245u + 12345u;
    x = scale * (static_cast<float>((s >> 16) & 0x7fff) / 16384.0f - 1.0f);
  }
  return v;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

/// Bidirectional LSTM with peepholes and sequence lengths, batch-major
/// (layout=1) tensors, straight from the specification's equations:
/// gates i, o, f, c in W/R/B; P is i, o, f; a step at or past an entry's
/// length leaves its state alone and writes zeros to Y.
struct LstmRef {
  int64_t T = 0, B = 0, I = 0, H = 0;
  static constexpr int D = 2;
  std::vector<float> x, w, r, bias, p, h0, c0; // x (B,T,I), h0/c0 (B,D,H)
  std::vector<int32_t> lens;
  std::vector<float> y, yh, yc; // y (B,T,D,H), yh/yc (B,D,H)

  void run() {
    y.assign(B * T * D * H, 0.0f);
    yh.assign(B * D * H, 0.0f);
    yc.assign(B * D * H, 0.0f);
    for (int d = 0; d < D; ++d)
      for (int64_t b = 0; b < B; ++b) {
        std::vector<float> h(H), c(H), g(4 * H);
        for (int64_t j = 0; j < H; ++j) {
          h[j] = h0[(b * D + d) * H + j];
          c[j] = c0[(b * D + d) * H + j];
        }
        for (int64_t s = 0; s < T; ++s) {
          int64_t t = d == 0 ? s : T - 1 - s;
          if (t >= lens[b])
            continue;
          for (int64_t k = 0; k < 4 * H; ++k) {
            float acc = bias[d * 8 * H + k] + bias[d * 8 * H + 4 * H + k];
            for (int64_t i = 0; i < I; ++i)
              acc += x[(b * T + t) * I + i] * w[(d * 4 * H + k) * I + i];
            for (int64_t i = 0; i < H; ++i)
              acc += h[i] * r[(d * 4 * H + k) * H + i];
            g[k] = acc;
          }
          for (int64_t j = 0; j < H; ++j) {
            const float* pd = &p[d * 3 * H];
            float in = sigmoid(g[j] + pd[j] * c[j]);
            float f = sigmoid(g[2 * H + j] + pd[2 * H + j] * c[j]);
            float cc = std::tanh(g[3 * H + j]);
            c[j] = f * c[j] + in * cc;
            float o = sigmoid(g[H + j] + pd[H + j] * c[j]);
            h[j] = o * std::tanh(c[j]);
            y[((b * T + t) * D + d) * H + j] = h[j];
          }
        }
        for (int64_t j = 0; j < H; ++j) {
          yh[(b * D + d) * H + j] = h[j];
          yc[(b * D + d) * H + j] = c[j];
        }
      }
  }
};

void expectNear(const Tensor& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.dataAs<float>()[i], want[i], 1e-5) << what << "[" << i << "]";
}

Tensor int32s(std::vector<int64_t> shape, const std::vector<int32_t>& v) {
  Tensor t(DataType::Int32(), std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    static_cast<int32_t*>(t.mutableData())[i] = v[i];
  return t;
}

/// An RNN-family node over graph inputs X (given dims), W, R.
OnnxModelBuilder recurrent(const std::string& op, const std::vector<OnnxDim>& xDims, int64_t gates,
                           int64_t hidden, int64_t inputSize) {
  OnnxModelBuilder b(14);
  b.input("X", xDims);
  b.input("W", {1, gates * hidden, inputSize});
  b.input("R", {1, gates * hidden, hidden});
  auto* n = b.node(op, {"X", "W", "R"}, {"Y", "Y_h"}, "rec");
  OnnxModelBuilder::attrInt(n, "hidden_size", hidden);
  b.output("Y");
  b.output("Y_h");
  return b;
}

std::string onlyReason(const OnnxModelBuilder& b) {
  try {
    frontend::importOnnxBytes(b.bytes());
  } catch (const frontend::UnsupportedModelError& e) {
    EXPECT_EQ(e.nodes().size(), 1u) << e.what();
    return e.nodes().empty() ? std::string() : e.nodes()[0].reason;
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

} // namespace

TEST(OnnxRecurrent, OnnxRuntimeReferenceCasesPass) {
  std::filesystem::path dir = std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests/onnx/recurrent";
  int cases = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_directory())
      continue;
    ++cases;
    conformance::CaseResult r = conformance::runConformanceCase(e.path().string());
    EXPECT_EQ(r.status, conformance::CaseStatus::Pass)
        << e.path().filename() << ": " << conformance::caseStatusName(r.status) << ": " << r.detail;
  }
  EXPECT_EQ(cases, 10) << "tests/onnx/recurrent/ should hold the 10 cases of make_cases.py";
}

// layout=1, both directions, sequence lengths given at run time and
// different per entry, initial states and peepholes; the batch is symbolic
// and the one build runs at two batch sizes.
TEST(OnnxRecurrent, BatchwiseBidirectionalLstmWithLengthsMatchesTheEquations) {
  const int64_t T = 4, I = 3, H = 2, D = 2;
  OnnxModelBuilder b(14);
  b.input("X", {std::string("N"), T, I});
  b.input("W", {D, 4 * H, I});
  b.input("R", {D, 4 * H, H});
  b.input("B", {D, 8 * H});
  b.input("lens", {std::string("N")}, onnx::TensorProto::INT32);
  b.input("h0", {std::string("N"), D, H});
  b.input("c0", {std::string("N"), D, H});
  b.input("P", {D, 3 * H});
  auto* n =
      b.node("LSTM", {"X", "W", "R", "B", "lens", "h0", "c0", "P"}, {"Y", "Y_h", "Y_c"}, "lstm");
  OnnxModelBuilder::attrInt(n, "hidden_size", H);
  OnnxModelBuilder::attrInt(n, "layout", 1);
  OnnxModelBuilder::attrString(n, "direction", "bidirectional");
  b.output("Y");
  b.output("Y_h");
  b.output("Y_c");
  BuildResult built = build(frontend::importOnnxBytes(b.bytes()));
  ASSERT_TRUE(built.executable);

  for (int64_t batch : {2, 3}) {
    LstmRef ref;
    ref.T = T;
    ref.B = batch;
    ref.I = I;
    ref.H = H;
    ref.x = pseudoRandom(batch * T * I, 1 + batch, 1.0f);
    ref.w = pseudoRandom(D * 4 * H * I, 2, 0.6f);
    ref.r = pseudoRandom(D * 4 * H * H, 3, 0.6f);
    ref.bias = pseudoRandom(D * 8 * H, 4, 0.3f);
    ref.p = pseudoRandom(D * 3 * H, 5, 0.5f);
    ref.h0 = pseudoRandom(batch * D * H, 6, 0.5f);
    ref.c0 = pseudoRandom(batch * D * H, 7, 0.5f);
    ref.lens = batch == 2 ? std::vector<int32_t>{4, 2} : std::vector<int32_t>{1, 4, 3};
    ref.run();
    auto outs = built.executable->runTensors({
        Tensor::fromFloats({batch, T, I}, ref.x),
        Tensor::fromFloats({D, 4 * H, I}, ref.w),
        Tensor::fromFloats({D, 4 * H, H}, ref.r),
        Tensor::fromFloats({D, 8 * H}, ref.bias),
        int32s({batch}, ref.lens),
        Tensor::fromFloats({batch, D, H}, ref.h0),
        Tensor::fromFloats({batch, D, H}, ref.c0),
        Tensor::fromFloats({D, 3 * H}, ref.p),
    });
    ASSERT_EQ(outs.size(), 3u);
    EXPECT_EQ(outs[0].shape(), (std::vector<int64_t>{batch, T, D, H}));
    EXPECT_EQ(outs[1].shape(), (std::vector<int64_t>{batch, D, H}));
    SCOPED_TRACE("batch " + std::to_string(batch));
    expectNear(outs[0], ref.y, "Y");
    expectNear(outs[1], ref.yh, "Y_h");
    expectNear(outs[2], ref.yc, "Y_c");
  }
}

// A symbolic sequence length: the recurrence is an R.scan over the steps
// (layout=1, both directions, initial states and peepholes, no lengths);
// one build runs at three lengths and two batch sizes.
TEST(OnnxRecurrent, SymbolicSequenceLengthRunsAsAScanAtAnyLength) {
  const int64_t I = 3, H = 2, D = 2;
  OnnxModelBuilder b(14);
  b.input("X", {std::string("N"), std::string("T"), I});
  b.input("W", {D, 4 * H, I});
  b.input("R", {D, 4 * H, H});
  b.input("B", {D, 8 * H});
  b.input("h0", {std::string("N"), D, H});
  b.input("c0", {std::string("N"), D, H});
  b.input("P", {D, 3 * H});
  auto* n = b.node("LSTM", {"X", "W", "R", "B", "", "h0", "c0", "P"}, {"Y", "Y_h", "Y_c"}, "lstm");
  OnnxModelBuilder::attrInt(n, "hidden_size", H);
  OnnxModelBuilder::attrInt(n, "layout", 1);
  OnnxModelBuilder::attrString(n, "direction", "bidirectional");
  b.output("Y");
  b.output("Y_h");
  b.output("Y_c");
  ir::IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_TRUE(ir::isa<ir::Function>(m->lookup("lstm_step")));
  BuildResult built = build(m);
  ASSERT_TRUE(built.executable);
  for (auto [batch, T] : {std::pair<int64_t, int64_t>{2, 1}, {3, 5}, {2, 7}}) {
    LstmRef ref;
    ref.T = T;
    ref.B = batch;
    ref.I = I;
    ref.H = H;
    ref.x = pseudoRandom(batch * T * I, 1 + static_cast<unsigned>(T), 1.0f);
    ref.w = pseudoRandom(D * 4 * H * I, 2, 0.6f);
    ref.r = pseudoRandom(D * 4 * H * H, 3, 0.6f);
    ref.bias = pseudoRandom(D * 8 * H, 4, 0.3f);
    ref.p = pseudoRandom(D * 3 * H, 5, 0.5f);
    ref.h0 = pseudoRandom(batch * D * H, 6, 0.5f);
    ref.c0 = pseudoRandom(batch * D * H, 7, 0.5f);
    ref.lens.assign(batch, static_cast<int32_t>(T)); // every entry runs all steps
    ref.run();
    auto outs = built.executable->runTensors({
        Tensor::fromFloats({batch, T, I}, ref.x),
        Tensor::fromFloats({D, 4 * H, I}, ref.w),
        Tensor::fromFloats({D, 4 * H, H}, ref.r),
        Tensor::fromFloats({D, 8 * H}, ref.bias),
        Tensor::fromFloats({batch, D, H}, ref.h0),
        Tensor::fromFloats({batch, D, H}, ref.c0),
        Tensor::fromFloats({D, 3 * H}, ref.p),
    });
    ASSERT_EQ(outs.size(), 3u);
    SCOPED_TRACE("batch " + std::to_string(batch) + ", length " + std::to_string(T));
    EXPECT_EQ(outs[0].shape(), (std::vector<int64_t>{batch, T, D, H}));
    expectNear(outs[0], ref.y, "Y");
    expectNear(outs[1], ref.yh, "Y_h");
    expectNear(outs[2], ref.yc, "Y_c");
  }
}

TEST(OnnxRecurrent, SymbolicSequenceLengthWithSequenceLensIsRefused) {
  OnnxModelBuilder b = recurrent("GRU", {std::string("T"), 2, 3}, 3, 4, 3);
  b.input("lens", {2}, onnx::TensorProto::INT32);
  auto* n = b.graph->mutable_node(0);
  n->add_input(""); // B
  n->add_input("lens");
  std::string reason = onlyReason(b);
  EXPECT_NE(reason.find("sequence_lens with a symbolic sequence length"), std::string::npos)
      << reason;
}

TEST(OnnxRecurrent, ActivationsAndWeightShapesAreCheckedWithReasons) {
  auto withActs = [](std::vector<std::string> acts) {
    OnnxModelBuilder b = recurrent("GRU", {3, 2, 3}, 3, 4, 3);
    auto* a = b.graph->mutable_node(0)->add_attribute();
    a->set_name("activations");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (auto& s : acts)
      a->add_strings(s);
    return b;
  };
  std::string one = onlyReason(withActs({"Sigmoid"}));
  EXPECT_NE(one.find("has 1 entries, expected 2"), std::string::npos) << one;
  std::string bad = onlyReason(withActs({"Sigmoid", "Swish"}));
  EXPECT_NE(bad.find("activation 'Swish'"), std::string::npos) << bad;
  // W of a GRU with hidden_size 4 holds 3 * 4 rows, not 4.
  std::string w = onlyReason(recurrent("GRU", {3, 2, 3}, 1, 4, 3));
  EXPECT_NE(w.find("W must have shape (1, 12, *)"), std::string::npos) << w;
}
