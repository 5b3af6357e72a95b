// Helpers of the reference evaluator's operator files: operand and
// attribute access with the registry's defaults, row-major index
// arithmetic and numpy broadcasting.
#include <cmath>

#include "engine/op/op.h"
#include "engine/runtime/reference.h"
#include "engine/support/error.h"

namespace unity::runtime::reference {

using namespace ir;

RefValue RefValue::tuple(std::vector<RefValue> fields) {
  RefValue v;
  v.v = std::move(fields);
  return v;
}

RefValue RefValue::shape(std::vector<int64_t> dims) {
  RefValue v;
  v.v = std::move(dims);
  return v;
}

// ------------------------------------------------------------------- OpCall

void OpCall::fail(const std::string& msg) const {
  throw Error("reference: R." + info.name + ": " + msg);
}

const Tensor& OpCall::tensor(size_t i) const {
  if (i >= args.size())
    fail("missing operand " + std::to_string(i));
  if (!args[i].isTensor())
    fail("operand " + std::to_string(i) + " must be a tensor");
  return std::get<Tensor>(args[i].v);
}

std::vector<Tensor> OpCall::tensors(size_t i) const {
  if (i >= args.size())
    fail("missing operand " + std::to_string(i));
  auto* fs = args[i].asTuple();
  if (!fs)
    fail("operand " + std::to_string(i) + " must be a tuple of tensors");
  std::vector<Tensor> out;
  for (auto& f : *fs) {
    if (!f.isTensor())
      fail("operand " + std::to_string(i) + " must contain only tensors");
    out.push_back(std::get<Tensor>(f.v));
  }
  return out;
}

std::vector<int64_t> OpCall::shape(size_t i) const {
  if (i >= args.size())
    fail("missing operand " + std::to_string(i));
  if (auto* s = args[i].asShape())
    return *s;
  fail("operand " + std::to_string(i) + " must be a shape");
}

namespace {
const AttrValue& attrOf(const OpCall& c, const std::string& name) {
  if (const AttrValue* v = c.call.attrs.find(name))
    return *v;
  const op::AttrSpec* spec = c.info.findAttr(name);
  if (!spec)
    c.fail("has no attribute '" + name + "'");
  if (spec->noneDefault)
    c.fail("attribute '" + name + "' is absent and has no default");
  return spec->dflt;
}
} // namespace

int64_t OpCall::attrInt(const std::string& name) const {
  const AttrValue& v = attrOf(*this, name);
  if (auto* i = std::get_if<int64_t>(&v))
    return *i;
  if (auto* b = std::get_if<bool>(&v))
    return *b;
  fail("attribute '" + name + "' must be an int");
}

double OpCall::attrFloat(const std::string& name) const {
  const AttrValue& v = attrOf(*this, name);
  if (auto* d = std::get_if<double>(&v))
    return *d;
  if (auto* i = std::get_if<int64_t>(&v))
    return static_cast<double>(*i);
  fail("attribute '" + name + "' must be a number");
}

bool OpCall::attrBool(const std::string& name) const {
  const AttrValue& v = attrOf(*this, name);
  if (auto* b = std::get_if<bool>(&v))
    return *b;
  if (auto* i = std::get_if<int64_t>(&v))
    return *i != 0;
  fail("attribute '" + name + "' must be a bool");
}

std::string OpCall::attrString(const std::string& name) const {
  const AttrValue& v = attrOf(*this, name);
  if (auto* s = std::get_if<std::string>(&v))
    return *s;
  fail("attribute '" + name + "' must be a string");
}

std::vector<int64_t> OpCall::attrInts(const std::string& name) const {
  const AttrValue& v = attrOf(*this, name);
  if (auto* xs = std::get_if<std::vector<int64_t>>(&v))
    return *xs;
  if (auto* i = std::get_if<int64_t>(&v))
    return {*i};
  fail("attribute '" + name + "' must be a list of ints");
}

DataType OpCall::attrDType(const std::string& name) const {
  const AttrValue* v = call.attrs.find(name);
  if (!v) {
    const op::AttrSpec* spec = info.findAttr(name);
    if (!spec || spec->noneDefault)
      return DataType::Void();
    v = &spec->dflt;
  }
  if (auto* t = std::get_if<DataType>(v))
    return *t;
  if (auto* s = std::get_if<std::string>(v)) {
    if (s->empty())
      return DataType::Void();
    if (auto t = DataType::parse(*s))
      return *t;
  }
  fail("attribute '" + name + "' must be a dtype");
}

bool OpCall::hasAttr(const std::string& name) const {
  if (call.attrs.has(name))
    return true;
  const op::AttrSpec* spec = info.findAttr(name);
  return spec && !spec->noneDefault;
}

int OpCall::axis(int64_t a, int ndim) const {
  if (a < -ndim || a >= ndim)
    fail("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(ndim));
  return static_cast<int>(a < 0 ? a + ndim : a);
}

// ------------------------------------------------------------------ indices

std::vector<int64_t> stridesOf(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

int64_t numelOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + idx[d];
  return flat;
}

double at(const Tensor& x, const std::vector<int64_t>& idx) {
  return x.getDouble(ravel(idx, x.shape()));
}

std::vector<int64_t> broadcastShape(const OpCall& c, const std::vector<int64_t>& a,
                                    const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) { // k counts from the right
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      c.fail("shapes " + Tensor::shapeStr(a) + " and " + Tensor::shapeStr(b) + " do not broadcast");
    out[n - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> broadcastIndex(const std::vector<int64_t>& outIdx,
                                    const std::vector<int64_t>& shape) {
  size_t off = outIdx.size() - shape.size();
  std::vector<int64_t> idx(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    idx[d] = shape[d] == 1 ? 0 : outIdx[off + d];
  return idx;
}

void store(Tensor& t, int64_t flat, double v) {
  DataType dt = t.dtype();
  if (dt.isBool())
    v = v != 0 ? 1 : 0;
  else if (dt.isIntegral())
    v = std::trunc(v);
  t.setDouble(flat, v);
}

} // namespace unity::runtime::reference
