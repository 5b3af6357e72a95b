#pragma once
// Drag-to-target plumbing shared by the graph view (drag source) and the
// target palette (drop zones): the MIME type that carries a selection of
// graph nodes, and the colours and sub-target of each node.
//
// A dragged selection names bindings the way unity::transform::annotateByName
// resolves them in the input module: a node that has source-model origins
// ("Conv_3:Conv") is named by its source nodes ("Conv_3"), which survive the
// passes; a node without origins by its binding name, which is only
// meaningful at the Input step (elsewhere the selection is refused).
#include <QColor>
#include <QString>
#include <QStringList>

#include <vector>

#include "engine/ir/module.h"
#include "engine/viz/graph_model.h"

class QMimeData;

namespace lowerscope {

inline constexpr const char* kBindingsMimeType = "application/x-lowerscope-bindings";

struct DraggedBindings {
  QString function;  // graph function the nodes were picked in
  int step = 0;      // step of the history they were picked at
  QStringList names; // binding / source-node names for annotateByName
};

/// The names for `nodes` of `graph` picked at `step`; empty (and `error`) when
/// a node cannot be named (a parameter, constant, output, or a binding
/// without origins after the Input step).
DraggedBindings draggedBindings(const unity::viz::DataflowGraph& graph,
                                const std::vector<int>& nodes, int step, QString* error);
/// JSON {"function", "step", "names"} under kBindingsMimeType.
QMimeData* toMimeData(const DraggedBindings& d);
/// False when `mime` does not carry a (well-formed) selection.
bool fromMimeData(const QMimeData* mime, DraggedBindings* out);

/// The colour of sub-target number `index` of the composite target.
QColor subTargetColor(int index);

/// The sub-target each node of `graph` (a function of `m`) runs on: an
/// annotation of its binding ("target.annotations"), the "target" of the
/// function it calls, or of the shown function itself; "" when unassigned
/// (the default sub-target).
std::vector<QString> nodeSubTargets(const unity::ir::IRModule& m,
                                    const unity::viz::DataflowGraph& graph);

} // namespace lowerscope
