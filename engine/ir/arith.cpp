// Analyzer: the variable facts and the public entry points. The rewriting
// itself is in arith_simplify.cpp and friends; see arith.h for the contract.
#include "engine/ir/arith.h"

#include "engine/ir/arith_internal.h"
#include "engine/support/error.h"

namespace unity::arith {

using namespace ir;
using detail::Rewriter;

namespace {

void requireExpr(const PrimExpr& e, const char* where, const char* what) {
  if (!e)
    throw Error(std::string("arith::") + where + ": missing " + what);
}

void requireVar(const Ref<PrimVar>& v, const char* where) {
  if (!v)
    throw Error(std::string("arith::") + where + ": missing variable");
  if (!v->dtype.isIntegral() || v->dtype.lanes != 1)
    throw Error(std::string("arith::") + where + ": variable '" + v->name +
                "' is not a scalar integer (" + v->dtype.str() + ")");
}

} // namespace

void Analyzer::bind(const Ref<PrimVar>& v, const Range& r) {
  requireVar(v, "Analyzer::bind");
  if (!r.min || !r.extent)
    throw Error("arith::Analyzer::bind: range of '" + v->name + "' has a missing min or extent");
  if (!r.min->dtype.isIntegral() || !(r.min->dtype == r.extent->dtype))
    throw Error("arith::Analyzer::bind: range of '" + v->name +
                "' must be integers of one type, got " + r.min->dtype.str() + " and " +
                r.extent->dtype.str());
  Rewriter rw(*this);
  PrimExpr mn = rw.simplify(r.min), ext = rw.simplify(r.extent);
  ConstIntBound bmin = rw.bound(mn), bext = rw.bound(ext);
  VarInfo info{v, bmin, nullptr, nullptr, nullptr};
  if (bext.max > 0) {
    // v <= min + extent - 1, saturating at +inf.
    int64_t lastOffset = bext.max == detail::kPosInf ? detail::kPosInf : bext.max - 1;
    info.bound.max = detail::boundAdd(bmin, {lastOffset, lastOffset}).max;
  }
  info.bound = detail::boundIntersect(info.bound, detail::dtypeRange(v->dtype));
  // Keep the symbolic range for proofs like i < n when it says more than
  // the constant bound.
  if ((!isa<IntImm>(mn) || !isa<IntImm>(ext)) && mn->dtype == v->dtype) {
    info.rangeMin = mn;
    info.rangeMax = rw.simplify(mn + ext - 1);
  }
  vars_[v.get()] = std::move(info);
}

void Analyzer::bind(const Ref<PrimVar>& v, const PrimExpr& value) {
  requireVar(v, "Analyzer::bind");
  requireExpr(value, "Analyzer::bind", "value");
  if (!(value->dtype == v->dtype))
    throw Error("arith::Analyzer::bind: value for '" + v->name + "' is " + value->dtype.str() +
                ", the variable is " + v->dtype.str());
  Rewriter rw(*this);
  PrimExpr s = rw.simplify(value);
  vars_[v.get()] = {v, rw.bound(s), s, nullptr, nullptr};
}

void Analyzer::markNonNegative(const Ref<PrimVar>& v) {
  requireVar(v, "Analyzer::markNonNegative");
  auto it = vars_.find(v.get());
  if (it == vars_.end())
    it = vars_.emplace(v.get(), VarInfo{v, detail::dtypeRange(v->dtype), nullptr, nullptr, nullptr})
             .first;
  it->second.bound.min = std::max<int64_t>(it->second.bound.min, 0);
}

void Analyzer::unbind(const Ref<PrimVar>& v) {
  if (v)
    vars_.erase(v.get());
}

PrimExpr Analyzer::simplify(const PrimExpr& e) {
  requireExpr(e, "simplify", "expression");
  return Rewriter(*this).simplify(e);
}

bool Analyzer::canProve(const PrimExpr& cond) {
  requireExpr(cond, "canProve", "condition");
  if (!cond->dtype.isBool())
    throw Error("arith::canProve: the condition must be bool, got " + cond->dtype.str());
  auto c = asConstInt(Rewriter(*this).simplify(cond));
  return c && *c != 0;
}

bool Analyzer::canProveEqual(const PrimExpr& a, const PrimExpr& b) {
  requireExpr(a, "canProveEqual", "left operand");
  requireExpr(b, "canProveEqual", "right operand");
  if (!(a->dtype == b->dtype))
    return false;
  Rewriter rw(*this);
  if (detail::isIndexType(a->dtype))
    return isConstInt(rw.simplify(a - b), 0);
  return detail::structEqual(rw.simplify(a), rw.simplify(b));
}

ConstIntBound Analyzer::constIntBound(const PrimExpr& e) {
  requireExpr(e, "constIntBound", "expression");
  Rewriter rw(*this);
  ConstIntBound b = rw.bound(e);
  if (detail::isIndexType(e->dtype))
    b = detail::boundIntersect(b, rw.boundSymbolic(rw.simplify(e)));
  return b;
}

PrimExpr simplify(const PrimExpr& e) {
  Analyzer an;
  return an.simplify(e);
}

bool provablyEqual(const PrimExpr& a, const PrimExpr& b) {
  Analyzer an;
  return an.canProveEqual(a, b);
}

namespace detail {

ScopedVar::ScopedVar(Analyzer& an, const Ref<PrimVar>& v) : an_(an), var_(v) {
  auto it = an_.vars_.find(v.get());
  if (it != an_.vars_.end()) {
    had_ = true;
    saved_ = it->second;
  }
}

ScopedVar::~ScopedVar() {
  if (had_)
    an_.vars_[var_.get()] = saved_;
  else
    an_.vars_.erase(var_.get());
}

void ScopedVar::setBound(ConstIntBound b) {
  an_.vars_[var_.get()] = {var_, boundIntersect(b, dtypeRange(var_->dtype)), nullptr, nullptr,
                           nullptr};
}

void ScopedVar::tighten(ConstIntBound b) {
  auto it = an_.vars_.find(var_.get());
  if (it == an_.vars_.end()) {
    setBound(b);
    return;
  }
  it->second.bound = boundIntersect(it->second.bound, b);
}

} // namespace detail

} // namespace unity::arith
