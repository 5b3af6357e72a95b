#pragma once
// The operator registry: every graph-level operator (R.add, R.nn.conv2d,
// R.call_tir, ...) with its arity, attribute schema, fusion pattern and
// struct-info deduction.
//
// The registry is an explicit table built on first use by calling one
// registration function per operator family (ops_*.cpp) -- never by static
// initializers, which a static library would silently drop when nothing
// references their translation unit.
//
// deduceStructInfo() is the one entry point the normalizer uses: it checks the
// call against the schema (argument count, attribute names and types) and
// then runs the operator's deduction, which computes the full symbolic output
// struct info. Every failure throws unity::Error naming the operator, each
// operand with its struct info, and the problem, located at the caller's span.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/expr.h"

namespace unity::op {

/// TVM's operator-pattern lattice (values match TVM's OpPatternKind); fusion
/// merges along it: lower values fuse more freely.
enum class OpPattern {
  ElemWise = 0,
  Broadcast = 1,
  Injective = 2,
  CommReduce = 3,
  OutEWiseFusable = 4,
  Tuple = 7,
  Opaque = 8
};
const char* opPatternName(OpPattern p);

struct AttrSpec {
  /// IntOrInts: either one int or a list (split's indices_or_sections).
  enum class Type { Bool, Int, Float, String, DType, Ints, Floats, IntOrInts };
  std::string name;
  Type type;
  bool required = false;
  ir::AttrValue dflt = int64_t(0); // used when absent (unless noneDefault)
  std::string doc;
  bool noneDefault = false; // absent means "none" (e.g. reduce over all axes)
};
const char* attrTypeName(AttrSpec::Type t);

struct OpInfo;

struct DeduceContext {
  const ir::Span* span;       // location for errors
  const OpInfo* op = nullptr; // the operator being deduced (name, attr defaults)
};

using DeduceFn = std::function<ir::StructInfo(const ir::Call& call, const DeduceContext&)>;

struct OpInfo {
  std::string name;
  int minArgs = 0, maxArgs = 0; // maxArgs -1 = variadic
  OpPattern pattern = OpPattern::Opaque;
  std::vector<AttrSpec> attrs;
  DeduceFn deduce;
  std::string doc;

  const AttrSpec* findAttr(std::string_view attr) const;
};

/// The operator called `name`, or null if there is none.
const OpInfo* findOp(std::string_view name);
/// Every registered operator, sorted by name.
const std::vector<const OpInfo*>& allOps();

/// Validates `call` (its callee must be an OpRef of a registered operator)
/// and deduces its struct info. Throws unity::Error located at `span`.
ir::StructInfo deduceStructInfo(const ir::Call& call, const ir::Span& span);

/// Convenience for tests, builders and importers: a call of operator `name`.
ir::Expr callOp(const std::string& name, std::vector<ir::Expr> args, ir::Attrs attrs = {},
                std::vector<ir::StructInfo> sinfoArgs = {});

/// The channel block b of a packed conv2d kernel layout "OIHW<b>o" (weight
/// [O / b, I, KH, KW, b]: output channels split into blocks of b, the block
/// innermost; AlterConvLayout writes it), or 0 for any other layout.
int64_t packedKernelBlock(std::string_view layout);
/// The panel width V of a matmul weight_layout "KN<V>n" (rhs [N / V, K, V]);
/// 0 for anything else.
int64_t packedMatmulPanel(std::string_view layout);

} // namespace unity::op
