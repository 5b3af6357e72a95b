// Library kinds ("bring your own codegen"): openblas and dnnl.
//
// claims: a chain head -> [bias add] -> [nn.relu] inside one binding block,
// where every intermediate value has exactly one use (so nothing else needs
// it). openblas heads: matmul / nn.dense of rank-2 float32 tensors, bias of
// rank 1. dnnl head: nn.conv2d (NCHW/OIHW, float32), bias (1, O, 1, 1) or
// (O, 1, 1).
// graphToTir: each graph function whose "target" names the sub-target must be
// exactly one such chain (what PartitionByTarget outlines from a claim); its
// body becomes one call_tir of a new PrimFunc whose "library_kernel"
// attribute names the kernel (engine/runtime/library_kernels.h). Static
// attributes (relu, strides, padding ...) are passed as an int64 constant
// tensor, the last input; for openblas and dnnl its last element is the
// sub-target's -num-cores (0: the library default), which the kernel hands to
// the library before the call. The PrimFunc's body is empty: it only declares
// the signature, which callKernel checks before calling the library.
#include "engine/transform/byoc_library.h"

#include <algorithm>

#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/runtime/library_kernels.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

const Call* opCall(const Expr& e, const char* name) {
  auto* c = as<Call>(e);
  if (!c)
    return nullptr;
  auto* op = as<OpRef>(c->op);
  return op && op->name == name ? c : nullptr;
}

namespace {

const TensorSInfo* tensorOf(const Expr& e) { return as<TensorSInfo>(e->sinfo); }

bool isF32(const Expr& e, int rank) {
  auto* t = tensorOf(e);
  return t && t->dtype == DataType::Float32() && t->ndim == rank && t->shape;
}

bool staticOnes(const TensorSInfo* t, const std::vector<int>& axes) {
  for (int a : axes)
    if (!t->shape || !isConstInt((*t->shape)[a], 1))
      return false;
  return true;
}

} // namespace

const LibraryPattern& openblasPattern() {
  static const LibraryPattern p{
      "openblas",
      [](const Call* c) {
        bool mm = opCall(Expr(c), "matmul") || opCall(Expr(c), "nn.dense");
        return mm && c->args.size() == 2 && isF32(c->args[0], 2) && isF32(c->args[1], 2);
      },
      [](const Expr& b) { return isF32(b, 1); },
      [](const Call* head) {
        return std::string(as<OpRef>(head->op)->name == "matmul" ? "openblas.matmul"
                                                                 : "openblas.dense");
      },
      [](const Call*, bool relu) { return std::vector<int64_t>{relu ? 1 : 0}; },
      /*extend=*/true,
      /*numThreadsParam=*/true,
  };
  return p;
}

const LibraryPattern& dnnlPattern() {
  static const LibraryPattern p{
      "dnnl",
      [](const Call* c) {
        if (!opCall(Expr(c), "nn.conv2d") || c->args.size() != 2)
          return false;
        if (c->attrs.getString("data_layout", "NCHW") != "NCHW" ||
            c->attrs.getString("kernel_layout", "OIHW") != "OIHW")
          return false;
        if (auto od = c->attrs.get<DataType>("out_dtype"); od && *od != DataType::Float32())
          return false;
        return isF32(c->args[0], 4) && isF32(c->args[1], 4);
      },
      [](const Expr& b) {
        auto* t = tensorOf(b);
        if (!t || t->dtype != DataType::Float32() || !t->shape)
          return false;
        if (t->ndim == 4)
          return staticOnes(t, {0, 2, 3});
        return t->ndim == 3 && staticOnes(t, {1, 2});
      },
      [](const Call*) { return std::string("dnnl.conv2d"); },
      [](const Call* c, bool relu) {
        auto two = [&](const char* key, int64_t dflt) {
          auto v = c->attrs.getInts(key, {dflt});
          return v.size() == 1 ? std::vector<int64_t>{v[0], v[0]} : v;
        };
        auto s = two("strides", 1), d = two("dilation", 1);
        auto p = c->attrs.getInts("padding", {0});
        if (p.size() == 1)
          p = {p[0], p[0], p[0], p[0]};
        else if (p.size() == 2)
          p = {p[0], p[1], p[0], p[1]};
        return std::vector<int64_t>{
            s[0],        s[1], p[0], p[1], p[2], p[3], d[0], d[1], c->attrs.getInt("groups", 1),
            relu ? 1 : 0};
      },
      /*extend=*/true,
      /*numThreadsParam=*/true,
  };
  return p;
}

