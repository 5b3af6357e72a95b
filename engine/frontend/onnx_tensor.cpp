// TensorProto (initializers, Constant attributes) -> unity::Tensor, including
// external data. Integer payloads are copied exactly (never through double:
// int64 shape constants such as INT64_MAX must survive). External data is
// read from a file resolved against the model's folder; after resolving
// symlinks and "..", the path must still lie inside that folder, so a model
// cannot make the importer read arbitrary files.
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/support/error.h"

namespace unity::frontend::detail {

namespace fs = std::filesystem;

namespace {

template <class T> void storeAs(Tensor& t, int64_t i, T v) {
  std::memcpy(static_cast<char*>(t.mutableData()) + i * sizeof(T), &v, sizeof(T));
}

} // namespace

void setIntAt(Tensor& t, int64_t i, int64_t v) {
  DataType d = t.dtype();
  if (d.isBool())
    storeAs<uint8_t>(t, i, v != 0);
  else if (d.isInt() && d.bits == 8)
    storeAs<int8_t>(t, i, static_cast<int8_t>(v));
  else if (d.isInt() && d.bits == 16)
    storeAs<int16_t>(t, i, static_cast<int16_t>(v));
  else if (d.isInt() && d.bits == 32)
    storeAs<int32_t>(t, i, static_cast<int32_t>(v));
  else if (d.isInt() && d.bits == 64)
    storeAs<int64_t>(t, i, v);
  else if (d.isUInt() && d.bits == 8)
    storeAs<uint8_t>(t, i, static_cast<uint8_t>(v));
  else if (d.isUInt() && d.bits == 16)
    storeAs<uint16_t>(t, i, static_cast<uint16_t>(v));
  else if (d.isUInt() && d.bits == 32)
    storeAs<uint32_t>(t, i, static_cast<uint32_t>(v));
  else if (d.isUInt() && d.bits == 64)
    storeAs<uint64_t>(t, i, static_cast<uint64_t>(v));
  else if (d.isFloat() && d.bits == 16) // float16 bit patterns travel in int32_data
    storeAs<uint16_t>(t, i, static_cast<uint16_t>(v));
  else
    t.setDouble(i, static_cast<double>(v));
}

namespace {

std::string readExternal(const onnx::TensorProto& tp, const std::string& modelDir,
                         const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : tp.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = std::stoll(kv.value());
    else if (kv.key() == "length")
      length = std::stoll(kv.value());
  }
  if (location.empty())
    throw Error(what + ": external data without a location");
  if (modelDir.empty())
    throw Error(what + ": external data '" + location +
                "' needs the model's folder (import from a file, or set ImportOptions::modelDir)");
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(modelDir), ec);
  fs::path file = fs::weakly_canonical(base / fs::path(location), ec);
  fs::path rel = file.lexically_relative(base);
  if (fs::path(location).is_absolute() || rel.empty() || *rel.begin() == "..")
    throw Error(what + ": external data path '" + location + "' resolves to '" + file.string() +
                "', outside the model's folder '" + base.string() + "'; refusing to read it");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw Error(what + ": cannot open external data file '" + file.string() + "'");
  in.seekg(0, std::ios::end);
  int64_t size = static_cast<int64_t>(in.tellg());
  if (offset < 0 || offset > size || (length >= 0 && offset + length > size))
    throw Error(what + ": external data range [" + std::to_string(offset) + ", +" +
                std::to_string(length) + ") lies outside '" + file.string() + "' (" +
                std::to_string(size) + " bytes)");
  if (length < 0)
    length = size - offset;
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in)
    throw Error(what + ": cannot read external data from '" + file.string() + "'");
  return bytes;
}

} // namespace

