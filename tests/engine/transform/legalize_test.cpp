// Legalize: operator calls become call_tir of generated PrimFuncs; the
// legalized module, run binding by binding with the reference interpreter,
// matches a direct evaluation written by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <unordered_map>

#include "../te/te_test_util.h"
#include "engine/ir/functor.h"
#include "engine/ir/well_formed.h"
#include "engine/op/op.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/te/topi.h"
#include "engine/transform/legalize.h"
#include "engine/transform/normalize.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::te::testing;
using unity::op::callOp;

namespace {

const DataType f32 = DataType::Float32();

/// Runs main of a legalized module: every binding must be a call_tir.
unity::Tensor runLegalized(const IRModule& m, std::vector<unity::Tensor> inputs) {
  auto* fn = as<Function>(m->lookup("main"));
  std::unordered_map<const VarNode*, unity::Tensor> env;
  std::unordered_map<const PrimVar*, int64_t> shapeVars;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    env[fn->params[i].get()] = inputs[i];
    auto* t = as<TensorSInfo>(fn->params[i]->sinfo);
    for (size_t d = 0; d < t->shape->size(); ++d)
      if (auto* v = as<PrimVar>((*t->shape)[d]))
        shapeVars[v] = inputs[i].shape()[d];
  }
  auto evalDim = [&](const PrimExpr& e) -> int64_t {
    if (auto c = asConstInt(e))
      return *c;
    if (auto* v = as<PrimVar>(e))
      return shapeVars.at(v);
    ADD_FAILURE() << "unexpected compound output dim";
    return 0;
  };
  auto* seq = as<SeqExpr>(fn->body);
  for (auto& block : seq->blocks)
    for (auto& b : block->bindings) {
      auto* call = as<Call>(b->value);
      EXPECT_EQ(as<OpRef>(call->op)->name, "call_tir");
      auto f = cast<PrimFunc>(m->lookup(as<GlobalVar>(call->args[0])->name));
      std::vector<unity::Tensor*> args;
      for (auto& a : as<Tuple>(call->args[1])->fields)
        args.push_back(&env.at(as<VarNode>(a)));
      auto* out = as<TensorSInfo>(call->sinfoArgs[0]);
      std::vector<int64_t> shape;
      for (auto& d : *out->shape)
        shape.push_back(evalDim(d));
      unity::Tensor result(out->dtype, shape);
      args.push_back(&result);
      te::interpretPrimFunc(f, args);
      env[b->var.get()] = result;
    }
  return env.at(as<VarNode>(seq->body));
}

} // namespace

TEST(Legalize, MatmulAddReluChainWithSymbolicRows) {
  auto n = primVar("n");
  auto x = makeVar("x", tensorSInfo(f32, {PrimExpr(n), intImm(4)}));
  auto w = makeVar("w", tensorSInfo(f32, std::vector<int64_t>{4, 3}));
  auto b = makeVar("b", tensorSInfo(f32, std::vector<int64_t>{3}));
  std::vector<Binding> bindings;
  Var mm = makeVar("mm", nullptr), biased = makeVar("biased", nullptr),
      act = makeVar("act", nullptr), twice = makeVar("twice", nullptr),
      again = makeVar("again", nullptr);
  bindings.push_back(make<VarBinding>(mm, callOp("matmul", {x, w})));
  bindings.push_back(make<VarBinding>(biased, callOp("add", {mm, b})));
  bindings.push_back(make<VarBinding>(act, callOp("nn.relu", {biased})));
  bindings.push_back(make<VarBinding>(twice, callOp("add", {act, act})));
  bindings.push_back(make<VarBinding>(again, callOp("add", {twice, twice})));
  auto seq =
      make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(bindings, true)}, again);
  IRModule m = transform::normalize(
      makeModule({{"main", make<Function>(std::vector<Var>{x, w, b}, seq, nullptr)}}));

  IRModule l = transform::legalize(m);
  EXPECT_TRUE(transform::unsupportedOps(l).empty());
  for (auto& issue : checkWellFormed(l))
    ADD_FAILURE() << issueStr(issue);
  // matmul, add (n,3)+(3), relu, add (n,3)+(n,3) shared by both last calls
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("matmul")));
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("relu")));
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("add")));
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("add1")));
  EXPECT_FALSE(l->contains("add2"));
  auto relu = cast<PrimFunc>(l->lookup("relu"));
  EXPECT_EQ(relu->attrs.getInt("op_pattern", -1), 0);
  EXPECT_EQ(relu->attrs.getString("global_symbol"), "relu");
  EXPECT_EQ(cast<PrimFunc>(l->lookup("matmul"))->attrs.getInt("op_pattern", -1), 4);

  for (int64_t rows : {1, 3}) {
    auto xv = randomTensor({rows, 4}, 50), wv = randomTensor({4, 3}, 51),
         bv = randomTensor({3}, 52);
    auto got = runLegalized(l, {xv, wv, bv});
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{rows, 3}));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < 4; ++k)
          acc += float(at(xv, {i, k})) * float(at(wv, {k, j}));
        float v = std::max(acc + float(at(bv, {j})), 0.0f);
        EXPECT_NEAR(at(got, {i, j}), 4 * v, 1e-5);
      }
  }
}

