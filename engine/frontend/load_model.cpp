// Model loading by content and extension (see load_model.h for the rules).
#include "engine/frontend/load_model.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <onnx/onnx_pb.h>
#include <system_error>

#include "engine/support/error.h"
#include "engine/text/parser.h"

namespace unity::frontend {

namespace fs = std::filesystem;

namespace {

/// How much of a file the sniffing looks at: a ModelProto shows a control
/// byte at its first tag, so a text file's head is enough to tell.
constexpr size_t kSniffBytes = 64 * 1024;

bool isTextByte(unsigned char c) {
  // Tab, newline, vertical tab, form feed, carriage return; bytes >= 0x80 are
  // UTF-8 (comments and names may hold any).
  if (c >= 0x09 && c <= 0x0d)
    return true;
  return c >= 0x20 && c != 0x7f;
}

std::string lowerExtension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string readModelBytes(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error(path + ": cannot read (" + ec.message() + ")");
  if (!fs::exists(st))
    throw Error(path + ": no such file");
  if (fs::is_directory(st))
    throw Error(path + ": is a directory, not a model file (expected text IR or an ONNX model)");
  if (!fs::is_regular_file(st))
    throw Error(path + ": not a regular file (expected text IR or an ONNX model)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot read (" + std::strerror(errno) + ")");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    throw Error(path + ": cannot read (" + std::strerror(errno) + ")");
  if (bytes.empty())
    throw Error(path + ": empty file (expected text IR or an ONNX model)");
  return bytes;
}

/// Line `line` (1-based) of `text`, for re-reporting a located parse error.
std::string lineOf(std::string_view text, int line) {
  size_t begin = 0;
  for (int i = 1; i < line && begin != std::string_view::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos)
      ++begin;
  }
  if (begin == std::string_view::npos || begin > text.size())
    return {};
  size_t end = text.find('\n', begin);
  return std::string(text.substr(begin, end == std::string_view::npos ? end : end - begin));
}

bool parsesAsModelProto(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return true; // too big to check here; the importer reports it
  onnx::ModelProto model;
  return model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) && model.has_graph();
}

} // namespace

const char* modelFormatName(ModelFormat f) { return f == ModelFormat::TextIR ? "text IR" : "ONNX"; }

ModelFormat sniffModelFormat(std::string_view bytes) {
  std::string_view head = bytes.substr(0, kSniffBytes);
  bool text = std::all_of(head.begin(), head.end(),
                          [](char c) { return isTextByte(static_cast<unsigned char>(c)); });
  return text ? ModelFormat::TextIR : ModelFormat::Onnx;
}

ir::IRModule loadModel(const std::string& path, const ImportOptions& onnx) {
  std::string bytes = readModelBytes(path);
  bool namedOnnx = lowerExtension(path) == ".onnx";

  if (sniffModelFormat(bytes) == ModelFormat::TextIR) {
    if (!namedOnnx)
      return text::parseModule(bytes, path);
    try {
      return text::parseModule(bytes, path);
    } catch (const Error& e) {
      if (!e.loc().known())
        throw Error(path + ": named .onnx but holds text, not an ONNX protobuf; as text IR: " +
                    e.message());
      throw Error(e.loc(),
                  "named .onnx but holds text, not an ONNX protobuf; as text IR: " + e.message(),
                  lineOf(bytes, e.loc().line));
    }
  }

  if (!namedOnnx && !parsesAsModelProto(bytes))
    throw Error(path + ": neither text IR nor an ONNX model (binary content that does not "
                       "parse as an ONNX ModelProto)");
  ImportOptions o = onnx;
  if (o.sourceName.empty())
    o.sourceName = path;
  if (o.modelDir.empty()) {
    fs::path dir = fs::path(path).parent_path();
    o.modelDir = dir.empty() ? "." : dir.string();
  }
  return importOnnxBytes(bytes, o);
}

} // namespace unity::frontend
