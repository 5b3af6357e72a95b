#include "views/target_palette.h"

#include <QCheckBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include "views/session.h"
#include "views/target_drag.h"

namespace lowerscope {

namespace {
// Applying rebuilds the zones: wait until typing pauses.
constexpr int kApplyDelayMs = 600;
} // namespace

// ---------------------------------------------------------------- a zone

SubTargetZone::SubTargetZone(Session* session, const QString& name, int index, QWidget* parent)
    : QFrame(parent), session_(session), name_(name), list_(new QListWidget(this)) {
  setObjectName("zone_" + name);
  setAcceptDrops(true);
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  QColor color = subTargetColor(index);
  auto* swatch = new QLabel(this);
  swatch->setFixedSize(14, 14);
  swatch->setStyleSheet(
      QStringLiteral("background:%1;border:1px solid #495057;").arg(color.name()));
  bool isDefault = name == session->defaultSubTarget();
  auto* title = new QLabel(
      QStringLiteral("<b>%1</b>%2").arg(name.toHtmlEscaped(), isDefault ? tr(" (default)") : ""),
      this);
  auto* target = new QLabel(session->subTargetString(name), this);
  target->setStyleSheet("color:#495057;");
  target->setWordWrap(true);
  auto* head = new QHBoxLayout;
  head->addWidget(swatch);
  head->addWidget(title, 1);
  list_->setMaximumHeight(90);
  list_->setToolTip(tr("Assigned to %1. Drop graph nodes here; Delete removes.").arg(name));
  for (auto& [n, sub] : session->assignments())
    if (QString::fromStdString(sub) == name)
      list_->addItem(QString::fromStdString(n));
  if (list_->count() == 0)
    list_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->setSpacing(2);
  layout->addLayout(head);
  layout->addWidget(target);
  auto* drop = new QLabel(isDefault ? tr("unassigned nodes run here; drop nodes to assign")
                                    : tr("drop graph nodes here"),
                          this);
  drop->setStyleSheet("color:#868e96;font-size:9pt;");
  drop->setWordWrap(true);
  layout->addWidget(drop);
  layout->addWidget(list_);
  setHighlighted(false);
}

QStringList SubTargetZone::assignedNames() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i)
    out << list_->item(i)->text();
  return out;
}

void SubTargetZone::setHighlighted(bool on) {
  QPalette p = palette();
  p.setColor(QPalette::Window, on ? QColor("#d0ebff") : palette().color(QPalette::Base));
  setPalette(p);
}

void SubTargetZone::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasFormat(kBindingsMimeType)) {
    setHighlighted(true);
    e->acceptProposedAction();
  }
}

void SubTargetZone::dragLeaveEvent(QDragLeaveEvent*) { setHighlighted(false); }

void SubTargetZone::dropEvent(QDropEvent* e) {
  setHighlighted(false);
  DraggedBindings d;
  if (!fromMimeData(e->mimeData(), &d))
    return;
  e->acceptProposedAction();
  // Queued: assigning rebuilds the palette, which deletes this zone.
  Session* s = session_;
  QString name = name_;
  QTimer::singleShot(0, s, [s, d, name] { s->assign(d.names, name); });
}

// ------------------------------------------------------------- the palette