UseCounts countUses(const Expr& body) {
  UseCounts uses;
  postOrderVisit(body, [&](const Expr& e) {
    if (auto* v = as<VarNode>(e))
      uses[v]++;
    // The visitor also visits each binding's own variable: not a use.
    if (auto* seq = as<SeqExpr>(e))
      for (auto& blk : seq->blocks)
        for (auto& b : blk->bindings)
          uses[b->var.get()]--;
  });
  return uses;
}

std::vector<std::vector<size_t>> claimChains(const LibraryPattern& pat, const BindingBlock& blk,
                                             const UseCounts& uses) {
  std::vector<std::vector<size_t>> out;
  const auto& bs = blk.bindings;
  auto singleUser = [&](size_t i, size_t& user) {
    const VarNode* v = bs[i]->var.get();
    auto it = uses.find(v);
    if (it == uses.end() || it->second != 1)
      return false;
    for (size_t j = i + 1; j < bs.size(); ++j) {
      bool hit = false;
      postOrderVisit(bs[j]->value, [&](const Expr& e) { hit |= e.get() == v; });
      if (hit) {
        user = j;
        return true;
      }
    }
    return false;
  };
  std::vector<bool> used(bs.size(), false);
  for (size_t i = 0; i < bs.size(); ++i) {
    auto* head = as<Call>(bs[i]->value);
    if (used[i] || !head || isa<MatchCast>(bs[i]) || !pat.head(head))
      continue;
    std::vector<size_t> chain{i};
    size_t j;
    if (pat.extend && singleUser(chain.back(), j)) {
      auto* add = opCall(bs[j]->value, "add");
      if (add && add->args.size() == 2 && add->args[0].get() == bs[chain.back()]->var.get() &&
          pat.bias(add->args[1]))
        chain.push_back(j);
    }
    if (pat.extend && singleUser(chain.back(), j)) {
      auto* relu = opCall(bs[j]->value, "nn.relu");
      if (relu && relu->args[0].get() == bs[chain.back()]->var.get())
        chain.push_back(j);
    }
    for (size_t k : chain)
      used[k] = true;
    out.push_back(chain);
  }
  return out;
}

int libraryThreadsOf(const target::Target& t) {
  return t.attrs.count("num-cores") ? t.getInt("num-cores", 0) : 0;
}

