// MakePackedAPI: the shape prologue of the packed calling convention as IR.
// Checks the prologue the pass writes (walking the result), that a second run
// is the identity, well-formedness and the print/parse round trip, and that
// the interpreter and both code generators execute the prologue: right
// shapes compute what the unpacked function computes, a wrong dimension is
// the shape-mismatch status (raw kernel entry, bypassing callKernel's host
// check) or an interpreter error naming the parameter and the dimension.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "engine/build.h"
#include "engine/codegen/c_codegen.h"
#include "engine/codegen/codegen.h"
#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/ir/structural.h"
#include "engine/ir/well_formed.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/tir_lower.h"
#include "tests/engine/te/te_test_util.h"
#include "tests/engine/transform/tir_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::expectWellFormedAndRoundTrips;
using unity::transform::testing::parseFunc;

namespace {

// A and B share the symbolic n; everything else is static.
const char* kAddOne = R"(
@T.prim_func
def f(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n, 4), "float32")):
    T.func_attr({"global_symbol": "f", "num_outputs": 1})
    for i in T.serial(n):
        for j in T.serial(4):
            B[i, j] = A[i, j] + T.float32(1.0)
)";

/// (param, dim) of every call to `op` in f's body.
std::set<std::pair<int64_t, int64_t>> callSites(const PrimFuncRef& f, const std::string& op) {
  std::set<std::pair<int64_t, int64_t>> out;
  walkStmt(f->body, [&](const Stmt& s) {
    auto visit = [&](const PrimExpr& e) {
      walkPrimExpr(e, [&](const PrimExpr& x) {
        auto* c = as<PrimCall>(x);
        if (c && c->op == op) {
          size_t n = c->args.size();
          out.insert({as<IntImm>(c->args[n - 2])->value, as<IntImm>(c->args[n - 1])->value});
        }
      });
    };
    if (auto* l = as<LetStmt>(s))
      visit(l->value);
    if (auto* ev = as<Evaluate>(s))
      visit(ev->value);
  });
  return out;
}

} // namespace

TEST(MakePackedAPI, BindsSymbolicDimsByLetAndAssertsEveryOtherDim) {
  PrimFuncRef f = parseFunc(kAddOne);
  PrimFuncRef g = transform::makePackedAPI(f);
  ASSERT_NE(g.get(), f.get());
  EXPECT_FALSE(transform::hasPackedAPI(*f));
  EXPECT_TRUE(transform::hasPackedAPI(*g));
  EXPECT_EQ(g->attrs.getString(transform::kCallingConvAttr), transform::kCallingConvPacked);

  // The outermost statement binds n itself (the variable of A's shape) to A's dim 0.
  auto* let = as<LetStmt>(g->body);
  ASSERT_TRUE(let);
  EXPECT_EQ(let->var.get(), g->params[0].buffer->shape[0].get());
  auto* value = as<PrimCall>(let->value);
  ASSERT_TRUE(value);
  EXPECT_EQ(value->op, kArgDimIntrinsic);
  EXPECT_EQ(callSites(g, kAssertDimIntrinsic),
            (std::set<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}, {1, 1}}));
  // The original body follows the asserts unchanged.
  auto* seq = as<SeqStmt>(let->body);
  ASSERT_TRUE(seq);
  ASSERT_EQ(seq->seq.size(), 4u);
  EXPECT_TRUE(sameNode(seq->seq.back(), f->body));

  expectWellFormedAndRoundTrips(g);
  EXPECT_EQ(transform::makePackedAPI(g).get(), g.get());
}

TEST(MakePackedAPI, ScalarParamsAreBoundAndInt32ShapeVarsGetACast) {
  PrimFuncRef f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((m,), "float32"), B: T.Buffer((k, m), "float32"), m: T.int64):
    k = T.int32()
    T.func_attr({"global_symbol": "f", "num_outputs": 1})
    for i in T.serial(m):
        B[0, i] = A[i]
)");
  PrimFuncRef g = transform::makePackedAPI(f);
  // m is a scalar parameter: both of its dims are checked, never let-bound.
  EXPECT_EQ(callSites(g, kAssertDimIntrinsic),
            (std::set<std::pair<int64_t, int64_t>>{{0, 0}, {1, 1}}));
  auto* let = as<LetStmt>(g->body);
  ASSERT_TRUE(let);
  EXPECT_EQ(let->var->name, "k");
  EXPECT_EQ(let->value->dtype, DataType::Int32());
  EXPECT_TRUE(as<CastExpr>(let->value));
  expectWellFormedAndRoundTrips(g);
}

TEST(MakePackedAPI, RejectsAShapeVariableOnlyInsideCompoundDims) {
  PrimFuncRef f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n * 2,), "float32"), B: T.Buffer((n * 2,), "float32")):
    T.func_attr({"global_symbol": "f", "num_outputs": 1})
    for i in T.serial(n * 2):
        B[i] = A[i]
)");
  try {
    transform::makePackedAPI(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'n' cannot be bound"), std::string::npos) << e.what();
  }
}