TargetPalette::TargetPalette(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), edit_(new QLineEdit(this)), error_(new QLabel(this)),
      automatic_(new QCheckBox(tr("Automatic"), this)),
      clear_(new QPushButton(tr("Clear assignments"), this)), applyTimer_(new QTimer(this)),
      zonesBox_(new QWidget), zonesLayout_(new QVBoxLayout(zonesBox_)), hint_(new QLabel(this)) {
  setObjectName("targetPalette");
  edit_->setObjectName("compositeTargetEdit");
  edit_->setPlaceholderText(tr("fast: llvm; compat: c"));
  edit_->setToolTip(tr("Composite target: name: target; name: target[; default=name]. Kinds: "
                       "llvm, c, openblas, dnnl. Empty: a plain llvm build."));
  edit_->setText(session->compositeTarget());
  error_->setObjectName("targetError");
  error_->setWordWrap(true);
  error_->setStyleSheet("color:#c92a2a;");
  error_->hide();
  automatic_->setObjectName("automaticAssignment");
  automatic_->setToolTip(tr("Library kinds claim their patterns (AssignTargets): openblas / dnnl "
                            "sub-targets take the matmul / convolution patterns they cover; your "
                            "assignments still win"));
  clear_->setObjectName("clearAssignments");
  hint_->setWordWrap(true);
  hint_->setStyleSheet("color:#495057;");
  hint_->setText(tr("Select nodes in the graph (Ctrl+click, Shift+drag) and drag them onto a "
                    "sub-target. Undo with Ctrl+Z."));
  applyTimer_->setSingleShot(true);
  applyTimer_->setInterval(kApplyDelayMs);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  zonesLayout_->setContentsMargins(0, 0, 0, 0);
  zonesLayout_->addStretch(1);
  scroll->setWidget(zonesBox_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(new QLabel(tr("Composite target"), this));
  layout->addWidget(edit_);
  layout->addWidget(error_);
  layout->addWidget(automatic_);
  layout->addWidget(scroll, 1);
  layout->addWidget(hint_);
  layout->addWidget(clear_);

  connect(edit_, &QLineEdit::textEdited, this, [this] {
    validate();
    applyTimer_->start();
  });
  connect(edit_, &QLineEdit::returnPressed, this, &TargetPalette::applyEdit);
  connect(applyTimer_, &QTimer::timeout, this, &TargetPalette::applyEdit);
  connect(automatic_, &QCheckBox::toggled, this, [this](bool on) {
    if (on != session_->automaticAssignment()) {
      session_->setAutomaticAssignment(on);
      session_->rebuild();
    }
  });
  connect(clear_, &QPushButton::clicked, this,
          [this] { session_->setAssignmentsUndoable({}, tr("Clear assignments")); });
  connect(session_, &Session::targetChanged, this, [this] {
    if (!edit_->hasFocus() && edit_->text() != session_->compositeTarget() && !invalid_)
      edit_->setText(session_->compositeTarget());
    automatic_->setChecked(session_->automaticAssignment());
    rebuildZones();
  });
  connect(session_, &Session::assignmentsChanged, this, &TargetPalette::rebuildZones);
  rebuildZones();
}

QString TargetPalette::errorText() const { return invalid_ ? error_->text() : QString(); }

void TargetPalette::validate() {
  QString message = Session::validateTarget(edit_->text());
  invalid_ = !message.isEmpty();
  error_->setText(message);
  error_->setVisible(invalid_);
  edit_->setStyleSheet(invalid_ ? "QLineEdit { border: 2px solid #e03131; background: #fff5f5; }"
                                : QString());
}

bool TargetPalette::applyEdit() {
  applyTimer_->stop();
  validate();
  if (invalid_)
    return false;
  QString before = session_->compositeTarget();
  if (!session_->setCompositeTarget(edit_->text()))
    return false;
  if (session_->compositeTarget() != before && session_->hasModule() && session_->hasHistory())
    session_->rebuild();
  return true;
}

SubTargetZone* TargetPalette::zone(const QString& name) const {
  for (SubTargetZone* z : zones())
    if (z->name() == name)
      return z;
  return nullptr;
}

QList<SubTargetZone*> TargetPalette::zones() const {
  return zonesBox_->findChildren<SubTargetZone*>(QString(), Qt::FindDirectChildrenOnly);
}

void TargetPalette::rebuildZones() {
  for (SubTargetZone* z : zones()) {
    z->hide();
    z->setParent(nullptr); // out of zones() at once
    z->deleteLater();      // it may be inside its own dropEvent
  }
  QStringList subs = session_->subTargets();
  for (int i = 0; i < subs.size(); ++i) {
    auto* z = new SubTargetZone(session_, subs[i], i, zonesBox_);
    zonesLayout_->insertWidget(i, z);
  }
  clear_->setEnabled(!session_->assignments().empty());
  hint_->setText(subs.isEmpty()
                     ? tr("Enter a composite target (e.g. \"fast: llvm; compat: c\") to get "
                          "one drop zone per sub-target.")
                     : tr("Select nodes in the graph (Ctrl+click, Shift+drag) and drag them onto "
                          "a sub-target. Undo with Ctrl+Z."));
}

} // namespace lowerscope
