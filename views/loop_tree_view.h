#pragma once
// The loop-tree outline of a PrimFunc (engine/viz/loop_tree.h) as a tree:
// loops with their extent and kind (parallel, vectorized, ...), blocks with
// their spatial/reduce iterators, allocations.
#include <QTreeWidget>

#include "engine/viz/loop_tree.h"

namespace lowerscope {

class LoopTreeView : public QTreeWidget {
  Q_OBJECT
public:
  explicit LoopTreeView(QWidget* parent = nullptr);
  void setTree(const unity::viz::LoopTree& tree);
  void clearTree();
  int nodeCount() const { return count_; }

private:
  int count_ = 0;
};

} // namespace lowerscope
