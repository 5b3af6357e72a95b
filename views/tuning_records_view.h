#pragma once
// The records browser: every candidate a tuning database holds, failures
// included, next to what it did to the kernel.
//
//   - a filter bar (workload, target, run, status) over a sortable table
//     (TuningRecordsModel through TuningRecordsFilter); a failed record's
//     status and error are red and its whole message is the tooltip;
//   - "Record": the selected record's numbers, its error message in full and
//     its trace as readable text (one instruction per line);
//   - "Loop nest": the kernel under the default schedule (the design space's
//     base point, what DefaultSchedule builds) beside the kernel under the
//     record's trace, aligned by the same Myers line diff as the IR diff
//     view (deleted lines red on the left, inserted green on the right);
//   - "Compare": with two records selected, their traces and loop nests side
//     by side, diffed the same way;
//   - "Cost model": measured against predicted latency of the records shown
//     (log-log, Qt Charts) with the diagonal and the rank correlation: how
//     well the cost model ordered what the search measured.
//
// The file is read off the UI thread (loadTuningRecords on a BackgroundJob)
// and so is a record's detail (parsing the workload and replaying two
// schedules). A file that is not a tuning database, or a damaged one, shows
// its error in place of the table; nothing else changes. A file that
// changes (a tuning run writing to it) is read again within about 2 s
// (a stat of the file and its WAL, no SQL), keeping filters and selection.
#include <QHash>
#include <QString>
#include <QWidget>

#include <optional>

#include "views/tuning_records_model.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTableView;
class QTabWidget;

namespace lowerscope {

class BackgroundJob;

/// Two read-only texts side by side, aligned by a line diff, scrolling
/// together.
class TextDiffPane : public QWidget {
  Q_OBJECT
public:
  explicit TextDiffPane(QWidget* parent = nullptr);
  void setTitles(const QString& left, const QString& right);
  /// Diffs and shows the two texts; returns the changed line count.
  int setTexts(const QString& left, const QString& right);
  void setMessage(const QString& text); // instead of a diff (both sides)
  QPlainTextEdit* left() const { return left_; }
  QPlainTextEdit* right() const { return right_; }
  int deletedLines() const { return deleted_; }
  int insertedLines() const { return inserted_; }

private:
  QLabel *leftTitle_, *rightTitle_;
  QPlainTextEdit *left_, *right_;
  int deleted_ = 0, inserted_ = 0;
};

/// What the detail job produces for one record (plain data, made off the UI
/// thread).
struct RecordDetail {
  int64_t id = 0;
  QString summary;                 // numbers, error message, decisions, times
  QString trace;                   // one instruction per line
  QString defaultNest, recordNest; // printed kernels (empty when unavailable)
  QString error;                   // why the nest could not be made (record text still shown)
};

/// Reads record `id` of `path` and schedules its workload both ways. Never
/// throws.
RecordDetail loadRecordDetail(const QString& path, int64_t id);

class TuningRecordsView : public QWidget {
  Q_OBJECT
public:
  explicit TuningRecordsView(QWidget* parent = nullptr);
  ~TuningRecordsView() override;

  /// Loads `path` off the UI thread (replacing what is shown); loaded()
  /// follows. False when a load is running already.
  bool openDatabase(const QString& path);
  /// Reads the same file again.
  bool reload();
  QString database() const { return path_; }
  /// Processes events until the load and detail jobs are done; false on timeout.
  bool waitForLoad(int timeoutMs);
  /// The last load's error ("" when it succeeded).
  QString error() const { return error_; }

