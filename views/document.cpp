#include "views/document.h"

#include "engine/support/error.h"
#include "engine/viz/graph_model.h"
#include "engine/viz/history.h"

namespace lowerscope {

Document::Document(QObject* parent) : QObject(parent) {}

void Document::setModule(unity::ir::IRModule module, const QString& path) {
  input_ = std::move(module);
  path_ = path;
  records_.clear();
  step_ = 0;
  pickFunction();
  Q_EMIT moduleChanged();
  Q_EMIT historyChanged();
  Q_EMIT currentStepChanged(step_);
}

void Document::setHistory(std::vector<unity::transform::PassRecord> records) {
  records_ = std::move(records);
  Q_EMIT historyChanged();
  step_ = 0; // so that the move to the last step below is announced
  setCurrentStep(stepCount() - 1);
}

int Document::stepCount() const { return input_ ? static_cast<int>(records_.size()) + 1 : 0; }

unity::ir::IRModule Document::moduleAt(int step) const {
  if (!input_ || step < 0 || step >= stepCount())
    return nullptr;
  return unity::viz::moduleAtStep(input_, records_, step);
}

unity::ir::IRModule Document::moduleBefore(int step) const {
  if (!input_ || step < 0 || step >= stepCount())
    return nullptr;
  return unity::viz::moduleBeforeStep(input_, records_, step);
}

unity::ir::IRModule Document::currentModule() const { return moduleAt(step_); }

QString Document::stepName(int step) const {
  if (step == 0)
    return tr("Input");
  if (step < 0 || step > static_cast<int>(records_.size()))
    return {};
  return QString::fromStdString(records_[step - 1].name);
}

int Document::findStep(const QString& spec, QString* error) const {
  try {
    return unity::viz::selectStep(records_, spec.toStdString());
  } catch (const unity::Error& e) {
    if (error)
      *error = QString::fromStdString(e.what());
    return -1;
  }
}

void Document::setCurrentStep(int step) {
  if (step < 0 || step >= stepCount() || step == step_)
    return;
  step_ = step;
  pickFunction();
  Q_EMIT currentStepChanged(step_);
}

void Document::setCurrentFunction(const QString& name) {
  if (name == function_)
    return;
  function_ = name;
  Q_EMIT currentFunctionChanged(function_);
}

void Document::pickFunction() {
  unity::ir::IRModule m = currentModule();
  QString before = function_;
  if (!m) {
    function_.clear();
  } else if (function_.isEmpty() || !m->contains(function_.toStdString())) {
    function_ = QString::fromStdString(unity::viz::defaultGraphFunction(m));
  }
  if (function_ != before)
    Q_EMIT currentFunctionChanged(function_);
}

} // namespace lowerscope
