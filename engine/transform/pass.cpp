#include "engine/transform/pass.h"

#include <chrono>

namespace unity::transform {

const char* passLevelName(PassLevel l) {
  switch (l) {
  case PassLevel::Graph:
    return "graph";
  case PassLevel::Tensor:
    return "tensor";
  case PassLevel::Module:
    return "module";
  }
  return "?";
}

namespace {
thread_local PassContext* tlsCurrent = nullptr;

PassContext& defaultContext() {
  thread_local PassContext ctx;
  return ctx;
}

class LambdaPass : public Pass {
public:
  LambdaPass(PassInfo info, PassFunction fn) : Pass(std::move(info)), fn_(std::move(fn)) {}

protected:
  ir::IRModule run(const ir::IRModule& m, PassContext& ctx) const override { return fn_(m, ctx); }

private:
  PassFunction fn_;
};

class SequentialPass : public Pass {
public:
  SequentialPass(std::string name, std::vector<PassRef> passes)
      : Pass(PassInfo{std::move(name), PassLevel::Module, 0, {}}), passes_(std::move(passes)) {}

protected:
  ir::IRModule run(const ir::IRModule& m, PassContext& ctx) const override {
    ir::IRModule cur = m;
    for (auto& p : passes_)
      cur = (*p)(cur, ctx);
    return cur;
  }

private:
  std::vector<PassRef> passes_;
};
} // namespace

bool PassContext::shouldRun(const PassInfo& info) const {
  if (disabled.count(info.name))
    return false;
  if (required.count(info.name))
    return true;
  return optLevel >= info.optLevel;
}

PassContext& PassContext::current() { return tlsCurrent ? *tlsCurrent : defaultContext(); }

PassContext::Scope::Scope(PassContext& ctx) : prev_(tlsCurrent) { tlsCurrent = &ctx; }
PassContext::Scope::~Scope() { tlsCurrent = prev_; }

ir::IRModule Pass::operator()(const ir::IRModule& m, PassContext& ctx) const {
  if (ctx.cancel && ctx.cancel->load())
    throw Cancelled();
  if (ctx.disabled.count(info_.name)) {
    for (auto& inst : ctx.instruments)
      inst->runDisabledPass(info_, m, ctx.depth_);
    return m;
  }
  if (!ctx.shouldRun(info_))
    return m;
  for (auto& inst : ctx.instruments)
    if (!inst->shouldRun(info_, m))
      return m;
  int depth = ctx.depth_;
  for (auto& inst : ctx.instruments)
    inst->runBeforePass(info_, m, depth);
  auto t0 = std::chrono::steady_clock::now();
  ir::IRModule out;
  {
    ++ctx.depth_;
    struct Restore {
      int& d;
      int v;
      ~Restore() { d = v; }
    } restore{ctx.depth_, depth};
    out = run(m, ctx);
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto& inst : ctx.instruments)
    inst->runAfterPass(info_, m, out, depth, ms);
  return out;
}

ir::IRModule Pass::operator()(const ir::IRModule& m) const {
  return (*this)(m, PassContext::current());
}

PassRef makePass(PassInfo info, PassFunction fn) {
  return std::make_shared<LambdaPass>(std::move(info), std::move(fn));
}

PassRef makeFunctionPass(
    PassInfo info,
    std::function<ir::BaseFunc(const ir::BaseFunc&, const ir::IRModule&, PassContext&)> fn) {
  PassLevel level = info.level;
  return makePass(std::move(info), [fn, level](const ir::IRModule& m, PassContext& ctx) {
    bool changed = false;
    std::vector<ir::IRModuleNode::Entry> out;
    out.reserve(m->functions.size());
    for (auto& [name, f] : m->functions) {
      bool applies = level == PassLevel::Tensor  ? ir::isa<ir::PrimFunc>(f)
                     : level == PassLevel::Graph ? ir::isa<ir::Function>(f)
                                                 : true;
      ir::BaseFunc nf = applies ? fn(f, m, ctx) : f;
      changed |= !ir::sameNode(nf, f);
      out.emplace_back(name, nf);
    }
    return changed ? ir::makeModule(std::move(out), m->attrs) : m;
  });
}

PassRef sequential(std::string name, std::vector<PassRef> passes) {
  return std::make_shared<SequentialPass>(std::move(name), std::move(passes));
}

} // namespace unity::transform
