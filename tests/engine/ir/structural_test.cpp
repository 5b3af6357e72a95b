#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include "engine/ir/structural.h"
#include "engine/ir/structural_digest.h"
#include "engine/support/error.h"
#include "tests/engine/ir/test_modules.h"

using namespace unity;
using namespace unity::ir;
using unity::ir::testing::buildAddOne;
using unity::ir::testing::buildMain;
using unity::ir::testing::buildModule;
using unity::ir::testing::ModuleSpec;

namespace {

void expectSame(const Ref<Node>& a, const Ref<Node>& b) {
  EXPECT_TRUE(structuralEqual(a, b));
  EXPECT_TRUE(structuralEqual(b, a));
  EXPECT_EQ(structuralHash(a), structuralHash(b));
}

void expectDifferent(const Ref<Node>& a, const Ref<Node>& b) {
  EXPECT_FALSE(structuralEqual(a, b));
  EXPECT_FALSE(structuralEqual(b, a));
  EXPECT_NE(structuralHash(a), structuralHash(b));
}

ModuleSpec with(void (*edit)(ModuleSpec&)) {
  ModuleSpec s;
  edit(s);
  return s;
}

ModuleSpec named(const std::string& prefix) {
  ModuleSpec s;
  s.prefix = prefix;
  return s;
}

} // namespace

TEST(StructuralEqual, RenamedModuleIsEqualAndHashesEqual) {
  IRModule a = buildModule(named("a_"));
  IRModule b = buildModule(named("other_"));
  ASSERT_FALSE(sameNode(a, b));
  expectSame(a, b);
  expectSame(a->lookup("main"), b->lookup("main"));
  expectSame(a->lookup("add_one"), b->lookup("add_one"));
}

TEST(StructuralEqual, IndependentBuildsHashEqual) {
  EXPECT_EQ(structuralHash(buildModule()), structuralHash(buildModule()));
  EXPECT_EQ(structuralHashHex(buildModule()), structuralHashHex(buildModule()));
  EXPECT_TRUE(structuralEqual(buildModule(), buildModule()));
}

TEST(StructuralEqual, ChangedConstantDiffers) {
  expectDifferent(buildModule(), buildModule(with([](ModuleSpec& s) { s.constant = 2.0f; })));
}

TEST(StructuralEqual, ChangedAttrDiffers) {
  expectDifferent(buildModule(), buildModule(with([](ModuleSpec& s) { s.target = "c"; })));
  IRModule m = buildModule();
  expectDifferent(m, withAttrs(m, Attrs{{"opt_level", int64_t(3)}}));
}

TEST(StructuralEqual, ChangedDtypeDiffers) {
  expectDifferent(buildModule(),
                  buildModule(with([](ModuleSpec& s) { s.dtype = DataType::Float(16); })));
  expectDifferent(primVar("x", DataType::Int32()), primVar("x", DataType::Int64()));
}

TEST(StructuralEqual, ChangedShapeDiffers) {
  expectDifferent(buildModule(), buildModule(with([](ModuleSpec& s) { s.width = 8; })));
  expectDifferent(tensorSInfo(DataType::Float32(), std::vector<int64_t>{2, 3}),
                  tensorSInfo(DataType::Float32(), std::vector<int64_t>{3, 2}));
  expectDifferent(tensorSInfo(DataType::Float32(), std::vector<int64_t>{2, 3}),
                  tensorSInfo(DataType::Float32(), 2));
}

TEST(StructuralEqual, BlockNameCounts) {
  // Schedule traces address blocks by name, so a renamed block is a different workload.
  expectDifferent(buildAddOne({}), buildAddOne(with([](ModuleSpec& s) { s.blockName = "other"; })));
}

TEST(StructuralEqual, FreeVariablesMapOneToOne) {
  auto x = primVar("x"), y = primVar("y");
  expectSame(x + 1, y + 1);
  expectDifferent(x + x, x + y);
  expectDifferent(x + y, y + y);
  expectSame(x + y, y + x); // x<->y is a consistent renaming
  expectDifferent(x + 1, x + 2);
  expectDifferent(x + 1, x - 1);
}

TEST(StructuralEqual, GraphVarKindsMatter) {
  StructInfo si = tensorSInfo(DataType::Float32(), std::vector<int64_t>{4});
  expectSame(makeVar("a", si), makeVar("b", si));
  expectDifferent(makeVar("a", si), makeDataflowVar("a", si));
  expectDifferent(makeVar("a", si), makeVar("a", tensorSInfo(DataType::Float32(), 1)));
}

TEST(StructuralEqual, ParametersBindByPosition) {
  StructInfo si = tensorSInfo(DataType::Float32(), std::vector<int64_t>{4});
  auto fn = [&](bool returnFirst) {
    Var p = makeVar("p", si), q = makeVar("q", si);
    return make<Function>(std::vector<Var>{p, q}, returnFirst ? p : q, si);
  };
  expectSame(fn(true), fn(true));
  expectDifferent(fn(true), fn(false));
}

