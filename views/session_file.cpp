#include "views/session_file.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

namespace lowerscope {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("SessionFile", text); }
} // namespace

bool writeSessionFile(const QString& path, const SessionFile& s, QString* error) {
  auto fail = [&](const QString& why) {
    if (error)
      *error = why;
    return false;
  };
  const QDir dir = QFileInfo(path).absoluteDir();
  nlohmann::json j;
  j["lowerscope_session"] = 1;
  j["model"] = dir.relativeFilePath(QFileInfo(s.model).absoluteFilePath()).toStdString();
  j["target"] = s.target.toStdString();
  j["automatic"] = s.automatic;
  j["assignments"] = nlohmann::json::array();
  for (auto& [name, sub] : s.assignments)
    j["assignments"].push_back({{"name", name}, {"target", sub}});
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return fail(f.errorString());
  const QByteArray bytes = QByteArray::fromStdString(j.dump(2) + "\n");
  if (f.write(bytes) != bytes.size())
    return fail(f.errorString());
  return true;
}

std::optional<SessionFile> readSessionFile(const QString& path, QString* error) {
  auto fail = [&](const QString& why) -> std::optional<SessionFile> {
    if (error)
      *error = why;
    return std::nullopt;
  };
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly))
    return fail(f.errorString());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f.readAll().toStdString());
  } catch (const std::exception& e) {
    return fail(tr("not a valid session file (JSON): %1").arg(QString::fromUtf8(e.what())));
  }
  if (!j.is_object() || !j.contains("lowerscope_session"))
    return fail(tr("not a Lowerscope session file (no \"lowerscope_session\" key)"));
  SessionFile s;
  try {
    s.model = QString::fromStdString(j.at("model").get<std::string>());
    s.target = QString::fromStdString(j.value("target", std::string()));
    s.automatic = j.value("automatic", false);
    for (auto& a : j.value("assignments", nlohmann::json::array()))
      s.assignments.emplace_back(a.at("name").get<std::string>(),
                                 a.at("target").get<std::string>());
  } catch (const std::exception& e) {
    return fail(tr("malformed session file: %1").arg(QString::fromUtf8(e.what())));
  }
  s.modelAsWritten = s.model;
  s.model = QFileInfo(path).absoluteDir().absoluteFilePath(s.model);
  return s;
}

} // namespace lowerscope
