// MakePackedAPI: the packed calling convention as visible IR.
//
// Every kernel is entered as `name(void** args, int64_t* shapes, int32_t
// nargs)`: args[i] is argument i (a buffer's data pointer or a scalar's
// 8-byte slot), `shapes` holds the dimensions of the buffer arguments one
// after the other in parameter order (see engine/codegen/README.md). Before
// this pass the code generators derive the shape prologue from the
// signature; after it the prologue is part of the function body:
//
//   with T.LetStmt(T.arg_dim(0, 0)) as n:          # bind a shape variable
//     T.evaluate(T.assert_dim(T.arg_dim(0, 1) == 4, 0, 1))   # check a dim
//     T.evaluate(T.assert_dim(T.arg_dim(1, 0) == n, 1, 0))
//     <body>
//
// Algorithm. Walk the buffer parameters in order and their dimensions in
// order (the order of `shapes`). A dimension that is a bare shape variable
// not bound yet (scalar parameters count as bound) is bound by a LetStmt of
// that very variable to arg_dim(i, k), cast to the variable's dtype; every
// other dimension (constants, repeated variables, compound expressions)
// becomes `assert_dim(int64(dim) == arg_dim(i, k), i, k)`. The lets wrap the
// asserts, which precede the original body. A compound dimension whose
// variables are never bound bare is rejected here (the caller must pass the
// variable as a scalar parameter), as the code generators did before.
// The function gets attribute calling_conv = "packed", which tells the code
// generators, the interpreter and the well-formedness checker that the shape
// variables are bound by the prologue rather than by the signature. The
// argument count and scalar slots stay implicit (they have no shape to
// check). A function that already has the attribute, or that a library
// kernel implements (attribute library_kernel: the library's code runs, not
// this IR), is returned unchanged.
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;

PrimExpr argDim(int64_t param, int64_t dim) {
  return call(DataType::Int64(), kArgDimIntrinsic, {intImm(param), intImm(dim)});
}

PrimExpr assertDim(PrimExpr cond, int64_t param, int64_t dim) {
  return call(DataType::Bool(), kAssertDimIntrinsic, {std::move(cond), intImm(param), intImm(dim)});
}

bool hasPackedAPI(const PrimFunc& f) {
  return f.attrs.getString(kCallingConvAttr) == kCallingConvPacked;
}

PrimFuncRef makePackedAPI(const PrimFuncRef& f) {
  std::string conv = f->attrs.getString(kCallingConvAttr);
  // Library kernels (attr library_kernel) run the library's code, not ours.
  if (conv == kCallingConvPacked || !f->attrs.getString("library_kernel").empty())
    return f;
  std::string fname = f->attrs.getString("global_symbol", "<prim_func>");
  if (!conv.empty())
    throw Error("MakePackedAPI: function '" + fname + "' has unknown calling convention '" + conv +
                "'");

  std::unordered_set<const PrimVar*> bound;
  for (auto& p : f->params)
    if (p.scalar)
      bound.insert(p.scalar.get());
  std::vector<std::pair<Ref<PrimVar>, PrimExpr>> lets;
  std::vector<Stmt> checks;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const BufferRef& buf = f->params[i].buffer;
    if (!buf)
      continue;
    for (int k = 0; k < buf->ndim(); ++k) {
      const PrimExpr& dim = buf->shape[k];
      PrimExpr actual = argDim(static_cast<int64_t>(i), k);
      if (auto* v = as<PrimVar>(dim); v && !bound.count(v)) {
        bound.insert(v);
        Ref<PrimVar> var = ir::cast<PrimVar>(dim);
        lets.emplace_back(var, v->dtype == DataType::Int64() ? actual : cast(v->dtype, actual));
        continue;
      }
      PrimExpr expected = dim->dtype == DataType::Int64() ? dim : cast(DataType::Int64(), dim);
      checks.push_back(make<Evaluate>(assertDim(eq(actual, expected), static_cast<int64_t>(i), k)));
    }
  }
  for (auto& c : checks)
    walkPrimExpr(as<Evaluate>(c)->value, [&](const PrimExpr& e) {
      if (auto* v = as<PrimVar>(e); v && !bound.count(v))
        throw Error("MakePackedAPI: function '" + fname + "': shape variable '" + v->name +
                    "' cannot be bound: it occurs only inside compound dimensions; pass it as a "
                    "scalar parameter");
    });

  checks.push_back(f->body);
  Stmt body = seqStmt(std::move(checks));
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = make<LetStmt>(it->first, it->second, body);
  return make<PrimFunc>(f->params, body,
                        f->attrs.with(kCallingConvAttr, std::string(kCallingConvPacked)));
}

} // namespace unity::transform
