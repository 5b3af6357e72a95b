#pragma once
// The target palette: edits the session's composite target and shows each
// sub-target as a drop zone.
//
// The target field is validated as you type: an invalid string marks the
// field red and shows the engine's message (unity::target::CompositeTarget::
// parse); a valid one is applied to the session when editing pauses or on
// Enter. Each sub-target is a SubTargetZone with its colour (the legend of
// the graph's "Colour by target"), its target string and the names assigned
// to it; dropping a graph selection (views/target_drag.h) on it assigns the
// selection through Session::assign (undoable, rebuilds).
#include <QFrame>
#include <QString>
#include <QWidget>

class QCheckBox;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace lowerscope {

class Session;

/// One sub-target: a drop zone for graph selections.
class SubTargetZone : public QFrame {
  Q_OBJECT
public:
  SubTargetZone(Session* session, const QString& name, int index, QWidget* parent = nullptr);
  QString name() const { return name_; }
  /// The names assigned to this sub-target, as listed.
  QStringList assignedNames() const;
  QListWidget* list() const { return list_; }

protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dragLeaveEvent(QDragLeaveEvent* e) override;
  void dropEvent(QDropEvent* e) override;

private:
  void setHighlighted(bool on);
  Session* session_;
  QString name_;
  QListWidget* list_;
};

class TargetPalette : public QWidget {
  Q_OBJECT
public:
  explicit TargetPalette(Session* session, QWidget* parent = nullptr);

  QLineEdit* targetEdit() const { return edit_; }
  /// The engine's message for the text being edited ("" when valid).
  QString errorText() const;
  /// True when the field is marked invalid.
  bool isMarkedInvalid() const { return invalid_; }
  /// The drop zone of sub-target `name` (null when none).
  SubTargetZone* zone(const QString& name) const;
  QList<SubTargetZone*> zones() const;
  /// Applies the edited text now (what the pause after typing does).
  bool applyEdit();

private:
  void validate();
  void rebuildZones();

  Session* session_;
  QLineEdit* edit_;
  QLabel* error_;
  QCheckBox* automatic_;
  QPushButton* clear_;
  QTimer* applyTimer_;
  QWidget* zonesBox_;
  QVBoxLayout* zonesLayout_;
  QLabel* hint_;
  bool invalid_ = false;
};

} // namespace lowerscope
