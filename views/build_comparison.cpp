#include "views/build_comparison.h"

#include <cmath>
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/runtime/compare.h"
#include "engine/support/error.h"
#include "engine/transform/partition.h"
#include "engine/viz/graph_model.h"
#include "views/background_job.h"

namespace lowerscope {

namespace {

struct Comparison {
  bool ok = false;
  double maxDiff = 0;
  QString report;
};

Comparison compareWithLlvm(const unity::BuildResult& got) {
  Comparison c;
  try {
    unity::BuildOptions o;
    o.record = false;
    unity::ir::IRModule plain = unity::ir::withAttrs(
        got.input,
        got.input->attrs.without("target").without(unity::transform::kTargetAnnotationsAttr));
    unity::BuildResult want = unity::build(plain, o);
    auto inputs = deterministicInputs(want.lowered);
    auto d = unity::runtime::compareTensorLists(got.executable->runTensors(inputs),
                                                want.executable->runTensors(inputs));
    if (!d.structural.empty())
      throw unity::Error("the builds' outputs differ in kind: " + d.structural);
    c.ok = d.same();
    c.maxDiff = d.maxAbs;
    c.report = QObject::tr("Run: %1 output value(s); largest difference to the all-llvm build "
                           "%2 (%3)")
                   .arg(d.elements)
                   .arg(c.maxDiff, 0, 'g', 3)
                   .arg(c.ok ? QObject::tr("same outputs") : QObject::tr("OUTPUTS DIFFER"));
  } catch (const std::exception& e) {
    c.report = QObject::tr("Run and compare failed: %1").arg(QString::fromUtf8(e.what()));
  }
  return c;
}

} // namespace

std::vector<unity::Tensor> deterministicInputs(const unity::ir::IRModule& m) {
  std::string entry = m->contains("main") ? "main" : unity::viz::defaultGraphFunction(m);
  auto* f = unity::ir::as<unity::ir::Function>(m->lookup(entry));
  if (!f)
    throw unity::Error("no graph function to run");
  std::vector<unity::Tensor> out;
  unsigned seed = 1;
  for (auto& p : f->params) {
    auto* t = unity::ir::as<unity::ir::TensorSInfo>(p->sinfo);
    if (!t || !t->shape)
      throw unity::Error("parameter " + p->name + " is not a tensor of known rank");
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(unity::ir::asConstInt(d).value_or(1));
    unity::Tensor x(t->dtype, shape);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, std::sin(double(i * 13 + seed)));
    out.push_back(std::move(x));
    ++seed;
  }
  return out;
}

BuildComparison::BuildComparison(QObject* parent)
    : QObject(parent), job_(new BackgroundJob(this)) {}

bool BuildComparison::isRunning() const { return job_->isRunning(); }

bool BuildComparison::start(std::shared_ptr<const unity::BuildResult> build) {
  if (!build || !build->executable)
    return false;
  return job_->start([build](JobContext&) { return compareWithLlvm(*build); },
                     [this](Comparison c) { Q_EMIT finished(c.ok, c.maxDiff, c.report); });
}

} // namespace lowerscope
