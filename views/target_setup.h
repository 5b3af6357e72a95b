#pragma once
// Where the model's parts run (docs/gui.md, "Targets and drag-to-target"):
// a composite target string ("fast: llvm; compat: c"), whether library
// sub-targets claim their patterns automatically (AssignTargets), and the
// user's assignments (binding or source-model node name -> sub-target).
//
// Every change the user makes to the assignments goes through the undo stack
// (assign(), setAssignmentsUndoable()) and is checked first against the open
// model with the engine's own rule (unity::transform::annotateByName), so a
// name that matches nothing is refused before it can break a build. Doing,
// undoing or redoing such a change emits edited(): the session rebuilds.
// The assignments name bindings of one model: forgetAssignments() when the
// model is replaced.
#include <QObject>
#include <QString>
#include <QStringList>

#include <string>
#include <utility>
#include <vector>

#include "engine/ir/module.h"

class QUndoStack;

namespace lowerscope {

class Document;

/// Binding or source-model node name -> sub-target name, in the order given.
using TargetAssignments = std::vector<std::pair<std::string, std::string>>;

class TargetSetup : public QObject {
  Q_OBJECT
public:
  /// Checks names against `document`'s model.
  explicit TargetSetup(const Document* document, QObject* parent = nullptr);

  /// The composite target ("" : a plain llvm build without partitioning).
  QString compositeTarget() const { return target_; }
  /// Empty when `text` is a valid target string, else the engine's message.
  static QString validateTarget(const QString& text);
  /// Sets the composite target after validating it; false (and `error`, the
  /// engine's message) when invalid.
  bool setCompositeTarget(const QString& text, QString* error = nullptr);
  /// Sub-target names of the composite target, in order; the default one.
  QStringList subTargets() const;
  QString defaultSubTarget() const;
  /// The target string of sub-target `name` ("" when unknown).
  QString subTargetString(const QString& name) const;

  /// Library sub-targets claim their patterns (AssignTargets) when on.
  bool automaticAssignment() const { return automatic_; }
  void setAutomaticAssignment(bool on);

  const TargetAssignments& assignments() const { return assignments_; }
  /// Sets the assignments without the undo stack (loading, command line).
  void setAssignments(const TargetAssignments& a);
  /// Sets them and emits edited() (what an undo command does).
  void applyEdit(const TargetAssignments& a);
  /// The model with the composite target and `a` applied: what the build's
  /// AnnotateTarget pass makes of it. Throws unity::Error (no model, unknown
  /// name or sub-target, assignments without a composite target).
  unity::ir::IRModule annotatedInput(const TargetAssignments& a) const;
  /// Assigns `names` to `subTarget` as one undoable step. Refused (false,
  /// `error`, refused()) when a name resolves to nothing, the sub-target is
  /// unknown or there is no composite target.
  bool assign(const QStringList& names, const QString& subTarget, QString* error = nullptr);
  /// Replaces all assignments as one undoable step (e.g. "clear").
  bool setAssignmentsUndoable(const TargetAssignments& a, const QString& text,
                              QString* error = nullptr);
  QUndoStack* undoStack() const { return undo_; }
  /// Drops the assignments and their undo history (they name bindings of a
  /// model that is being replaced); the composite target stays.
  void forgetAssignments();

Q_SIGNALS:
  /// The composite target or the automatic flag changed.
  void targetChanged();
  void assignmentsChanged();
  /// An undoable change was done, undone or redone: the build is stale.
  void edited();
  /// An assignment change was refused; `message` says what and why.
  void refused(const QString& message);
  /// An assignment change was accepted; `text` names it.
  void accepted(const QString& text);

private:
  const Document* document_;
  QString target_;
  bool automatic_ = false;
  TargetAssignments assignments_;
  QUndoStack* undo_;
};

} // namespace lowerscope