  TuningRecordsModel* model() const { return model_; }
  TuningRecordsFilter* filter() const { return filter_; }
  QTableView* table() const { return table_; }
  QTabWidget* tabs() const { return tabs_; }
  QSplitter* splitter() const { return splitter_; }
  TextDiffPane* nestPane() const { return nest_; }
  TextDiffPane* comparePane() const { return compare_; }
  QPlainTextEdit* recordText() const { return recordText_; }
  QChart* chart() const;
  QChartView* chartView() const { return chartView_; }
  /// Records in the cost-model plot (records shown with both latencies).
  int scatterPoints() const { return scatterPoints_; }
  /// Markers drawn for them (while the plot is shown): at most one per cell
  /// of a kPlotGrid x kPlotGrid grid over the plot's log axes (a cell of a
  /// 600-pixel plot is under 4 pixels, a marker 7), the grid halved until at
  /// most kMaxMarkers remain: Qt Charts makes a graphics item per marker,
  /// and 2,900 of them took 130-200 ms (Debug build).
  int scatterMarkers() const { return scatterMarkers_; }
  static constexpr int kPlotGrid = 160;
  static constexpr qsizetype kMaxMarkers = 600;
  QComboBox* workloadFilter() const { return workloadBox_; }
  QComboBox* statusFilter() const { return statusBox_; }
  QPushButton* applyBestButton() const { return applyBest_; }

  /// Selects (and opens) record `id`; false when the table does not show it.
  bool selectRecord(int64_t id);
  /// Selects two records and fills the Compare tab.
  bool compareRecords(int64_t a, int64_t b);
  /// Function names of the open model by workload hash (Workload column).
  void setWorkloadNames(const QHash<QString, QString>& byHash);
  /// The model's latency before and after Apply best (or progress), under
  /// the Apply best button.
  void setLatencyText(const QString& text);
  QString latencyText() const;

public Q_SLOTS:
  /// File dialog, then openDatabase.
  void showOpenDialog();

Q_SIGNALS:
  /// A load ended: ok, or the error (naming the file and the cause).
  void loaded(bool ok, const QString& error);
  /// The user asked to rebuild the model with this database's best records.
  void applyBestRequested(const QString& database);

protected:
  void showEvent(QShowEvent* event) override;

private:
  void onLoaded(TuningRecordsSnapshot snap);
  /// Once the model shows every row of a load: count, plot, reselect, loaded().
  void finishLoad();
  void fillFilters();
  /// Sets the filter from the boxes; `redraw`: count and plot again too.
  void applyFilters(bool redraw);
  void onSelectionChanged();
  void startDetail();
  void updateChart();
  void updateCount();
  void pollFile();
  static QString fileSignature(const QString& path);

  QString path_, error_;
  TuningRecordsModel* model_;
  TuningRecordsFilter* filter_;
  QLabel* pathLabel_;
  QLabel* countLabel_;
  QLabel* errorLabel_;
  QLabel* latencyLabel_;
  QComboBox *workloadBox_, *targetBox_, *runBox_, *statusBox_;
  QPushButton *openButton_, *reloadButton_, *applyBest_;
  QTableView* table_;
  QTabWidget* tabs_;
  QSplitter* splitter_;
  QPlainTextEdit* recordText_;
  TextDiffPane* nest_;
  TextDiffPane* compare_;
  QChartView* chartView_;
  int scatterPoints_ = 0, scatterMarkers_ = 0;
  bool chartStale_ = false; // the plot waits for its tab to be shown
  BackgroundJob* loadJob_;
  BackgroundJob* detailJob_;
  std::vector<int64_t> wanted_; // the records the detail panes should show
  bool detailPending_ = false;
  bool sameFile_ = false;         // the last load read the file shown before it
  bool finishing_ = false;        // a load's rows are going in (finishLoad to come)
  bool inLoad_ = false;           // inside onLoaded
  std::vector<int64_t> reselect_; // what to select again once the rows are in
  /// Rows a column's width is measured on (QHeaderView's
  /// resizeContentsPrecision; its default, 1,000 rows, reads 13,000 cells).
  static constexpr int kSizedRows = 100;
  QString signature_; // fileSignature when the last load started
};

} // namespace lowerscope
