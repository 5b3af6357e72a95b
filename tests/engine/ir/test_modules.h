#pragma once
// A small but complete module used by the structural and well-formedness
// tests: a graph-level `main` that calls a tensor-level `add_one` through
// call_tir and adds a constant, with a symbolic batch dimension `n`.
// Every call builds fresh nodes; ModuleSpec varies one thing at a time.
#include <string>
#include <vector>

#include "engine/ir/module.h"

namespace unity::ir::testing {

struct ModuleSpec {
  std::string prefix;    // prepended to every variable and buffer name
  float constant = 1.0f; // the graph-level constant's first element
  int64_t width = 4;     // the static dimension
  DataType dtype = DataType::Float32();
  std::string target = "llvm"; // main's "target" attribute
  std::string blockName = "compute";
};

inline PrimFuncRef buildAddOne(const ModuleSpec& s) {
  auto pn = primVar(s.prefix + "pn");
  auto a = makeBuffer(s.prefix + "A", s.dtype, {pn, intImm(s.width)});
  auto b = makeBuffer(s.prefix + "B", s.dtype, {pn, intImm(s.width)});
  auto i = primVar(s.prefix + "i"), j = primVar(s.prefix + "j");
  auto vi = primVar(s.prefix + "vi"), vj = primVar(s.prefix + "vj");
  std::vector<PrimExpr> idx{vi, vj};
  Stmt store = make<BufferStore>(b, make<BufferLoad>(a, idx) + makeConst(s.dtype, 1.0), idx);
  std::vector<Range> point{{vi, intImm(1)}, {vj, intImm(1)}};
  Stmt block =
      make<Block>(s.blockName,
                  std::vector<IterVar>{{vi, {intImm(0), pn}, IterType::Spatial},
                                       {vj, {intImm(0), intImm(s.width)}, IterType::Spatial}},
                  std::vector<PrimExpr>{i, j}, std::vector<BufferRegion>{{a, point}},
                  std::vector<BufferRegion>{{b, point}}, nullptr, store);
  Stmt loops = make<For>(i, intImm(0), pn, ForKind::Serial,
                         make<For>(j, intImm(0), intImm(s.width), ForKind::Serial, block));
  return make<PrimFunc>(std::vector<PrimFunc::Param>{{a, nullptr}, {b, nullptr}}, loops,
                        Attrs{{"global_symbol", std::string("add_one")}});
}

inline FunctionRef buildMain(const ModuleSpec& s) {
  auto n = primVar(s.prefix + "n");
  StructInfo tsi = tensorSInfo(s.dtype, std::vector<PrimExpr>{n, intImm(s.width)});
  Var x = makeVar(s.prefix + "x", tsi);
  std::vector<float> values(static_cast<size_t>(s.width), 0.5f);
  values[0] = s.constant;
  Expr c = make<Constant>(Tensor::fromFloats({s.width}, values));
  Var lv0 = makeDataflowVar(s.prefix + "lv0", tsi);
  Var lv1 = makeDataflowVar(s.prefix + "lv1", tsi);
  Var gv = makeVar(s.prefix + "gv", tsi);
  Expr callTir = make<Call>(opRef("call_tir"),
                            std::vector<Expr>{make<GlobalVar>("add_one"),
                                              make<Tuple>(std::vector<Expr>{x}, tupleSInfo({tsi}))},
                            Attrs{}, std::vector<StructInfo>{tsi}, tsi);
  Expr add =
      make<Call>(opRef("add"), std::vector<Expr>{lv0, c}, Attrs{}, std::vector<StructInfo>{}, tsi);
  auto block = make<BindingBlock>(std::vector<Binding>{make<VarBinding>(lv0, callTir),
                                                       make<VarBinding>(lv1, add),
                                                       make<VarBinding>(gv, lv1)},
                                  true);
  Expr body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{block}, gv, tsi);
  return make<Function>(std::vector<Var>{x}, body, tsi, Attrs{{"target", s.target}});
}

inline IRModule buildModule(const ModuleSpec& s = {}) {
  return makeModule({{"main", buildMain(s)}, {"add_one", buildAddOne(s)}});
}

} // namespace unity::ir::testing
