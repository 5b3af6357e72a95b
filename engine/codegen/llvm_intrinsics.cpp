// Math intrinsics: an LLVM intrinsic where LLVM has one that every backend
// lowers well (exp, log, sqrt, fabs, rounding, sin, cos, pow: these also
// vectorize and constant-fold), a libm call otherwise ("tanhf" for float32,
// "tanh" for float64, resolved by the JIT from the process), and short
// formulas for the composite ones (rsqrt, sigmoid, isnan, isinf, fmod).
#include "engine/codegen/llvm_intrinsics.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <array>
#include <string_view>
#include <utility>

#include "engine/support/error.h"

namespace unity::codegen::detail {

namespace {

constexpr std::array<std::pair<std::string_view, llvm::Intrinsic::ID>, 12> kLLVMIntrinsics = {{
    {"exp", llvm::Intrinsic::exp},
    {"log", llvm::Intrinsic::log},
    {"log2", llvm::Intrinsic::log2},
    {"sqrt", llvm::Intrinsic::sqrt},
    {"fabs", llvm::Intrinsic::fabs},
    {"floor", llvm::Intrinsic::floor},
    {"ceil", llvm::Intrinsic::ceil},
    {"round", llvm::Intrinsic::roundeven}, // half to even, as ONNX, numpy and the interpreter
    {"trunc", llvm::Intrinsic::trunc},
    {"sin", llvm::Intrinsic::sin},
    {"cos", llvm::Intrinsic::cos},
    {"pow", llvm::Intrinsic::pow},
}};

constexpr std::array<std::string_view, 14> kLibmFunctions = {
    "tanh", "erf",   "tan",   "asin",  "acos",  "atan",  "sinh",
    "cosh", "asinh", "acosh", "atanh", "log1p", "expm1", "atan2",
};

llvm::Value* callLibm(llvm::IRBuilderBase& b, std::string_view op,
                      const std::vector<llvm::Value*>& args, DataType t) {
  std::string name(op);
  if (t.bits == 32)
    name += "f";
  llvm::Type* ft = args[0]->getType();
  std::vector<llvm::Type*> params(args.size(), ft);
  llvm::Module* m = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee =
      m->getOrInsertFunction(name, llvm::FunctionType::get(ft, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory(); // errno at most
  }
  return b.CreateCall(callee, args);
}

} // namespace

llvm::Value* emitIntrinsic(llvm::IRBuilderBase& b, const std::string& op,
                           const std::vector<llvm::Value*>& args, DataType argType,
                           DataType resultType, const std::string& where) {
  if (!argType.isFloat() || (argType.bits != 32 && argType.bits != 64))
    throw Error("codegen: in '" + where + "': intrinsic '" + op +
                "' needs float32 or float64 arguments, got " + argType.str());
  llvm::Type* ft = args[0]->getType();
  for (auto& [name, id] : kLLVMIntrinsics)
    if (op == name)
      return b.CreateIntrinsic(id, {ft}, args);
  for (auto name : kLibmFunctions)
    if (op == name)
      return callLibm(b, name, args, argType);

  llvm::Value* x = args[0];
  if (op == "rsqrt") {
    llvm::Value* root = b.CreateIntrinsic(llvm::Intrinsic::sqrt, {ft}, {x});
    return b.CreateFDiv(llvm::ConstantFP::get(ft, 1.0), root);
  }
  if (op == "sigmoid") {
    llvm::Value* e = b.CreateIntrinsic(llvm::Intrinsic::exp, {ft}, {b.CreateFNeg(x)});
    return b.CreateFDiv(llvm::ConstantFP::get(ft, 1.0),
                        b.CreateFAdd(llvm::ConstantFP::get(ft, 1.0), e));
  }
  if (op == "fmod")
    return b.CreateFRem(x, args[1]); // frem has C fmod semantics
  if (op == "isnan" || op == "isinf") {
    if (!resultType.isBool())
      throw Error("codegen: in '" + where + "': intrinsic '" + op + "' must have bool type, not " +
                  resultType.str());
    if (op == "isnan")
      return b.CreateFCmpUNO(x, x);
    llvm::Value* mag = b.CreateIntrinsic(llvm::Intrinsic::fabs, {ft}, {x});
    return b.CreateFCmpOEQ(mag, llvm::ConstantFP::getInfinity(ft));
  }
  throw Error("codegen: in '" + where + "': intrinsic '" + op + "' has no lowering");
}

std::vector<std::string> intrinsicNames() {
  std::vector<std::string> out;
  for (auto& [name, id] : kLLVMIntrinsics)
    out.emplace_back(name);
  for (auto name : kLibmFunctions)
    out.emplace_back(name);
  for (const char* name : {"rsqrt", "sigmoid", "fmod", "isnan", "isinf"})
    out.emplace_back(name);
  return out;
}

} // namespace unity::codegen::detail
