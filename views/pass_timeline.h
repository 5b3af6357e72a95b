#pragma once
// The pass timeline: one row per recorded pass, nested under the Sequential
// that ran it, with its wall time and whether it changed the module; a first
// row for the input. Choosing a row (click, up/down keys, the slider) makes
// it the session's current step. "Hide unchanged" filters out passes that
// left the module as it was.
#include <QAbstractItemModel>
#include <QSortFilterProxyModel>
#include <QWidget>

#include <vector>

#include "engine/transform/record.h"

class QCheckBox;
class QLabel;
class QSlider;
class QTreeView;

namespace lowerscope {

class Session;

/// Tree model over a pass history. Internal ids are step numbers (0 = input).
class PassTimelineModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { StepColumn, NameColumn, TimeColumn, ChangedColumn, ColumnCount };
  static constexpr int StepRole = Qt::UserRole + 1;    // int: the step
  static constexpr int ChangedRole = Qt::UserRole + 2; // bool

  explicit PassTimelineModel(QObject* parent = nullptr);
  void setRecords(std::vector<unity::transform::PassRecord> records, bool hasInput);
  QModelIndex indexOfStep(int step, int column = 0) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
  std::vector<unity::transform::PassRecord> records_;
  bool hasInput_ = false;
  std::vector<std::vector<int>> children_; // step -> child steps; [0] unused
  std::vector<int> topLevel_;              // top-level steps
  std::vector<int> parentStep_, row_;      // per step
};

/// Keeps changed passes (and the input, and parents of kept rows).
class ChangedPassFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit ChangedPassFilter(QObject* parent = nullptr);
  void setHideUnchanged(bool hide);
  bool hideUnchanged() const { return hide_; }

protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
  bool hide_ = false;
};

class PassTimelineView : public QWidget {
  Q_OBJECT
public:
  explicit PassTimelineView(Session* session, QWidget* parent = nullptr);
  PassTimelineModel* model() const { return model_; }
  ChangedPassFilter* filter() const { return filter_; }
  QTreeView* tree() const { return tree_; }
  QSlider* slider() const { return slider_; }
  QCheckBox* hideUnchangedBox() const { return hide_; }

private:
  void reload();
  void showStep(int step);

  Session* session_;
  PassTimelineModel* model_;
  ChangedPassFilter* filter_;
  QTreeView* tree_;
  QSlider* slider_;
  QCheckBox* hide_;
  QLabel* status_;
  bool syncing_ = false;
};

} // namespace lowerscope
