#pragma once
// Internal to the ONNX importer: what a per-operator converter sees.
//
// A converter gets a NodeContext for one ONNX node: typed access to its
// inputs (struct info, and the tensor itself when it is known at import
// time), to its attributes, and emit helpers that append bindings (each
// carrying the node's origin) to the function being built. It reports what
// it cannot handle by calling unsupported(reason); the importer collects
// those per node and throws them together at the end.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "engine/ir/expr.h"
#include "engine/support/tensor.h"

namespace unity::frontend::detail {

/// Thrown by converters (through NodeContext::unsupported); caught per node.
struct Unsupported {
  explicit Unsupported(std::string reason, std::string needsConstant = {})
      : reason(std::move(reason)), needsConstant(std::move(needsConstant)) {}
  std::string reason;
  /// The ONNX value that had to be known at import time, when that is the
  /// cause (see UnsupportedNode::specializable).
  std::string needsConstant;
};

/// A tensor type as ONNX declares it for the elements of a sequence: a dim
/// is an expression (a number, or a dim_param's shape variable) or unknown.
struct ElemType {
  DataType dtype = DataType::Void();
  int ndim = -1;
  std::vector<std::optional<ir::PrimExpr>> dims; // ndim entries when ndim >= 0
};

/// What a sequence or optional value holds (its struct info is Object; the
/// importer keeps the element type here): a sequence of tensors, or an
/// optional of a tensor (`elem`) or of a sequence (`inner`).
struct ContainerType {
  enum class Kind { Sequence, Optional } kind = Kind::Sequence;
  ElemType elem;
  std::shared_ptr<const ContainerType> inner;
};
using ContainerRef = std::shared_ptr<const ContainerType>;

/// A value of the ONNX graph: its expression (Var, Constant or parameter),
/// struct info and, when known at import time, the tensor itself.
///
/// A *symbolic shape value* (the result of Shape and of the arithmetic
/// exporters do on it) has `sym`: an integer (or integral float) tensor of
/// rank 0 or 1 whose elements are expressions over the graph inputs' shape
/// variables. Its consumers read the expressions (NodeContext::symInts), so a
/// Reshape to Concat(Gather(Shape(x), 0), -1) becomes reshape(x, (n, -1)).
/// Its `expr` stays null until a converter needs it as a run-time tensor;
/// NodeContext::in() then binds shape_to_tensor once (materialize).
struct Value {
  ir::Expr expr;
  ir::StructInfo sinfo;
  std::optional<Tensor> data;
  std::optional<std::vector<ir::PrimExpr>> sym;
  /// Set for sequence and optional values (defaulted, so converters may
  /// write Value{expr, sinfo, data, sym}).
  ContainerRef container = nullptr;
};

class NodeContext;

/// A subgraph (an If branch, a Loop or Scan body) converted by the importer
/// in the scope of the node that holds it (NodeContext::subgraph).
struct Subgraph {
  std::vector<ir::Binding> bindings;
  std::vector<Value> outputs; // run-time expressions (symbolic values materialized)
  /// Isolated subgraphs (a body function): the outer values it reads that
  /// are not constants, by ONNX name, and the parameters standing for them.
  std::vector<std::string> captured;
  std::vector<ir::Var> capturedParams;
};
/// Converts `graph` with its inputs bound to `inputs`. Inline (isolated =
/// false): the outer values stay visible (an If branch, same function).
/// Isolated: a separate function, which sees the outer constants and gets a
/// parameter for every other outer value it reads.
using SubgraphFn =
    std::function<Subgraph(const onnx::GraphProto& graph, const std::vector<Value>& inputs,
                           bool isolated, const NodeContext& owner)>;

/// What the importer keeps while building the function; NodeContext appends.
struct GraphState {
  std::vector<ir::Binding> bindings;
  std::map<std::string, Value> values;
  std::map<std::string, int> nameUses; // var name hints already used
  std::vector<std::string> graphOutputs;
  std::string modelDir;
  /// Symbolic values materialized while converting the current node (their
  /// binding is dropped again when the node is refused).
  std::vector<std::string> materialized;
  /// Set by the importer: converts subgraphs (control flow).
  SubgraphFn subgraph;
  /// Graph-level functions added to the module (loop and scan bodies),
  /// shared by the main graph and every subgraph.
  std::vector<std::pair<std::string, ir::BaseFunc>>* functions = nullptr;
};

/// A function or branch body from a binding list: consecutive bindings
/// grouped into blocks (an `if` in a block of its own, the rest in dataflow
/// blocks), and every dataflow variable used outside its block (in a later
/// block, in a branch or by `body`) made a plain Var.
ir::Expr makeSeq(const std::vector<ir::Binding>& bindings, const ir::Expr& body);

class NodeContext {
public:
  NodeContext(GraphState& g, const onnx::NodeProto& node, std::string name, int opset);

  const onnx::NodeProto& node;
  const int opset;
  const std::string& name() const { return name_; }
  std::string origin() const { return name_ + ":" + node.op_type(); }

