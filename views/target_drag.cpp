#include "views/target_drag.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>

#include <map>

#include "engine/transform/partition.h"

namespace lowerscope {

using unity::viz::NodeKind;

DraggedBindings draggedBindings(const unity::viz::DataflowGraph& graph,
                                const std::vector<int>& nodes, int step, QString* error) {
  DraggedBindings d;
  d.function = QString::fromStdString(graph.function);
  d.step = step;
  for (int id : nodes) {
    if (id < 0 || id >= static_cast<int>(graph.nodes.size()))
      continue;
    const auto& n = graph.nodes[id];
    if (n.kind != NodeKind::Op && n.kind != NodeKind::Cluster)
      continue; // parameters, constants, the output: nothing to assign
    if (!n.origins.empty()) {
      for (const auto& o : n.origins) {
        auto colon = o.rfind(':');
        QString name = QString::fromStdString(colon == std::string::npos ? o : o.substr(0, colon));
        if (!d.names.contains(name))
          d.names << name;
      }
    } else if (step == 0) {
      QString name = QString::fromStdString(n.name);
      if (!d.names.contains(name))
        d.names << name;
    } else {
      if (error)
        *error = QObject::tr("node '%1' has no source-model origin: select it at the Input step "
                             "to assign it")
                     .arg(QString::fromStdString(n.name));
      return {};
    }
  }
  if (d.names.isEmpty() && error)
    *error = QObject::tr("the selection has no operator nodes to assign");
  return d;
}

QMimeData* toMimeData(const DraggedBindings& d) {
  QJsonObject o;
  o["function"] = d.function;
  o["step"] = d.step;
  o["names"] = QJsonArray::fromStringList(d.names);
  auto* mime = new QMimeData;
  mime->setData(kBindingsMimeType, QJsonDocument(o).toJson(QJsonDocument::Compact));
  mime->setText(d.names.join(", "));
  return mime;
}

bool fromMimeData(const QMimeData* mime, DraggedBindings* out) {
  if (!mime || !mime->hasFormat(kBindingsMimeType))
    return false;
  QJsonParseError err;
  QJsonDocument doc = QJsonDocument::fromJson(mime->data(kBindingsMimeType), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    return false;
  QJsonObject o = doc.object();
  if (!o["names"].isArray())
    return false;
  DraggedBindings d;
  d.function = o["function"].toString();
  d.step = o["step"].toInt();
  for (const auto& v : o["names"].toArray())
    if (v.isString() && !v.toString().isEmpty())
      d.names << v.toString();
  if (d.names.isEmpty())
    return false;
  *out = d;
  return true;
}

QColor subTargetColor(int index) {
  // Distinct, light enough for black labels.
  static const char* colors[] = {"#a5d8ff", "#ffc9c9", "#b2f2bb", "#ffec99",
                                 "#d0bfff", "#ffd8a8", "#99e9f2", "#fcc2d7"};
  constexpr int n = sizeof(colors) / sizeof(colors[0]);
  return QColor(colors[((index % n) + n) % n]);
}

std::vector<QString> nodeSubTargets(const unity::ir::IRModule& m,
                                    const unity::viz::DataflowGraph& graph) {
  std::vector<QString> out(graph.nodes.size());
  if (!m)
    return out;
  std::map<std::string, std::string> annotated; // binding -> sub-target
  for (auto& a : unity::transform::targetAnnotations(m))
    if (a.function == graph.function)
      annotated[a.binding] = a.subTarget;
  std::string own;
  if (auto f = m->lookup(graph.function))
    own = f->attrs.getString("target");
  for (const auto& n : graph.nodes) {
    std::string sub;
    if (auto it = annotated.find(n.name); it != annotated.end())
      sub = it->second;
    else if (!n.callee.empty())
      if (auto f = m->lookup(n.callee))
        sub = f->attrs.getString("target");
    if (sub.empty() &&
        (n.kind == NodeKind::Op || n.kind == NodeKind::Cluster || n.kind == NodeKind::Block))
      sub = own;
    out[n.id] = QString::fromStdString(sub);
  }
  return out;
}

} // namespace lowerscope
