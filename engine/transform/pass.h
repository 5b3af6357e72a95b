#pragma once
// Pass infrastructure, after TVM's include/tvm/ir/transform.h, kept small:
//
//   Pass            a named function IRModule -> IRModule (graph, tensor or
//                   module level); calling it goes through the PassContext.
//   Sequential      a pass made of passes; nesting depth is visible to
//                   instruments, so the record shows the pipeline's tree.
//   PassContext     options (opt level, disabled/required passes, config),
//                   instruments, and cancellation; scoped per thread.
//   PassInstrument  called before and after every pass, nested ones too.
//
// What TVM lacks and we add: the instrument sees before *and* after modules
// (shared nodes, not copies), the wall time, and whether anything changed
// (see record.h).
#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/ir/module.h"

namespace unity::transform {

enum class PassLevel { Graph, Tensor, Module };
const char* passLevelName(PassLevel l);

struct PassInfo {
  std::string name;
  PassLevel level = PassLevel::Module;
  int optLevel = 0;                  // the pass runs when the context's optLevel >= this
  std::vector<std::string> required; // names of passes that must run first (documentation)
};

class PassContext;

class Pass {
public:
  explicit Pass(PassInfo info) : info_(std::move(info)) {}
  virtual ~Pass() = default;
  const PassInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

  /// Runs the pass under ctx: checks cancellation, asks whether it should
  /// run (opt level, disabled, instruments), calls the instruments around it.
  ir::IRModule operator()(const ir::IRModule& m, PassContext& ctx) const;
  /// Runs under the thread's current context (PassContext::current()).
  ir::IRModule operator()(const ir::IRModule& m) const;

protected:
  virtual ir::IRModule run(const ir::IRModule& m, PassContext& ctx) const = 0;

private:
  PassInfo info_;
};
using PassRef = std::shared_ptr<const Pass>;

using PassFunction = std::function<ir::IRModule(const ir::IRModule&, PassContext&)>;
PassRef makePass(PassInfo info, PassFunction fn);
/// A pass that applies fn to every graph-level Function (tensor: PrimFunc)
/// of the module, rebuilding the module only when some function changed.
PassRef makeFunctionPass(
    PassInfo info,
    std::function<ir::BaseFunc(const ir::BaseFunc&, const ir::IRModule&, PassContext&)> fn);
PassRef sequential(std::string name, std::vector<PassRef> passes);

class PassInstrument {
public:
  virtual ~PassInstrument() = default;
  /// Return false to skip the pass.
  virtual bool shouldRun(const PassInfo&, const ir::IRModule&) { return true; }
  virtual void runBeforePass(const PassInfo&, const ir::IRModule& /*before*/, int /*depth*/) {}
  virtual void runAfterPass(const PassInfo&, const ir::IRModule& /*before*/,
                            const ir::IRModule& /*after*/, int /*depth*/, double /*ms*/) {}
  /// A pass of the pipeline that PassContext::disabled turned off: it did
  /// not run (the module passes through). Reported so that a record keeps
  /// one step per pass of the pipeline whatever is disabled, and step k
  /// means the same pass in every build of that pipeline.
  virtual void runDisabledPass(const PassInfo&, const ir::IRModule& /*module*/, int /*depth*/) {}
};

/// Thrown when the context's cancel flag is raised between passes.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "build cancelled"; }
};

class PassContext {
public:
  int optLevel = 3;
  std::set<std::string> disabled;
  std::set<std::string> required; // run even when optLevel is too low
  ir::Attrs config;               // pass options, e.g. "tir.vectorize" = false
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  /// Optional: raised by another thread (the GUI's cancel button).
  const std::atomic<bool>* cancel = nullptr;

  bool shouldRun(const PassInfo& info) const;
  int depth() const { return depth_; }

  /// The innermost context of this thread (a default one if none is entered).
  static PassContext& current();

  /// Makes ctx the current context of this thread for the scope's lifetime.
  class Scope {
  public:
    explicit Scope(PassContext& ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

  private:
    PassContext* prev_;
  };

private:
  friend class Pass;
  int depth_ = 0;
};

} // namespace unity::transform