TEST(MakePackedAPI, InterpreterRunsThePrologueAndNamesTheBadDimension) {
  PrimFuncRef f = parseFunc(kAddOne), g = transform::makePackedAPI(f);
  Tensor a = randomTensor({5, 4}, 1, -1.0, 1.0), b1(DataType::Float32(), {5, 4}),
         b2(DataType::Float32(), {5, 4});
  te::interpretPrimFunc(f, {&a, &b1});
  te::interpretPrimFunc(g, {&a, &b2});
  EXPECT_TRUE(allClose(b2, b1, 0.0));

  Tensor wrongStatic(DataType::Float32(), {5, 3}), wrongN(DataType::Float32(), {6, 4});
  for (auto [t, expect] :
       {std::pair{&wrongStatic, "parameter 1 ('B') dimension 1 is 3, expected 4"},
        std::pair{&wrongN, "parameter 1 ('B') dimension 0 is 6, expected 5"}}) {
    try {
      te::interpretPrimFunc(g, {&a, t});
      ADD_FAILURE() << "expected an error for " << expect;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
}

TEST(MakePackedAPI, CompiledEntryChecksShapesFromTheIR) {
  PrimFuncRef g = transform::makePackedAPI(parseFunc(kAddOne));
  std::unique_ptr<codegen::CompiledModule> mods[] = {codegen::compileForHost({{"f", g}}),
                                                     codegen::compileCForHost({{"f", g}})};
  for (auto& mod : mods) {
    auto fn = mod->lookup("f");
    std::vector<float> a(20), b(20, -7.0f);
    for (int i = 0; i < 20; ++i)
      a[size_t(i)] = float(i) * 0.5f;
    void* args[] = {a.data(), b.data()};
    // Raw entry: no host-side check in front of the kernel's own.
    int64_t badStatic[] = {5, 4, 5, 3}, badN[] = {5, 4, 4, 4}, ok[] = {5, 4, 5, 4};
    EXPECT_EQ(fn(args, badStatic, 2), codegen::kKernelShapeMismatch);
    EXPECT_EQ(fn(args, badN, 2), codegen::kKernelShapeMismatch);
    EXPECT_EQ(b[0], -7.0f); // nothing ran
    EXPECT_EQ(fn(args, ok, 1), codegen::kKernelBadArgCount);
    ASSERT_EQ(fn(args, ok, 2), codegen::kKernelOk);
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(b[size_t(i)], a[size_t(i)] + 1.0f) << i;
  }
  // Calling-convention intrinsics outside a packed function are a compile error.
  PrimFuncRef unpacked = make<PrimFunc>(g->params, g->body, g->attrs.without("calling_conv"));
  EXPECT_THROW(codegen::compileForHost({{"f", unpacked}}), Error);
}

TEST(MakePackedAPI, DefaultPipelineBuildsSymbolicKernelsForLlvmAndC) {
  IRModule m = text::parseModule(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        gv: R.Tensor((n, 4), "float32") = R.call_tir(f, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
        R.output(gv)
    return gv
)" + std::string(kAddOne),
                                 "make_packed_api_test");
  for (const char* target : {"llvm", "c"}) {
    BuildOptions opts;
    opts.target = target;
    BuildResult r = build(m, opts);
    ASSERT_TRUE(r.executable) << target;
    EXPECT_TRUE(transform::hasPackedAPI(*cast<PrimFunc>(r.lowered->lookup("f")))) << target;
    for (int64_t n : {1, 3, 9}) {
      std::vector<Tensor> in{randomTensor({n, 4}, uint32_t(n), -2.0, 2.0)};
      auto out = r.executable->runTensors(in);
      ASSERT_EQ(out.size(), 1u);
      ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{n, 4}));
      for (int64_t i = 0; i < n * 4; ++i)
        EXPECT_FLOAT_EQ(float(out[0].getDouble(i)), float(in[0].getDouble(i)) + 1.0f) << target;
    }
  }
}

TEST(MakePackedAPI, EveryModuleOfTheDefaultPipelineRoundTrips) {
  std::filesystem::path dir =
      std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "resources" / "examples";
  for (const char* name : {"mlp.uir", "call_tir.uir"}) {
    SCOPED_TRACE(name);
    BuildOptions opts; // the default pipeline, recorded
    BuildResult r = build(text::parseFile((dir / name).string()), opts);
    bool packed = false;
    for (auto& rec : r.records) {
      if (rec.depth != 1 || !rec.after)
        continue;
      SCOPED_TRACE(rec.name);
      // Tensor functions: the graph level leaves deduced struct info
      // unprinted (see TextExamples.NormalizeWellFormedAndReprintStably).
      std::string text = text::printModule(rec.after);
      IRModule back = text::parseModule(text, name);
      for (auto& [fname, fn] : rec.after->functions) {
        if (isa<PrimFunc>(fn)) {
          EXPECT_TRUE(structuralEqual(back->lookup(fname), fn)) << fname << "\n" << text;
        }
      }
      packed = packed || rec.name == "MakePackedAPI";
    }
    EXPECT_TRUE(packed);
    int kernels = 0;
    for (auto& [fname, fn] : r.lowered->functions)
      if (auto pf = cast<PrimFunc>(fn)) {
        EXPECT_TRUE(transform::hasPackedAPI(*pf)) << fname;
        ++kernels;
      }
    EXPECT_GT(kernels, 0);
  }
}