TEST(Legalize, ConvPoolSoftmaxNetwork) {
  auto x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{1, 2, 6, 6}));
  auto w = makeVar("w", tensorSInfo(f32, std::vector<int64_t>{3, 2, 3, 3}));
  Var conv = makeVar("conv", nullptr), pool = makeVar("pool", nullptr),
      flat = makeVar("flat", nullptr), prob = makeVar("prob", nullptr);
  std::vector<Binding> bindings{
      make<VarBinding>(
          conv, callOp("nn.conv2d", {x, w}, Attrs{{"padding", std::vector<int64_t>{1, 1, 1, 1}}})),
      make<VarBinding>(pool, callOp("nn.max_pool2d", {conv},
                                    Attrs{{"pool_size", std::vector<int64_t>{2, 2}},
                                          {"strides", std::vector<int64_t>{2, 2}}})),
      make<VarBinding>(flat, callOp("nn.batch_flatten", {pool})),
      make<VarBinding>(prob, callOp("nn.softmax", {flat}))};
  auto seq =
      make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(bindings, true)}, prob);
  IRModule m = transform::normalize(
      makeModule({{"main", make<Function>(std::vector<Var>{x, w}, seq, nullptr)}}));
  IRModule l = transform::legalize(m);
  EXPECT_TRUE(transform::unsupportedOps(l).empty());
  for (auto& issue : checkWellFormed(l))
    ADD_FAILURE() << issueStr(issue);
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("conv2d")));
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("max_pool2d")));

  auto xv = randomTensor({1, 2, 6, 6}, 53), wv = randomTensor({3, 2, 3, 3}, 54);
  auto got = runLegalized(l, {xv, wv});
  ASSERT_EQ(got.shape(), (std::vector<int64_t>{1, 27}));
  // direct evaluation
  std::vector<double> c(3 * 36), p(27);
  for (int o = 0; o < 3; ++o)
    for (int y = 0; y < 6; ++y)
      for (int xx = 0; xx < 6; ++xx) {
        double acc = 0;
        for (int ci = 0; ci < 2; ++ci)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = xx + kx - 1;
              if (iy >= 0 && iy < 6 && ix >= 0 && ix < 6)
                acc += at(xv, {0, ci, iy, ix}) * at(wv, {o, ci, ky, kx});
            }
        c[o * 36 + y * 6 + xx] = acc;
      }
  for (int o = 0; o < 3; ++o)
    for (int y = 0; y < 3; ++y)
      for (int xx = 0; xx < 3; ++xx) {
        double mx = -1e30;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx)
            mx = std::max(mx, c[o * 36 + (2 * y + ky) * 6 + 2 * xx + kx]);
        p[o * 9 + y * 3 + xx] = mx;
      }
  double mx = *std::max_element(p.begin(), p.end()), tot = 0;
  for (double v : p)
    tot += std::exp(v - mx);
  for (int i = 0; i < 27; ++i)
    EXPECT_NEAR(got.getDouble(i), std::exp(p[i] - mx) / tot, 1e-5);
}

