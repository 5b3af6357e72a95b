#include "engine/support/npy.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "engine/support/error.h"

namespace unity {

namespace {

std::optional<DataType> fromDescr(const std::string& d) {
  if (d.size() < 3)
    return std::nullopt;
  char endian = d[0], kind = d[1];
  int bytes = std::atoi(d.c_str() + 2);
  if (endian == '>' && bytes > 1)
    return std::nullopt;
  switch (kind) {
  case 'f':
    return bytes == 4   ? DataType::Float(32)
           : bytes == 8 ? DataType::Float(64)
           : bytes == 2 ? DataType::Float(16)
                        : DataType();
  case 'i':
    return DataType::Int(bytes * 8);
  case 'u':
    return DataType::UInt(bytes * 8);
  case 'b':
    return bytes == 1 ? std::optional<DataType>(DataType::Bool()) : std::nullopt;
  default:
    return std::nullopt;
  }
}

std::string descrOf(DataType t) {
  switch (t.code) {
  case DataType::Code::Float:
    return "<f" + std::to_string(t.bits / 8);
  case DataType::Code::Int:
    return t.bits == 8 ? "|i1" : "<i" + std::to_string(t.bits / 8);
  case DataType::Code::UInt:
    return t.bits == 8 ? "|u1" : "<u" + std::to_string(t.bits / 8);
  case DataType::Code::Bool:
    return "|b1";
  default:
    throw Error("cannot write dtype " + t.str() + " as .npy");
  }
}

} // namespace

Tensor readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string& why) -> Error {
    return Error(path + ": not a valid .npy file: " + why);
  };
  if (all.size() < 10 || std::memcmp(all.data(), "\x93NUMPY", 6) != 0)
    throw fail("bad magic");
  int major = static_cast<unsigned char>(all[6]);
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(all[8]) | (static_cast<unsigned char>(all[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (all.size() < 12)
      throw fail("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(static_cast<unsigned char>(all[8 + i])) << (8 * i);
    offset = 12;
  } else {
    throw fail("unsupported version " + std::to_string(major));
  }
  if (offset + headerLen > all.size())
    throw fail("truncated header");
  std::string header = all.substr(offset, headerLen);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']+)')")))
    throw fail("no descr");
  auto dtype = fromDescr(m[1]);
  if (!dtype || dtype->isVoid())
    throw fail("unsupported dtype '" + std::string(m[1]) + "'");
  if (std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*True)")))
    throw fail("Fortran order is not supported");
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
    throw fail("no shape");
  std::vector<int64_t> shape;
  std::stringstream ss(m[1].str());
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos)
      continue;
    shape.push_back(std::stoll(item));
  }
  Tensor t(*dtype, shape);
  size_t data = offset + headerLen;
  if (all.size() - data < t.nbytes())
    throw fail("truncated data");
  if (t.nbytes())
    std::memcpy(t.mutableData(), all.data() + data, t.nbytes());
  return t;
}

void writeNpy(const std::string& path, const Tensor& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i)
    shape += std::to_string(t.shape()[i]) +
             (t.shape().size() == 1 || i + 1 < t.shape().size() ? "," : "");
  for (size_t i = 0; i + 1 < t.shape().size(); ++i) {
  }
  shape += ")";
  std::string header =
      "{'descr': '" + descrOf(t.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw Error(path + ": cannot write file");
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out << header;
  out.write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
  if (!out)
    throw Error(path + ": write failed");
}

} // namespace unity