  // ---- inputs ----
  int numInputs() const { return node.input_size(); }
  /// Input i is given (present and not the empty name).
  bool has(int i) const;
  /// Input i; a symbolic shape value is materialized as a tensor first.
  const Value& in(int i) const;
  /// Input i as it is (a symbolic shape value keeps a null expr).
  const Value& value(int i) const;
  ir::Expr expr(int i) const { return in(i).expr; }
  int rank(int i) const;
  DataType dtype(int i) const;
  std::vector<ir::PrimExpr> shape(int i) const;
  std::vector<int64_t> staticShape(int i, const char* why) const;
  /// The tensor of input i when known at import time, else null.
  const Tensor* constant(int i) const;
  /// A constant integer input (shape, axes, pads...), flattened.
  std::vector<int64_t> constInts(int i, const char* what) const;
  double constScalar(int i, const char* what) const;
  /// The elements of an integer input known at import time: constants, or
  /// expressions over shape variables (a symbolic shape value); nullopt
  /// for a run-time value.
  std::optional<std::vector<ir::PrimExpr>> symInts(int i) const;
  /// symInts, or refused as needConstant when input i is a run-time value.
  std::vector<ir::PrimExpr> shapeInts(int i, const char* what) const;
  /// symInts, or for a run-time value (computed from data) its elements as
  /// fresh shape variables bound at run time (runtimeShape).
  std::vector<ir::PrimExpr> shapeIntsOrRuntime(int i, const char* what);
  /// The elements of a run-time 1-D integer tensor of static length as fresh
  /// shape variables `hint_0`, `hint_1`...: binds tensor_to_shape and a
  /// match_cast that defines them when the executor reads the values. A
  /// non-null `known[k]` is used for element k instead (the match_cast then
  /// checks it at run time). A non-empty `error` is the run-time message of
  /// a negative value (a converter computes a failed check on run-time
  /// operands into the values as -1).
  std::vector<ir::PrimExpr> runtimeShape(const Value& t, const std::string& hint,
                                         const std::vector<ir::PrimExpr>& known = {},
                                         const std::string& error = {});
  /// Refuses because input i must be known at import time and is not.
  [[noreturn]] void needConstant(int i, const std::string& what) const;

  // ---- attributes ----
  const onnx::AttributeProto* attr(const std::string& name) const;
  bool hasAttr(const std::string& name) const { return attr(name) != nullptr; }
  int64_t attrInt(const std::string& name, int64_t dflt) const;
  double attrFloat(const std::string& name, double dflt) const;
  std::string attrString(const std::string& name, const std::string& dflt = {}) const;
  std::vector<int64_t> attrInts(const std::string& name, std::vector<int64_t> dflt = {}) const;
  std::vector<double> attrFloats(const std::string& name) const;
  Tensor attrTensor(const std::string& name) const;

  // ---- emitting ----
  /// Binds a call of operator `op` (struct info deduced now) and returns it.
  Value op(const std::string& op, std::vector<ir::Expr> args, ir::Attrs attrs = {});
  /// For an op whose operands' dims must agree (elementwise / broadcast,
  /// matmul, concat, conv's channels) and may but are not provably equal:
  /// match_casts operands to agree (checked at run time). True when an
  /// operand was replaced.
  bool reconcileDims(const std::string& op, std::vector<ir::Expr>& args, const ir::Attrs& attrs);
  /// Binds any expression with known struct info.
  Value bind(ir::Expr value, ir::StructInfo sinfo);
  Value tupleItem(const Value& tuple, int index);
  static Value constant(Tensor t);
  /// A rank-0 constant of dtype dt.
  static Value scalar(double v, DataType dt);
  /// A symbolic shape value of dtype dt: rank 0 (scalar, one element) or
  /// rank 1. A plain constant when every element is a constant.
  static Value symbolic(std::vector<ir::PrimExpr> elems, bool scalar, DataType dt);
  /// Sets output i of the node.
  void output(int i, Value v);

  /// Binds `value` to a plain (non-dataflow) Var: an `if`, which cannot sit
  /// in a dataflow block.
  Value bindPlain(ir::Expr value, ir::StructInfo sinfo);
  /// Binds match_cast(v, pattern): shape variables first seen in pattern
  /// are defined at run time.
  Value matchCast(const Value& v, ir::StructInfo pattern);
  /// Appends bindings converted elsewhere (a subgraph imported inline).
  void append(const std::vector<ir::Binding>& bindings);
  /// The number of bindings so far, and the bindings after such a mark taken
  /// out again (to outline them into a function: a recurrence's step).
  size_t bindingCount() const;
  std::vector<ir::Binding> takeBindings(size_t from);
  /// The graph attribute `name` (If branches, Loop/Scan bodies); a missing
  /// one or one of another type is a malformed node (unity::Error).
  const onnx::GraphProto& graphAttr(const std::string& name) const;
  /// Converts a graph attribute (see SubgraphFn).
  Subgraph subgraph(const onnx::GraphProto& graph, const std::vector<Value>& inputs,
                    bool isolated) const;
  /// Adds a graph-level function to the module under a fresh name derived
  /// from hint; returns its GlobalVar.
  ir::Expr addFunction(const std::string& hint, ir::BaseFunc f);
  /// The run-time expression of outer value `name` (materialized when it
  /// is a symbolic shape value).
  ir::Expr exprOf(const std::string& name);
  /// The run-time tensor of a symbolic shape value, bound now.
  ir::Expr materialize(const Value& v);

