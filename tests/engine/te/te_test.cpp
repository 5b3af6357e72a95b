// The te builder: structure of the generated PrimFuncs and their results
// under the reference interpreter.
#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/te/te.h"
#include "te_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::te::testing;

namespace {

std::vector<const Block*> blocks(const PrimFuncRef& f) {
  std::vector<const Block*> out;
  walkStmt(f->body, [&](const Stmt& s) {
    if (auto* b = as<Block>(s))
      out.push_back(b);
  });
  return out;
}

const Block* findBlock(const PrimFuncRef& f, const std::string& name) {
  for (auto* b : blocks(f))
    if (b->name == name)
      return b;
  return nullptr;
}

} // namespace

TEST(TeCompute, ElementwiseBuildsLoopsAroundABlock) {
  auto A = te::placeholder({intImm(3), intImm(4)}, DataType::Float32(), "A");
  auto B = te::compute(
      A.shape(), [&](auto& i) { return A(i[0], i[1]) + floatImm(1.0); }, "B");
  EXPECT_EQ(B.dtype(), DataType::Float32());
  ASSERT_EQ(B.inputs().size(), 1u);
  EXPECT_TRUE(B.inputs()[0].same(A));
  PrimFuncRef f = te::createPrimFunc({A, B});
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_TRUE(sameNode(f->params[0].buffer, A.buffer()));
  EXPECT_TRUE(sameNode(f->params[1].buffer, B.buffer()));
  EXPECT_EQ(f->numOutputs(), 1);

  auto* root = as<Block>(f->body);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->allocs.empty());
  auto* outer = as<For>(root->body);
  ASSERT_NE(outer, nullptr);
  EXPECT_TRUE(isConstInt(outer->extent, 3));
  auto* inner = as<For>(outer->body);
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(isConstInt(inner->extent, 4));
  auto* blk = as<Block>(inner->body);
  ASSERT_NE(blk, nullptr);
  EXPECT_EQ(blk->name, "B");
  ASSERT_EQ(blk->iters.size(), 2u);
  EXPECT_EQ(blk->iters[0].type, IterType::Spatial);
  EXPECT_TRUE(sameNode(blk->bindings[0], outer->var));
  EXPECT_TRUE(sameNode(blk->bindings[1], inner->var));
  EXPECT_EQ(blk->init, nullptr);
  ASSERT_EQ(blk->reads.size(), 1u);
  EXPECT_TRUE(sameNode(blk->reads[0].buffer, A.buffer()));
  EXPECT_TRUE(sameNode(blk->reads[0].region[0].min, blk->iters[0].var));
  EXPECT_TRUE(isConstInt(blk->reads[0].region[1].extent, 1));
  ASSERT_EQ(blk->writes.size(), 1u);
  EXPECT_TRUE(sameNode(blk->writes[0].buffer, B.buffer()));

  auto a = randomTensor({3, 4}, 1);
  unity::Tensor b(DataType::Float32(), {3, 4});
  te::interpretPrimFunc(f, {&a, &b});
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(b.getDouble(i), a.getDouble(i) + 1.0f);
}

TEST(TeCompute, MatmulWithSymbolicRowsRunsAtTwoSizes) {
  auto n = primVar("n");
  auto A = te::placeholder({n, intImm(5)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(5), intImm(3)}, DataType::Float32(), "B");
  auto k = te::reduceAxis(intImm(5), "k");
  auto C = te::compute(
      {n, intImm(3)}, [&](auto& i) { return te::sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C");
  PrimFuncRef f = te::createPrimFunc({A, B, C});
  EXPECT_EQ(f->params.size(), 3u); // n is bound from A's shape: no scalar parameter
  auto* blk = findBlock(f, "C");
  ASSERT_NE(blk, nullptr);
  ASSERT_EQ(blk->iters.size(), 3u);
  EXPECT_EQ(blk->iters[2].type, IterType::Reduce);
  EXPECT_EQ(blk->iters[2].var->name, "v_k");
  ASSERT_NE(blk->init, nullptr);
  auto* init = as<BufferStore>(blk->init);
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(as<FloatImm>(init->value)->value, 0.0);
  ASSERT_EQ(blk->reads.size(), 2u); // A and B; the accumulator C is not listed
  EXPECT_TRUE(sameNode(blk->reads[0].buffer, A.buffer()));
  EXPECT_TRUE(sameNode(blk->reads[1].buffer, B.buffer()));
  EXPECT_TRUE(sameNode(blk->reads[0].region[1].min, blk->iters[2].var));

  for (int64_t rows : {2, 7}) {
    auto a = randomTensor({rows, 5}, 2), b = randomTensor({5, 3}, 3);
    unity::Tensor c(DataType::Float32(), {rows, 3});
    te::interpretPrimFunc(f, {&a, &b, &c});
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        float acc = 0;
        for (int64_t kk = 0; kk < 5; ++kk)
          acc += float(at(a, {i, kk})) * float(at(b, {kk, j}));
        EXPECT_NEAR(at(c, {i, j}), acc, 1e-5);
      }
  }
}

TEST(TeCompute, IntermediatesAreAllocatedAtTheRootBlock) {
  auto A = te::placeholder({intImm(6)}, DataType::Float32(), "A");
  auto T = te::compute(
      A.shape(), [&](auto& i) { return A(i[0]) * floatImm(2.0); }, "T");
  auto C = te::compute(
      A.shape(), [&](auto& i) { return T(i[0]) + floatImm(1.0); }, "C");
  PrimFuncRef f = te::createPrimFunc({A, C});
  auto* root = as<Block>(f->body);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->allocs.size(), 1u);
  EXPECT_TRUE(sameNode(root->allocs[0], T.buffer()));
  auto* seq = as<SeqStmt>(root->body);
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u); // T before C
  auto a = randomTensor({6}, 4);
  unity::Tensor c(DataType::Float32(), {6});
  te::interpretPrimFunc(f, {&a, &c});
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(c.getDouble(i), float(a.getDouble(i)) * 2 + 1);
}

