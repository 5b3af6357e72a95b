#include "views/target_setup.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>

#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/partition.h"
#include "views/document.h"

namespace lowerscope {

namespace {

/// One change of the assignments: redo sets `after`, undo `before`.
class AssignmentCommand : public QUndoCommand {
public:
  AssignmentCommand(TargetSetup* s, TargetAssignments before, TargetAssignments after,
                    const QString& text)
      : QUndoCommand(text), setup_(s), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { setup_->applyEdit(after_); }
  void undo() override { setup_->applyEdit(before_); }

private:
  TargetSetup* setup_;
  TargetAssignments before_, after_;
};

QString errorText(const std::exception& e) { return QString::fromUtf8(e.what()); }

} // namespace

TargetSetup::TargetSetup(const Document* document, QObject* parent)
    : QObject(parent), document_(document), undo_(new QUndoStack(this)) {}

void TargetSetup::forgetAssignments() {
  undo_->clear();
  if (!assignments_.empty()) {
    assignments_.clear();
    Q_EMIT assignmentsChanged();
  }
}

QString TargetSetup::validateTarget(const QString& text) {
  if (text.trimmed().isEmpty())
    return {};
  try {
    unity::target::CompositeTarget::parse(text.toStdString());
    return {};
  } catch (const std::exception& e) {
    QString m = errorText(e);
    return m.isEmpty() ? tr("invalid target") : m;
  }
}

bool TargetSetup::setCompositeTarget(const QString& text, QString* error) {
  QString message = validateTarget(text);
  if (!message.isEmpty()) {
    if (error)
      *error = message;
    return false;
  }
  QString canonical;
  if (!text.trimmed().isEmpty())
    canonical =
        QString::fromStdString(unity::target::CompositeTarget::parse(text.toStdString()).str());
  if (canonical != target_) {
    target_ = canonical;
    Q_EMIT targetChanged();
  }
  return true;
}

QStringList TargetSetup::subTargets() const {
  QStringList out;
  if (target_.isEmpty())
    return out;
  for (auto& n : unity::target::CompositeTarget::parse(target_.toStdString()).names())
    out << QString::fromStdString(n);
  return out;
}

QString TargetSetup::defaultSubTarget() const {
  if (target_.isEmpty())
    return {};
  return QString::fromStdString(
      unity::target::CompositeTarget::parse(target_.toStdString()).defaultName);
}

QString TargetSetup::subTargetString(const QString& name) const {
  if (target_.isEmpty())
    return {};
  auto ct = unity::target::CompositeTarget::parse(target_.toStdString());
  const unity::target::Target* t = ct.find(name.toStdString());
  return t ? QString::fromStdString(t->str()) : QString();
}

void TargetSetup::setAutomaticAssignment(bool on) {
  if (on == automatic_)
    return;
  automatic_ = on;
  Q_EMIT targetChanged();
}

void TargetSetup::setAssignments(const TargetAssignments& a) {
  if (a == assignments_)
    return;
  assignments_ = a;
  Q_EMIT assignmentsChanged();
}

void TargetSetup::applyEdit(const TargetAssignments& a) {
  setAssignments(a);
  Q_EMIT edited();
}

unity::ir::IRModule TargetSetup::annotatedInput(const TargetAssignments& a) const {
  unity::ir::IRModule input = document_->module();
  if (!input)
    throw unity::Error("no model is open");
  if (target_.isEmpty()) {
    if (!a.empty())
      throw unity::Error("target assignments need a composite target");
    return input;
  }
  unity::ir::IRModule m =
      unity::ir::withAttrs(input, input->attrs.with("target", target_.toStdString()));
  if (a.empty())
    return m;
  return unity::transform::annotateByName(m, a);
}

bool TargetSetup::assign(const QStringList& names, const QString& subTarget, QString* error) {
  TargetAssignments next = assignments_;
  for (const QString& n : names) {
    std::string name = n.toStdString();
    auto it = std::find_if(next.begin(), next.end(), [&](auto& p) { return p.first == name; });
    if (it != next.end())
      it->second = subTarget.toStdString();
    else
      next.emplace_back(name, subTarget.toStdString());
  }
  QString shown = names.size() <= 3 ? names.join(", ") : tr("%1 nodes").arg(names.size());
  return setAssignmentsUndoable(next, tr("Assign %1 to %2").arg(shown, subTarget), error);
}

bool TargetSetup::setAssignmentsUndoable(const TargetAssignments& a, const QString& text,
                                         QString* error) {
  QString reason;
  if (target_.isEmpty() && !a.empty())
    reason = tr("set a composite target first (Target Palette)");
  else if (!target_.isEmpty()) {
    QStringList subs = subTargets();
    for (auto& [name, sub] : a)
      if (!subs.contains(QString::fromStdString(sub)))
        reason = tr("unknown sub-target '%1' (known: %2)")
                     .arg(QString::fromStdString(sub), subs.join(", "));
    if (reason.isEmpty()) {
      try {
        annotatedInput(a);
      } catch (const std::exception& e) {
        reason = errorText(e);
      }
    }
  }
  if (!reason.isEmpty()) {
    const QString message = tr("%1 refused: %2").arg(text, reason);
    if (error)
      *error = message;
    Q_EMIT refused(message);
    return false;
  }
  if (a == assignments_)
    return true;
  undo_->push(new AssignmentCommand(this, assignments_, a, text));
  Q_EMIT accepted(text);
  return true;
}

} // namespace lowerscope
