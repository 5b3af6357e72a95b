#include "views/loop_tree_view.h"

#include <QHeaderView>

namespace lowerscope {

LoopTreeView::LoopTreeView(QWidget* parent) : QTreeWidget(parent) {
  setObjectName("loopTree");
  setColumnCount(1);
  setHeaderLabels({tr("Loop nest")});
  setUniformRowHeights(true);
}

void LoopTreeView::clearTree() {
  clear();
  count_ = 0;
}

void LoopTreeView::setTree(const unity::viz::LoopTree& t) {
  clearTree();
  std::vector<QTreeWidgetItem*> items(t.nodes.size(), nullptr);
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    QTreeWidgetItem* item =
        n.parent < 0 ? new QTreeWidgetItem(this) : new QTreeWidgetItem(items[n.parent]);
    item->setText(0, QString::fromStdString(n.label));
    if (n.kind == unity::viz::LoopTreeNode::Kind::Block) {
      QFont f = item->font(0);
      f.setBold(true);
      item->setFont(0, f);
    } else if (n.forKind == "parallel" || n.forKind == "vectorized" || n.forKind == "unroll") {
      item->setForeground(0, QColor("#1c7ed6"));
    }
    items[i] = item;
  }
  count_ = static_cast<int>(t.nodes.size());
  expandAll();
}

} // namespace lowerscope