TEST(TeCompute, TwoOutputsSetNumOutputs) {
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto X = te::compute(
      A.shape(), [&](auto& i) { return A(i[0]) + floatImm(1.0); }, "X");
  auto Y = te::compute(
      A.shape(), [&](auto& i) { return X(i[0]) * floatImm(3.0); }, "Y");
  PrimFuncRef f = te::createPrimFunc({A, X, Y});
  EXPECT_EQ(f->numOutputs(), 2);
  EXPECT_TRUE(as<Block>(f->body)->allocs.empty());
  auto a = randomTensor({4}, 5);
  unity::Tensor x(DataType::Float32(), {4}), y(DataType::Float32(), {4});
  te::interpretPrimFunc(f, {&a, &x, &y});
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(x.getDouble(i), float(a.getDouble(i)) + 1);
    EXPECT_FLOAT_EQ(y.getDouble(i), (float(a.getDouble(i)) + 1) * 3);
  }
}

TEST(TeCompute, ReducersUseTheirIdentityPerDtype) {
  auto A = te::placeholder({intImm(3), intImm(4)}, DataType::Int32(), "A");
  auto k = te::reduceAxis(intImm(4), "k");
  auto M = te::compute(
      {intImm(3)}, [&](auto& i) { return te::max(A(i[0], k.var), {k}); }, "M");
  auto k2 = te::reduceAxis(intImm(4), "k2");
  auto P = te::compute(
      {intImm(3)}, [&](auto& i) { return te::prod(A(i[0], k2.var), {k2}); }, "P");
  PrimFuncRef f = te::createPrimFunc({A, M, P});
  auto* init = as<BufferStore>(findBlock(f, "M")->init);
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(as<IntImm>(init->value)->value, -2147483648LL);
  EXPECT_EQ(as<IntImm>(as<BufferStore>(findBlock(f, "P")->init)->value)->value, 1);
  EXPECT_EQ(as<FloatImm>(te::reducerIdentity(te::Reducer::Min, DataType::Float32()))->value,
            std::numeric_limits<float>::max());
  unity::Tensor a(DataType::Int32(), {3, 4}), m(DataType::Int32(), {3}), p(DataType::Int32(), {3});
  int vals[12] = {-5, -9, -2, -7, 1, 2, 3, 4, -1, 0, 6, -3};
  for (int i = 0; i < 12; ++i)
    a.setDouble(i, vals[i]);
  te::interpretPrimFunc(f, {&a, &m, &p});
  EXPECT_EQ(m.getDouble(0), -2);
  EXPECT_EQ(m.getDouble(1), 4);
  EXPECT_EQ(m.getDouble(2), 6);
  EXPECT_EQ(p.getDouble(0), -5 * -9 * -2 * -7);
  EXPECT_EQ(p.getDouble(1), 24);
  EXPECT_EQ(p.getDouble(2), 0);
}

