#pragma once
// The one way the CLI, the GUI and the tests read a model file: text IR
// (.uir) or a serialized ONNX ModelProto (.onnx).
//
// The bytes decide, the extension refines: text IR is text, while an ONNX
// protobuf always holds control bytes (a ModelProto opens with a field tag
// such as 0x08, and lengths are binary varints). So a file whose first 64 KiB
// hold no NUL and no control byte other than whitespace is parsed as text IR,
// anything else is imported as ONNX, whatever its name. The extension only
// shapes the message when the content disappoints it: a binary file not named
// .onnx that is no ModelProto is "neither text IR nor an ONNX model", and a
// .onnx file that holds text says so before the parser's located error.
// Missing files, directories, unreadable and empty files are refused up
// front; every message starts with the path.
#include <string>
#include <string_view>

#include "engine/frontend/onnx_importer.h"
#include "engine/ir/module.h"

namespace unity::frontend {

enum class ModelFormat { TextIR, Onnx };
const char* modelFormatName(ModelFormat f); // "text IR", "ONNX"

/// The format `bytes` (a file's content) would be read as: TextIR when they
/// look like text, Onnx otherwise. Does not check that they parse.
ModelFormat sniffModelFormat(std::string_view bytes);

/// Reads the model in `path`. `onnx` applies when the file holds ONNX (its
/// sourceName and modelDir default to the path and its folder). Throws
/// unity::Error naming the file; text IR parse errors keep their location.
ir::IRModule loadModel(const std::string& path, const ImportOptions& onnx = {});

} // namespace unity::frontend