TEST(Legalize, UnsupportedCallsStayAndAreReported) {
  auto x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{1, 1, 5, 5}));
  Var pool = makeVar("pool", nullptr), e = makeVar("e", nullptr);
  std::vector<Binding> bindings{
      // resize2d with an out_dtype has no implementation (the reference has one).
      make<VarBinding>(pool, callOp("image.resize2d", {x},
                                    Attrs{{"size", std::vector<int64_t>{3, 3}},
                                          {"out_dtype", DataType::Float(64)}})),
      make<VarBinding>(e, callOp("exp", {pool}))};
  auto seq = make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(bindings, true)}, e);
  IRModule m = transform::normalize(
      makeModule({{"main", make<Function>(std::vector<Var>{x}, seq, nullptr)}}));
  EXPECT_EQ(transform::unsupportedOps(m), (std::vector<std::string>{"exp", "image.resize2d"}));
  IRModule l = transform::legalize(m);
  EXPECT_EQ(transform::unsupportedOps(l), (std::vector<std::string>{"image.resize2d"}));
  EXPECT_TRUE(isa<PrimFunc>(l->lookup("exp")));
  // nothing to do: the very same module comes back
  IRModule again = transform::legalize(l);
  EXPECT_TRUE(sameNode(again, l));
}

TEST(Legalize, UserRegisteredImplementationIsUsed) {
  transform::registerLegalization("negative", [](const transform::LegalizeArgs& a) {
    return std::vector<te::Tensor>{te::compute(
        a.inputs[0].shape(), [&](auto& i) { return a.inputs[0](i) * floatImm(-2.0); },
        "twice_negative")};
  });
  auto x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{3}));
  Var y = makeVar("y", nullptr);
  auto seq =
      make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(
                        std::vector<Binding>{make<VarBinding>(y, callOp("negative", {x}))}, true)},
                    y);
  IRModule m = transform::normalize(
      makeModule({{"main", make<Function>(std::vector<Var>{x}, seq, nullptr)}}));
  auto xv = randomTensor({3}, 55);
  auto got = runLegalized(transform::legalize(m), {xv});
  EXPECT_FLOAT_EQ(got.getDouble(1), float(xv.getDouble(1)) * -2);
  // restore the built-in behaviour for other tests
  transform::registerLegalization("negative", [](const transform::LegalizeArgs& a) {
    return std::vector<te::Tensor>{te::topi::negative(a.inputs[0])};
  });
  EXPECT_THROW(transform::registerLegalization("x", nullptr), Error);
}