TEST(TeCompute, DataDependentReadCoversTheWholeDimension) {
  auto A = te::placeholder({intImm(5), intImm(2)}, DataType::Float32(), "A");
  auto I = te::placeholder({intImm(3)}, DataType::Int64(), "I");
  auto T = te::compute(
      {intImm(3), intImm(2)}, [&](auto& i) { return A(I(i[0]), i[1]); }, "T");
  PrimFuncRef f = te::createPrimFunc({A, I, T});
  auto* blk = findBlock(f, "T");
  ASSERT_EQ(blk->reads.size(), 2u);
  EXPECT_TRUE(sameNode(blk->reads[0].buffer, A.buffer()));
  EXPECT_TRUE(isConstInt(blk->reads[0].region[0].min, 0));
  EXPECT_TRUE(isConstInt(blk->reads[0].region[0].extent, 5));
  EXPECT_TRUE(isConstInt(blk->reads[0].region[1].extent, 1)); // the plain dimension stays a point
  auto a = randomTensor({5, 2}, 6);
  unity::Tensor idx(DataType::Int64(), {3}), t(DataType::Float32(), {3, 2});
  idx.setDouble(0, 4), idx.setDouble(1, 0), idx.setDouble(2, 2);
  te::interpretPrimFunc(f, {&a, &idx, &t});
  EXPECT_EQ(at(t, {0, 1}), at(a, {4, 1}));
  EXPECT_EQ(at(t, {2, 0}), at(a, {2, 0}));
}

TEST(TeCompute, SameBufferReadAtTwoPlacesWidensOnlyTheDifferingDimension) {
  auto A = te::placeholder({intImm(2), intImm(6)}, DataType::Float32(), "A");
  auto D = te::compute(
      {intImm(2), intImm(5)}, [&](auto& i) { return A(i[0], i[1] + 1) - A(i[0], i[1]); }, "D");
  PrimFuncRef f = te::createPrimFunc({A, D});
  auto* blk = findBlock(f, "D");
  ASSERT_EQ(blk->reads.size(), 1u);
  EXPECT_TRUE(isConstInt(blk->reads[0].region[0].extent, 1));
  EXPECT_TRUE(isConstInt(blk->reads[0].region[1].extent, 6));
  auto a = randomTensor({2, 6}, 7);
  unity::Tensor d(DataType::Float32(), {2, 5});
  te::interpretPrimFunc(f, {&a, &d});
  EXPECT_FLOAT_EQ(at(d, {1, 3}), float(at(a, {1, 4}) - at(a, {1, 3})));
}

TEST(TeCompute, FreeVariablesBecomeScalarParameters) {
  auto n = primVar("n");
  auto s = primVar("s");
  auto A = te::placeholder({n * 2}, DataType::Float32(), "A"); // n is not a whole dimension
  auto B = te::compute(
      {n * 2 - 1}, [&](auto& i) { return A(i[0] + 1) + cast(DataType::Float32(), s); }, "B");
  PrimFuncRef f = te::createPrimFunc({A, B});
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_TRUE(sameNode(f->params[2].scalar, n));
  EXPECT_TRUE(sameNode(f->params[3].scalar, s));
  auto a = randomTensor({6}, 8);
  unity::Tensor b(DataType::Float32(), {5});
  te::interpretPrimFunc(f, {&a, &b}, {3, 10});
  EXPECT_FLOAT_EQ(b.getDouble(2), float(a.getDouble(3)) + 10);
  EXPECT_FLOAT_EQ(b.getDouble(4), float(a.getDouble(5)) + 10);
  EXPECT_THROW(te::interpretPrimFunc(f, {&a, &b}, {4, 10}), Error); // A would need 8 elements
}

TEST(TeCompute, MisuseIsReportedAsErrors) {
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto Hidden = te::placeholder({intImm(4)}, DataType::Float32(), "Hidden");
  EXPECT_THROW(A(1, 2), Error);
  EXPECT_THROW(A(floatImm(1.0)), Error);
  EXPECT_THROW(te::placeholder({intImm(-1)}, DataType::Float32(), "N"), Error);
  auto k = te::reduceAxis(intImm(4), "k");
  try {
    te::compute(
        {intImm(1)}, [&](auto&) { return te::sum(A(k.var), {k}) + floatImm(1.0); }, "Bad");
    FAIL() << "nested reduction accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'Bad'"), std::string::npos) << e.what();
  }
  auto B = te::compute(
      A.shape(), [&](auto& i) { return A(i[0]) + Hidden(i[0]); }, "B");
  try {
    te::createPrimFunc({A, B});
    FAIL() << "missing placeholder accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Hidden"), std::string::npos) << e.what();
  }
  EXPECT_THROW(te::createPrimFunc({B, A, Hidden}), Error); // output before inputs
  EXPECT_THROW(te::createPrimFunc({A, Hidden}), Error);    // no output
  EXPECT_THROW(te::createPrimFunc({A, Hidden, B, B}), Error);
  EXPECT_THROW(te::createPrimFunc({A, te::Tensor()}), Error);
}