PassRef libraryGraphToTirPass(const LibraryPattern& pat, const std::string& sub, int numThreads) {
  const LibraryPattern* p = &pat;
  return makePass({"GraphToTIR(" + sub + ")", PassLevel::Graph, 0, {}}, [p, sub, numThreads](
                                                                            const IRModule& m,
                                                                            PassContext&) {
    IRModule out = m;
    for (auto& [name, f] : m->functions) {
      auto* fn = as<Function>(f);
      if (!fn || fn->attrs.getString("target") != sub)
        continue;
      const std::string& fname = name; // clang 14 cannot capture a structured binding
      auto fail = [&](const std::string& why) {
        throw Error("GraphToTIR(" + sub + "): function '" + fname + "' is assigned to " + p->kind +
                    " sub-target '" + sub + "' but " + why);
      };
      auto* seq = as<SeqExpr>(fn->body);
      if (!seq || seq->blocks.size() != 1)
        fail("is not a single binding block");
      const auto& blk = *seq->blocks[0];
      const auto& bs = blk.bindings;
      UseCounts uses = countUses(fn->body);
      auto chains = claimChains(*p, blk, uses);
      std::vector<bool> covered(bs.size(), false);
      for (auto& c : chains)
        for (size_t i : c)
          covered[i] = true;
      for (size_t i = 0; i < bs.size(); ++i)
        if (!covered[i])
          fail("binding '" + bs[i]->var->name + "' is not part of a pattern the kind supports");
      // One call_tir per chain, bound to the chain's last variable (the
      // intermediates have their only use inside the chain), placed where
      // that variable was bound: everything a chain reads is bound earlier.
      std::sort(chains.begin(), chains.end(),
                [](const auto& a, const auto& b) { return a.back() < b.back(); });
      std::vector<Binding> lowered;
      for (auto& chain : chains) {
        auto* head = as<Call>(bs[chain[0]]->value);
        bool hasBias = chain.size() >= 2 && opCall(bs[chain[1]]->value, "add");
        bool relu = chain.size() >= 2 && opCall(bs[chain.back()]->value, "nn.relu") != nullptr;
        std::vector<Expr> ins(head->args.begin(), head->args.end());
        if (hasBias)
          ins.push_back(as<Call>(bs[chain[1]]->value)->args[1]);
        auto params = p->params(head, relu);
        if (p->numThreadsParam)
          params.push_back(numThreads);
        Tensor pt(DataType::Int64(), {static_cast<int64_t>(params.size())});
        std::copy(params.begin(), params.end(), pt.mutableDataAs<int64_t>());
        ins.push_back(make<Constant>(pt));

        std::vector<PrimFunc::Param> fparams;
        int k = 0;
        for (auto& e : ins) {
          auto* t = tensorOf(e);
          if (!t || !t->shape)
            fail("operand " + std::to_string(k) + " of '" + bs[chain[0]]->var->name +
                 "' has no known shape");
          fparams.push_back({makeBuffer("in" + std::to_string(k++), t->dtype, *t->shape), {}});
        }
        const Var& resVar = bs[chain.back()]->var;
        auto* ot = as<TensorSInfo>(resVar->sinfo);
        if (!ot || !ot->shape)
          fail("the result '" + resVar->name + "' has no known shape");
        fparams.push_back({makeBuffer("out", ot->dtype, *ot->shape), {}});
        std::string pfName = freshFunctionName(out, sub + "_" + name);
        Attrs attrs{{"library_kernel", p->kernel(head)},
                    {"target", sub},
                    {"global_symbol", pfName},
                    {"op_pattern", int64_t(op::OpPattern::Opaque)}};
        out = withFunction(out, pfName, make<PrimFunc>(fparams, make<Evaluate>(intImm(0)), attrs));
        StructInfo os = resVar->sinfo;
        Expr call = make<Call>(opRef("call_tir"),
                               std::vector<Expr>{make<GlobalVar>(pfName), make<Tuple>(ins)},
                               Attrs{}, std::vector<StructInfo>{os}, os);
        lowered.push_back(make<VarBinding>(resVar, call, bs[chain.back()]->span));
      }
      Expr body =
          make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(lowered, blk.dataflow)},
                        seq->body, seq->sinfo);
      out = withFunction(out, name,
                         make<Function>(fn->params, body, fn->retSInfo, fn->attrs, fn->pure));
    }
    return out;
  });
}

RuntimeModule libraryRuntime(const runtime::NamedPrimFuncs& funcs, const target::Target&) {
  RuntimeModule r;
  auto lib = std::make_shared<runtime::LibraryModule>(funcs);
  r.note = lib->describe();
  r.compiled = lib;
  for (auto& [n, _] : funcs)
    r.functions.push_back(n);
  return r;
}

const TargetKindHooks& openblasKindHooks() {
  static const TargetKindHooks h{[](const target::Target& t, const std::string& sub) {
                                   return libraryGraphToTirPass(openblasPattern(), sub,
                                                                libraryThreadsOf(t));
                                 },
                                 [](const ir::BindingBlock& b, const UseCounts& u) {
                                   return claimChains(openblasPattern(), b, u);
                                 },
                                 libraryRuntime};
  return h;
}

const TargetKindHooks& dnnlKindHooks() {
  static const TargetKindHooks h{[](const target::Target& t, const std::string& sub) {
                                   return libraryGraphToTirPass(dnnlPattern(), sub,
                                                                libraryThreadsOf(t));
                                 },
                                 [](const ir::BindingBlock& b, const UseCounts& u) {
                                   return claimChains(dnnlPattern(), b, u);
                                 },
                                 libraryRuntime};
  return h;
}

std::vector<std::pair<std::string, TargetKindHooks>> libraryKindHooks() {
  return {{"openblas", openblasKindHooks()}, {"dnnl", dnnlKindHooks()}};
}

} // namespace unity::transform
