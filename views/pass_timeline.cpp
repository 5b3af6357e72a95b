#include "views/pass_timeline.h"

#include <QCheckBox>
#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSlider>
#include <QTreeView>
#include <QVBoxLayout>

#include "views/session.h"

namespace lowerscope {

// ---------------------------------------------------------------- the model

PassTimelineModel::PassTimelineModel(QObject* parent) : QAbstractItemModel(parent) {}

void PassTimelineModel::setRecords(std::vector<unity::transform::PassRecord> records,
                                   bool hasInput) {
  beginResetModel();
  records_ = std::move(records);
  hasInput_ = hasInput;
  size_t steps = records_.size() + 1;
  children_.assign(steps, {});
  parentStep_.assign(steps, -1);
  row_.assign(steps, 0);
  topLevel_.clear();
  if (hasInput_) {
    row_[0] = 0;
    topLevel_.push_back(0);
    for (size_t i = 0; i < records_.size(); ++i) {
      int step = static_cast<int>(i) + 1;
      int p = records_[i].parent;
      if (p >= 0 && p < static_cast<int>(records_.size())) {
        parentStep_[step] = p + 1;
        row_[step] = static_cast<int>(children_[p + 1].size());
        children_[p + 1].push_back(step);
      } else {
        row_[step] = static_cast<int>(topLevel_.size());
        topLevel_.push_back(step);
      }
    }
  }
  endResetModel();
}

QModelIndex PassTimelineModel::indexOfStep(int step, int column) const {
  if (!hasInput_ || step < 0 || step > static_cast<int>(records_.size()))
    return {};
  return createIndex(row_[step], column, quintptr(step));
}

QModelIndex PassTimelineModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount)
    return {};
  const std::vector<int>& list = parent.isValid() ? children_[parent.internalId()] : topLevel_;
  if (parent.isValid() && parent.column() != 0)
    return {};
  if (row >= static_cast<int>(list.size()))
    return {};
  return createIndex(row, column, quintptr(list[row]));
}

QModelIndex PassTimelineModel::parent(const QModelIndex& child) const {
  if (!child.isValid())
    return {};
  int p = parentStep_[child.internalId()];
  return p < 0 ? QModelIndex() : createIndex(row_[p], 0, quintptr(p));
}

int PassTimelineModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid())
    return static_cast<int>(topLevel_.size());
  if (parent.column() != 0)
    return 0;
  return static_cast<int>(children_[parent.internalId()].size());
}

int PassTimelineModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant PassTimelineModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid())
    return {};
  int step = static_cast<int>(index.internalId());
  const unity::transform::PassRecord* r = step > 0 ? &records_[step - 1] : nullptr;
  bool changed = r ? r->changed : true;
  switch (role) {
  case StepRole:
    return step;
  case ChangedRole:
    return changed;
  case Qt::DisplayRole:
    switch (index.column()) {
    case StepColumn:
      return step;
    case NameColumn:
      return r ? QString::fromStdString(r->name) : tr("Input");
    case TimeColumn:
      return r ? QString::number(r->ms, 'f', 2) : QString();
    case ChangedColumn:
      return r ? (r->disabled  ? tr("disabled")
                  : r->changed ? tr("changed")
                               : tr("unchanged"))
               : QString();
    }
    return {};
  case Qt::ToolTipRole:
    if (!r)
      return tr("The module as loaded");
    return tr("%1 (%2 level): %3 ms, %4")
        .arg(QString::fromStdString(r->name))
        .arg(r->level == unity::transform::PassLevel::Tensor  ? tr("tensor")
             : r->level == unity::transform::PassLevel::Graph ? tr("graph")
                                                              : tr("module"))
        .arg(r->ms, 0, 'f', 3)
        .arg(r->disabled  ? tr("disabled: did not run")
             : r->changed ? tr("changed the module")
                          : tr("left the module unchanged"));
  case Qt::ForegroundRole:
    if (!changed)
      return QColor(Qt::gray);
    return {};
  case Qt::TextAlignmentRole:
    if (index.column() == TimeColumn || index.column() == StepColumn)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  return {};
}

QVariant PassTimelineModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case StepColumn:
    return tr("#");
  case NameColumn:
    return tr("Pass");
  case TimeColumn:
    return tr("ms");
  case ChangedColumn:
    return tr("Changed");
  }
  return {};
}

// --------------------------------------------------------------- the filter

ChangedPassFilter::ChangedPassFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setRecursiveFilteringEnabled(true); // keep parents of kept rows
}

void ChangedPassFilter::setHideUnchanged(bool hide) {
  if (hide == hide_)
    return;
  hide_ = hide;
  invalidateFilter();
}

bool ChangedPassFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (!hide_)
    return true;
  QModelIndex i = sourceModel()->index(row, 0, parent);
  return i.data(PassTimelineModel::ChangedRole).toBool();
}

// ----------------------------------------------------------------- the view

PassTimelineView::PassTimelineView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new PassTimelineModel(this)),
      filter_(new ChangedPassFilter(this)), tree_(new QTreeView(this)),
      slider_(new QSlider(Qt::Horizontal, this)), hide_(new QCheckBox(tr("Hide unchanged"), this)),
      status_(new QLabel(this)) {
  setObjectName("passTimeline");
  filter_->setSourceModel(model_);
  tree_->setModel(filter_);
  tree_->setObjectName("passTimelineTree");
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(PassTimelineModel::NameColumn, QHeaderView::Stretch);
  slider_->setObjectName("passSlider");
  slider_->setPageStep(1);
  slider_->setToolTip(tr("Scrub through the pass history"));

  auto* top = new QHBoxLayout;
  top->addWidget(hide_);
  top->addStretch();
  top->addWidget(status_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(tree_, 1);
  layout->addWidget(slider_);

  connect(hide_, &QCheckBox::toggled, this, [this](bool on) {
    filter_->setHideUnchanged(on);
    tree_->expandAll();
    showStep(session_->currentStep());
  });
  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (!syncing_ && current.isValid())
              session_->setCurrentStep(current.data(PassTimelineModel::StepRole).toInt());
          });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!syncing_)
      session_->setCurrentStep(v);
  });
  connect(session_, &Session::historyChanged, this, &PassTimelineView::reload);
  connect(session_, &Session::currentStepChanged, this, &PassTimelineView::showStep);
  connect(session_, &Session::buildProgress, this, [this](int n, const QString& name) {
    status_->setText(tr("pass %1: %2").arg(n).arg(name));
  });
  reload();
}

void PassTimelineView::reload() {
  model_->setRecords(session_->records(), session_->hasModule());
  tree_->expandAll();
  for (int c = 0; c < PassTimelineModel::ColumnCount; ++c)
    if (c != PassTimelineModel::NameColumn)
      tree_->resizeColumnToContents(c);
  syncing_ = true;
  slider_->setRange(0, std::max(0, session_->stepCount() - 1));
  slider_->setEnabled(session_->stepCount() > 1);
  syncing_ = false;
  status_->setText(session_->hasHistory() ? tr("%1 passes").arg(session_->records().size())
                                          : tr("Build (Ctrl+B) to record the passes"));
  showStep(session_->currentStep());
}

void PassTimelineView::showStep(int step) {
  syncing_ = true;
  slider_->setValue(step);
  QModelIndex i = filter_->mapFromSource(model_->indexOfStep(step));
  if (i.isValid()) {
    tree_->setCurrentIndex(i);
    tree_->scrollTo(i);
  }
  syncing_ = false;
}

} // namespace lowerscope
