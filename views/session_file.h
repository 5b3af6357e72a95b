#pragma once
// The .lsession file: a workbench session saved as JSON, so that a model
// with its composite target and hand-made target assignments can be opened
// again (and shared: the model path is stored relative to the file).
//
//   { "lowerscope_session": 1, "model": "cnn.onnx",
//     "target": "fast: llvm; compat: c", "automatic": false,
//     "assignments": [ { "name": "Conv_0", "target": "compat" } ] }
//
// This file only reads and writes that format; whether the model loads and
// the target and assignments fit it is for the session to check.
#include <QString>

#include <optional>

#include "views/target_setup.h"

namespace lowerscope {

struct SessionFile {
  QString model;          // absolute path of the model file
  QString modelAsWritten; // read: the path as the file has it (for messages)
  QString target;         // composite target ("" : none)
  bool automatic = false;
  TargetAssignments assignments;
};

/// Writes `s` to `path` (the model path made relative to `path`'s folder).
/// False and `error` (the cause) on I/O failure.
bool writeSessionFile(const QString& path, const SessionFile& s, QString* error = nullptr);

/// Reads `path`. Nothing, and `error` (the cause, without the file name),
/// when it cannot be read, is not JSON, is not a session file or misses a
/// field; `model` comes back absolute, resolved against the file's folder.
std::optional<SessionFile> readSessionFile(const QString& path, QString* error = nullptr);

} // namespace lowerscope
