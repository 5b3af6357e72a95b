#include "engine/ir/node.h"

namespace unity::ir {

const char* kindName(NodeKind k) {
  switch (k) {
#define K(x)                                                                                       \
  case NodeKind::x:                                                                                \
    return #x;
    K(IntImm)
    K(FloatImm)
    K(PrimVar) K(Add) K(Sub) K(Mul) K(Div) K(FloorDiv) K(FloorMod) K(Min) K(Max) K(EQ) K(NE) K(LT)
        K(LE) K(GT) K(GE) K(And) K(Or) K(Not) K(Select) K(Cast) K(BufferLoad) K(PrimCall) K(PrimLet)
            K(BufferStore) K(For) K(Block) K(LetStmt) K(IfThenElse) K(SeqStmt) K(Evaluate)
                K(Allocate) K(Buffer) K(ObjectSInfo) K(PrimSInfo) K(ShapeSInfo) K(TensorSInfo)
                    K(TupleSInfo) K(FuncSInfo) K(Var) K(DataflowVar) K(Constant) K(Tuple)
                        K(TupleGetItem) K(Call) K(ShapeExpr) K(PrimValue) K(StringImm) K(If)
                            K(SeqExpr) K(GlobalVar) K(OpRef) K(Function) K(ExternFunc) K(PrimFunc)
                                K(VarBinding) K(MatchCast) K(BindingBlock) K(IRModule)
#undef K
  }
  return "?";
}

} // namespace unity::ir