  [[noreturn]] void unsupported(const std::string& reason) const;
  /// Refuses (unsupported) an import-time table -- a constant the converter
  /// builds itself -- of more than 2^24 elements: `what` names it.
  void checkTableSize(double elements, const std::string& what) const;

private:
  GraphState& g_;
  std::string name_;
  size_t firstBinding_;
};

using ConvertFn = std::function<void(NodeContext&)>;
struct OpConverter {
  ConvertFn fn;
  /// Attribute names the converter understands; any other is refused.
  std::vector<std::string> attrs;
};
using ConverterTable = std::map<std::string, OpConverter>;

void addElementwiseConverters(ConverterTable& t);
void addNNConverters(ConverterTable& t);
void addShapeConverters(ConverterTable& t);
void addIndexConverters(ConverterTable& t);
void addRecurrentConverters(ConverterTable& t);
void addQuantConverters(ConverterTable& t);
void addSamplingConverters(ConverterTable& t);
void addSignalConverters(ConverterTable& t);
void addTextConverters(ConverterTable& t);
void addDataDependentConverters(ConverterTable& t);
/// ai.onnx.preview.training optimizers, keyed "ai.onnx.preview.training.Op".
void addTrainingConverters(ConverterTable& t);
/// TopK whose K is not known at import time (onnx_ops_datadep.cpp).
void convertTopKComputedK(NodeContext& c, int axis, bool largest);
void addControlConverters(ConverterTable& t);
void addSequenceConverters(ConverterTable& t);

/// The container type of an ONNX sequence / optional type (null for a
/// tensor type); `dimParam` gives the shape variable of a dim_param, if
/// any. Refuses (Unsupported) maps and nested sequences.
ContainerRef
containerFromType(const onnx::TypeProto& type,
                  const std::function<std::optional<ir::PrimExpr>(const std::string&)>& dimParam);
/// Joins two container types (element dims that differ become unknown);
/// null when they are of different kinds.
ContainerRef joinContainers(const ContainerRef& a, const ContainerRef& b);
bool sameContainer(const ContainerRef& a, const ContainerRef& b);

/// Evaluates a shape-computation node (Gather, Slice, Concat, Squeeze,
/// Unsqueeze, Cast, arithmetic...) whose inputs are symbolic shape values or
/// constants, giving a symbolic shape value. Returns false when the node is
/// not of that kind (its converter runs instead).
bool foldSymbolic(NodeContext& ctx);

/// Evaluates a node whose inputs are all known at import time, for the
/// operators that shape computations use (Shape, Gather, Concat, Cast,
/// arithmetic...). Returns false when the node is not foldable.
bool foldNode(NodeContext& ctx);

/// The most bytes one tensor of a model may declare (1 TiB): larger sizes
/// are refused as corrupt before anything is allocated.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 40;
/// The element count of a tensor of `shape` (dims >= 0); throws
/// unity::Error naming `what`, the shape and the byte size when the count
/// overflows int64 or the bytes exceed kMaxTensorBytes.
int64_t declaredElements(DataType dtype, const std::vector<int64_t>& shape,
                         const std::string& what);

/// TensorProto -> Tensor, reading external data relative to modelDir (and
/// refusing paths that leave it). `what` names the tensor in errors.
/// Throws unity::Error when malformed, Unsupported for other data types.
Tensor tensorFromProto(const onnx::TensorProto& tp, const std::string& modelDir,
                       const std::string& what);

// ---- small helpers shared by the converter files ----
ir::PrimExpr foldMul(const ir::PrimExpr& a, const ir::PrimExpr& b);
/// Whether two dims are known to be equal: the same expression, equal
/// constants, or two symbolic ones whose difference simplifies to 0 (a
/// constant and a symbolic dim never are). For joining the shapes that
/// control flow and sequences bring together.
bool sameDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
int normAxis(const NodeContext& ctx, int64_t axis, int rank);
Tensor int64Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape);
/// Element i of an integer/bool tensor, exactly (floats are truncated).
int64_t intAt(const Tensor& t, int64_t i);
/// Stores an integer exactly in the tensor's own element type.
void setIntAt(Tensor& t, int64_t i, int64_t v);
std::string sanitizeName(const std::string& s);
/// Input 1 of a binary operator with the pre-opset-7 broadcast/axis
/// attributes applied (refuses them from opset 7 on).
Value legacyBroadcastB(NodeContext& c);
/// The `pads` of a convolution or pooling node for `spatial` dims, auto_pad
/// resolved (SAME_* from the static shape of input `dataInput`); k are the
/// kernel sizes. Refuses a kernel size, stride or dilation below 1 first.
std::vector<int64_t> resolvePads(NodeContext& c, int spatial, const std::vector<int64_t>& k,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dil, int dataInput);

} // namespace unity::frontend::detail