TEST(StructuralEqual, ShapeVariableTiedToScalarParameter) {
  // f(A: [n], n) ties A's extent to the scalar; g(A: [m], k) does not.
  auto f = [](bool tied) {
    auto m = primVar("m"), k = primVar("k");
    auto a = makeBuffer("A", DataType::Float32(), {m});
    auto i = primVar("i");
    Stmt body = make<For>(i, intImm(0), tied ? PrimExpr(m) : PrimExpr(k), ForKind::Serial,
                          make<BufferStore>(a, floatImm(0.0), std::vector<PrimExpr>{i}));
    return make<PrimFunc>(std::vector<PrimFunc::Param>{{a, nullptr}, {nullptr, tied ? m : k}},
                          body);
  };
  expectSame(f(true), f(true));
  expectSame(f(false), f(false));
  expectDifferent(f(true), f(false));
}

TEST(StructuralEqual, ModuleIsANameMap) {
  ModuleSpec s;
  IRModule ab = makeModule({{"main", buildMain(s)}, {"add_one", buildAddOne(s)}});
  IRModule ba = makeModule({{"add_one", buildAddOne(s)}, {"main", buildMain(s)}});
  expectSame(ab, ba);
  IRModule renamed = makeModule({{"main", buildMain(s)}, {"add_two", buildAddOne(s)}});
  expectDifferent(ab, renamed);
  IRModule fewer = makeModule({{"main", buildMain(s)}});
  expectDifferent(ab, fewer);
}

TEST(StructuralEqual, GlobalNamesAndSymbolsCount) {
  expectSame(make<GlobalVar>("f"), make<GlobalVar>("f"));
  expectDifferent(make<GlobalVar>("f"), make<GlobalVar>("g"));
  expectDifferent(make<ExternFunc>("cblas_sgemm"), make<ExternFunc>("cblas_dgemm"));
  expectDifferent(opRef("add"), opRef("multiply"));
  expectDifferent(make<StringImm>("a"), make<StringImm>("b"));
}

TEST(StructuralEqual, SpansAreIgnored) {
  StructInfo si = tensorSInfo(DataType::Float32(), std::vector<int64_t>{4});
  auto build = [&](Span span) {
    Var x = makeVar("x", si), y = makeVar("y", si);
    auto blk = make<BindingBlock>(std::vector<Binding>{make<VarBinding>(y, x, span)}, false);
    return make<Function>(std::vector<Var>{x},
                          make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, y, si), si);
  };
  expectSame(build({}), build({"model.onnx", 3, 7, {"Relu_1:Relu"}}));
}

TEST(StructuralEqual, FloatsCompareBitwise) {
  expectSame(floatImm(0.5), floatImm(0.5));
  expectDifferent(floatImm(0.0), floatImm(-0.0));
  expectDifferent(floatImm(1.0), floatImm(1.0 + 1e-12, DataType::Float(64)));
}

TEST(StructuralEqual, NullRefs) {
  EXPECT_TRUE(structuralEqual(nullptr, nullptr));
  EXPECT_FALSE(structuralEqual(primVar("x"), nullptr));
  EXPECT_FALSE(structuralEqual(nullptr, primVar("x")));
  EXPECT_EQ(structuralHash(nullptr), structuralHash(nullptr));
  EXPECT_NE(structuralHash(nullptr), structuralHash(primVar("x")));
}

TEST(StructuralEqual, DifferentFamiliesDiffer) {
  auto x = primVar("x");
  auto buf = makeBuffer("A", DataType::Float32(), {intImm(4)});
  expectDifferent(x, buf);
  expectDifferent(intImm(4), make<PrimValue>(intImm(4)));
  expectDifferent(objectSInfo(), make<ShapeSInfo>(-1));
}

TEST(StructuralHash, HexIsSixteenLowercaseDigitsOfTheHash) {
  IRModule m = buildModule();
  std::string hex = structuralHashHex(m);
  ASSERT_EQ(hex.size(), 16u);
  EXPECT_EQ(std::stoull(hex, nullptr, 16), structuralHash(m));
  for (char c : hex)
    EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << hex;
}

TEST(StructuralHash, GoldenValueGuardsStabilityAcrossProcessesAndMachines) {
  // This value was computed once and written here by hand. The tuning
  // database stores structural hashes, so they must not change between
  // runs, processes, machines or builds; if this fails, the hash function
  // (or the encoding of a node) changed and stored databases no longer match.
  EXPECT_EQ(structuralHashHex(buildModule()), "88be091fb0e1bdcf");
}

TEST(StructuralHash, ForkedChildComputesTheSameHash) {
  // The child allocates unrelated nodes first and uses other names, so any
  // dependence on addresses or names would show up as a different value.
  std::string parent = structuralHashHex(buildModule(named("parent_")));
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    std::vector<PrimExpr> padding;
    for (int i = 0; i < 1000; ++i)
      padding.push_back(primVar("pad") + i);
    std::string child = structuralHashHex(buildModule(named("child_process_")));
    ssize_t written = write(fds[1], child.data(), child.size());
    _exit(written == static_cast<ssize_t>(child.size()) ? 0 : 1);
  }
  close(fds[1]);
  char buf[32] = {};
  ssize_t got = 0, r = 0;
  while ((r = read(fds[0], buf + got, sizeof(buf) - 1 - static_cast<size_t>(got))) > 0)
    got += r;
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(got)), parent);
}