TEST(Legalize, LogSoftmaxNllLossWithSymbolicBatchMatchesHandLoop) {
  // The SoftmaxCrossEntropyLoss composition: nll_loss(log_softmax(x, 1), t, w).
  auto n = primVar("n");
  auto x = makeVar("x", tensorSInfo(f32, {PrimExpr(n), intImm(3)}));
  auto t = makeVar("t", tensorSInfo(DataType::Int64(), {PrimExpr(n)}));
  auto w = makeVar("w", tensorSInfo(f32, std::vector<int64_t>{3}));
  Var lp = makeVar("lp", nullptr), loss = makeVar("loss", nullptr);
  std::vector<Binding> bindings{
      make<VarBinding>(lp, callOp("nn.log_softmax", {x}, {{"axis", int64_t(1)}})),
      make<VarBinding>(loss,
                       callOp("nn.nll_loss", {lp, t, w},
                              {{"reduction", std::string("mean")}, {"ignore_index", int64_t(2)}}))};
  auto seq =
      make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(bindings, true)}, loss);
  IRModule l = transform::legalize(transform::normalize(
      makeModule({{"main", make<Function>(std::vector<Var>{x, t, w}, seq, nullptr)}})));
  EXPECT_TRUE(transform::unsupportedOps(l).empty());
  for (auto& issue : checkWellFormed(l))
    ADD_FAILURE() << issueStr(issue);
  for (int64_t rows : {2, 5}) {
    auto xv = randomTensor({rows, 3}, 60, -2, 2), wv = randomTensor({3}, 61, 0.5, 1.5);
    unity::Tensor tv(DataType::Int64(), {rows});
    for (int64_t i = 0; i < rows; ++i)
      tv.setDouble(i, static_cast<double>(i % 3));
    auto got = runLegalized(l, {xv, tv, wv});
    double num = 0, den = 0;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t c = i % 3;
      if (c == 2)
        continue; // ignore_index
      double s = 0;
      for (int64_t k = 0; k < 3; ++k)
        s += std::exp(at(xv, {i, k}));
      num += -(at(xv, {i, c}) - std::log(s)) * wv.getDouble(c);
      den += wv.getDouble(c);
    }
    EXPECT_NEAR(got.getDouble(0), num / den, 1e-5) << rows;
  }
}

TEST(Legalize, InverseTrigAndShiftsMatchLibm) {
  auto x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{5}));
  std::vector<std::pair<const char*, double (*)(double)>> fns = {
      {"tan", std::tan},   {"asin", std::asin}, {"acos", std::acos},   {"atan", std::atan},
      {"sinh", std::sinh}, {"cosh", std::cosh}, {"asinh", std::asinh}, {"atanh", std::atanh}};
  for (auto& [name, ref] : fns) {
    Var y = makeVar("y", nullptr);
    auto seq =
        make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(
                          std::vector<Binding>{make<VarBinding>(y, callOp(name, {x}))}, true)},
                      y);
    IRModule l = transform::legalize(transform::normalize(
        makeModule({{"main", make<Function>(std::vector<Var>{x}, seq, nullptr)}})));
    EXPECT_TRUE(transform::unsupportedOps(l).empty()) << name;
    auto xv = randomTensor({5}, 62, -0.9, 0.9);
    auto got = runLegalized(l, {xv});
    for (int64_t i = 0; i < 5; ++i)
      EXPECT_NEAR(got.getDouble(i), ref(xv.getDouble(i)), 1e-5) << name;
  }
  // Shifts of uint8, including a shift by the bit width (0).
  DataType u8 = DataType::UInt(8);
  auto a = makeVar("a", tensorSInfo(u8, std::vector<int64_t>{4}));
  auto s = makeVar("s", tensorSInfo(u8, std::vector<int64_t>{4}));
  for (bool left : {true, false}) {
    Var y = makeVar("y", nullptr);
    auto seq = make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(
                                 std::vector<Binding>{make<VarBinding>(
                                     y, callOp(left ? "left_shift" : "right_shift", {a, s}))},
                                 true)},
                             y);
    IRModule l = transform::legalize(transform::normalize(
        makeModule({{"main", make<Function>(std::vector<Var>{a, s}, seq, nullptr)}})));
    unity::Tensor av(u8, {4}), sv(u8, {4});
    const int va[] = {200, 5, 1, 255}, vs[] = {1, 2, 7, 8};
    for (int i = 0; i < 4; ++i) {
      av.setDouble(i, va[i]);
      sv.setDouble(i, vs[i]);
    }
    auto got = runLegalized(l, {av, sv});
    for (int i = 0; i < 4; ++i) {
      int want = vs[i] >= 8 ? 0 : left ? (va[i] << vs[i]) & 0xff : va[i] >> vs[i];
      EXPECT_EQ(got.getDouble(i), want) << left << " " << i;
    }
  }
}