int64_t declaredElements(DataType dtype, const std::vector<int64_t>& shape,
                         const std::string& what) {
  // Checked in unsigned 128-bit steps: a product of int64 dims can wrap.
  unsigned __int128 n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    n *= static_cast<uint64_t>(d);
    if (n > static_cast<unsigned __int128>(INT64_MAX))
      overflow = true, n = static_cast<unsigned __int128>(INT64_MAX) + 1;
  }
  unsigned __int128 bytes = n * dtype.bytes();
  if (overflow || bytes > static_cast<unsigned __int128>(kMaxTensorBytes)) {
    std::string size = overflow ? "more than 2^63 elements"
                                : std::to_string(static_cast<uint64_t>(bytes)) + " bytes";
    throw Error(what + ": declared shape " + dtype.str() + Tensor::shapeStr(shape) + " needs " +
                size + ", over the limit of " + std::to_string(kMaxTensorBytes) +
                " bytes (2^40) for one tensor; the model is corrupt or its sizes overflow memory");
  }
  return static_cast<int64_t>(n);
}

Tensor tensorFromProto(const onnx::TensorProto& tp, const std::string& modelDir,
                       const std::string& what) {
  auto dtype = dtypeFromOnnx(tp.data_type());
  if (!dtype)
    throw Unsupported{
        what + ": tensor data type " +
        onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(tp.data_type())) +
        " is not supported"};
  std::vector<int64_t> shape(tp.dims().begin(), tp.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      throw Error(what + ": negative dimension in tensor shape " + Tensor::shapeStr(shape));
  int64_t n = declaredElements(*dtype, shape, what);
  auto need = [&](int64_t have) {
    if (have != n)
      throw Error(what + ": tensor has " + std::to_string(have) + " values for shape " +
                  Tensor::shapeStr(shape));
  };
  // The data present is checked against the declared shape before anything
  // is allocated: a corrupt or hostile shape must not turn into an
  // allocation of its declared size.
  bool external = tp.has_data_location() && tp.data_location() == onnx::TensorProto::EXTERNAL;
  std::string ext;
  if (external || tp.has_raw_data()) {
    const std::string& raw = external ? (ext = readExternal(tp, modelDir, what)) : tp.raw_data();
    if (raw.size() != static_cast<size_t>(n) * dtype->bytes())
      throw Error(what + ": " + (external ? "external" : "raw") + " data has " +
                  std::to_string(raw.size()) + " bytes, expected " +
                  std::to_string(static_cast<size_t>(n) * dtype->bytes()) + " for " + dtype->str() +
                  Tensor::shapeStr(shape));
  } else if (tp.float_data_size()) {
    need(tp.float_data_size());
  } else if (tp.double_data_size()) {
    need(tp.double_data_size());
  } else if (tp.int64_data_size()) {
    need(tp.int64_data_size());
  } else if (tp.int32_data_size()) {
    need(tp.int32_data_size());
  } else if (tp.uint64_data_size()) {
    need(tp.uint64_data_size());
  } else if (n != 0) {
    throw Error(what + ": tensor has no data (declared " + dtype->str() + Tensor::shapeStr(shape) +
                ")");
  }
  Tensor t(*dtype, shape);
  if (external || tp.has_raw_data()) {
    const std::string& raw = external ? ext : tp.raw_data();
    if (n)
      std::memcpy(t.mutableData(), raw.data(), t.nbytes());
  } else if (tp.float_data_size()) {
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, tp.float_data(static_cast<int>(i)));
  } else if (tp.double_data_size()) {
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, tp.double_data(static_cast<int>(i)));
  } else if (tp.int64_data_size()) {
    for (int64_t i = 0; i < n; ++i)
      setIntAt(t, i, tp.int64_data(static_cast<int>(i)));
  } else if (tp.int32_data_size()) {
    for (int64_t i = 0; i < n; ++i)
      setIntAt(t, i, tp.int32_data(static_cast<int>(i)));
  } else if (tp.uint64_data_size()) {
    for (int64_t i = 0; i < n; ++i)
      setIntAt(t, i, static_cast<int64_t>(tp.uint64_data(static_cast<int>(i))));
  }
  return t;
}

} // namespace unity::frontend::detail