TEST(StructuralEqual, MappingIsBijectiveAcrossScopes) {
  // Two sibling loops sharing one loop variable do not match two loops with
  // distinct variables: i would have to correspond to both j and k.
  auto a = makeBuffer("A", DataType::Float32(), {intImm(8)});
  auto loop = [&](const Ref<PrimVar>& v) {
    return make<For>(v, intImm(0), intImm(8), ForKind::Serial,
                     make<BufferStore>(a, floatImm(0.0), std::vector<PrimExpr>{v}));
  };
  auto i = primVar("i"), j = primVar("j"), k = primVar("k");
  Stmt shared = seqStmt({loop(i), loop(i)});
  Stmt distinct = seqStmt({loop(j), loop(k)});
  expectDifferent(shared, distinct);
  auto l = primVar("l");
  expectSame(shared, seqStmt({loop(l), loop(l)}));
}

TEST(StructuralEqual, BindingDetailsCount) {
  StructInfo si = tensorSInfo(DataType::Float32(), std::vector<int64_t>{4});
  auto build = [&](bool dataflow, int64_t axis, bool matchCast) {
    Var x = makeVar("x", si), y = makeVar("y", si);
    Expr call = make<Call>(opRef("sum"), std::vector<Expr>{x}, Attrs{{"axis", axis}},
                           std::vector<StructInfo>{}, si);
    Binding b = matchCast ? Binding(make<MatchCast>(y, call, si)) : make<VarBinding>(y, call);
    auto blk = make<BindingBlock>(std::vector<Binding>{b}, dataflow);
    return make<Function>(std::vector<Var>{x},
                          make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, y, si), si);
  };
  expectSame(build(false, 0, false), build(false, 0, false));
  expectDifferent(build(false, 0, false), build(true, 0, false));
  expectDifferent(build(false, 0, false), build(false, 1, false));
  expectDifferent(build(false, 0, false), build(false, 0, true));
}

TEST(StructuralEqual, LoopKindAndBufferScopeCount) {
  auto build = [](ForKind kind, const std::string& scope) {
    auto a = makeBuffer("A", DataType::Float32(), {intImm(8)}, scope);
    auto i = primVar("i");
    return make<For>(i, intImm(0), intImm(8), kind,
                     make<BufferStore>(a, floatImm(0.0), std::vector<PrimExpr>{i}));
  };
  expectSame(build(ForKind::Serial, "global"), build(ForKind::Serial, "global"));
  expectDifferent(build(ForKind::Serial, "global"), build(ForKind::Parallel, "global"));
  expectDifferent(build(ForKind::Serial, "global"), build(ForKind::Serial, "local"));
}

TEST(StructuralHasher, EqualConstantsHashEqualWhereverTheirBytesLive) {
  // 64 x 128 floats: above kDigestFrom, so the bytes go in as their digest.
  std::vector<float> values(64 * 128);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 97) * 0.25f;
  const Expr a = make<Constant>(Tensor::fromFloats({64, 128}, values));
  const Expr sameBytes = make<Constant>(Tensor::fromFloats({64, 128}, values)); // own storage
  values[4000] += 1.0f;
  const Expr oneChanged = make<Constant>(Tensor::fromFloats({64, 128}, values));
  const Expr small = make<Constant>(Tensor::fromFloats({4}, std::vector<float>{1, 2, 3, 4}));
  const Expr smallToo = make<Constant>(Tensor::fromFloats({4}, std::vector<float>{1, 2, 3, 4}));
  const Expr smallOther = make<Constant>(Tensor::fromFloats({4}, std::vector<float>{1, 2, 3, 5}));
  ASSERT_GE(as<Constant>(a)->data.nbytes(), StructuralHasher::kDigestFrom);

  StructuralHasher hash;
  const uint64_t ha = hash(a);
  EXPECT_EQ(hash(a), ha); // cached digest, same value
  EXPECT_EQ(hash(sameBytes), ha);
  EXPECT_NE(hash(oneChanged), ha);
  EXPECT_EQ(hash(small), hash(smallToo));
  EXPECT_NE(hash(small), hash(smallOther));
  EXPECT_EQ(hash.digests(), 3u); // a, sameBytes, oneChanged: each hashed once
  // Another hasher agrees (values are comparable within the process).
  StructuralHasher other;
  EXPECT_EQ(other(sameBytes), ha);
  // A tuple of the same constant twice and of two equal ones hash equal, as
  // structurally equal nodes must.
  const Expr t1 = make<Tuple>(std::vector<Expr>{a, a});
  const Expr t2 = make<Tuple>(std::vector<Expr>{a, sameBytes});
  ASSERT_TRUE(structuralEqual(t1, t2));
  EXPECT_EQ(hash(t1), hash(t2));
  EXPECT_NE(hash(t1), hash(make<Tuple>(std::vector<Expr>{a, oneChanged})));
}
