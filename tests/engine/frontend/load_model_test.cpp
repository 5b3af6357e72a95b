// frontend::loadModel, the one model loader of the CLI, the GUI and the
// tests: text IR or ONNX by content, whatever the extension, and an error
// naming the file for anything else.
#include "engine/frontend/load_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engine/ir/expr.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using unity::testing::OnnxModelBuilder;

namespace {

namespace fs = std::filesystem;

/// A graph whose input is named `onnx_x`: Relu(onnx_x).
std::string onnxBytes() {
  OnnxModelBuilder b;
  b.input("onnx_x", {int64_t(2), int64_t(3)});
  b.node("Relu", {"onnx_x"}, {"Y"}, "relu");
  b.output("Y");
  return b.bytes();
}

/// The same as text IR, its parameter named `text_x`.
const char* kTextIR = R"(# unity IR module
# A comment in UTF-8: größer als null.

@R.function
def main(text_x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    y = R.nn.relu(text_x)
    return y
)";

class LoadModel : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("load_model_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  /// The name of main's first parameter: tells which content was read.
  static std::string firstParam(const ir::IRModule& m) {
    auto* f = ir::as<ir::Function>(m->lookup("main"));
    if (!f || f->params.empty())
      return "<no main or no parameter>";
    return f->params[0]->name;
  }

  /// what() of the unity::Error that loading `path` throws ("" when none).
  static std::string errorOf(const std::string& path) {
    try {
      frontend::loadModel(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(LoadModel, OnnxByExtension) {
  EXPECT_EQ(firstParam(frontend::loadModel(write("m.onnx", onnxBytes()))), "onnx_x");
}

TEST_F(LoadModel, TextIRByExtension) {
  EXPECT_EQ(firstParam(frontend::loadModel(write("m.uir", kTextIR))), "text_x");
}

TEST_F(LoadModel, ContentDecidesWhenTheExtensionIsWrongOrMissing) {
  EXPECT_EQ(firstParam(frontend::loadModel(write("onnx.uir", onnxBytes()))), "onnx_x");
  EXPECT_EQ(firstParam(frontend::loadModel(write("onnx_no_extension", onnxBytes()))), "onnx_x");
  EXPECT_EQ(firstParam(frontend::loadModel(write("text.onnx", kTextIR))), "text_x");
  EXPECT_EQ(firstParam(frontend::loadModel(write("text.txt", kTextIR))), "text_x");
}

TEST_F(LoadModel, SniffingTellsProtobufFromText) {
  EXPECT_EQ(frontend::sniffModelFormat(onnxBytes()), frontend::ModelFormat::Onnx);
  EXPECT_EQ(frontend::sniffModelFormat(kTextIR), frontend::ModelFormat::TextIR);
  EXPECT_EQ(frontend::sniffModelFormat(std::string("def\0main", 8)), frontend::ModelFormat::Onnx);
}

TEST_F(LoadModel, GarbageIsAnErrorNamingTheFileAndTheCause) {
  const std::string garbage("\xff\xfe\x01\x02 garbage \x00\x07", 16);
  for (const char* name : {"junk.uir", "junk.bin"}) {
    std::string path = write(name, garbage);
    std::string msg = errorOf(path);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("neither text IR nor an ONNX model"), std::string::npos) << msg;
  }
  std::string path = write("junk.onnx", garbage);
  std::string msg = errorOf(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a valid ONNX model"), std::string::npos) << msg;
}

TEST_F(LoadModel, MissingEmptyAndDirectoryAreErrorsNamingTheFile) {
  std::string missing = (dir_ / "missing.uir").string();
  EXPECT_NE(errorOf(missing).find(missing + ": no such file"), std::string::npos)
      << errorOf(missing);
  std::string empty = write("empty.onnx", "");
  EXPECT_NE(errorOf(empty).find(empty + ": empty file"), std::string::npos) << errorOf(empty);
  fs::create_directories(dir_ / "model.onnx");
  std::string folder = (dir_ / "model.onnx").string();
  EXPECT_NE(errorOf(folder).find(folder + ": is a directory"), std::string::npos)
      << errorOf(folder);
}

TEST_F(LoadModel, TextParseErrorsKeepTheirLocation) {
  const std::string broken = "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n"
                             "    return y\n";
  for (const char* name : {"broken.uir", "broken.onnx"}) {
    std::string path = write(name, broken);
    try {
      frontend::loadModel(path);
      FAIL() << name << " loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.loc().file, path);
      EXPECT_EQ(e.loc().line, 3);
      EXPECT_NE(e.message().find("undefined variable 'y'"), std::string::npos) << e.what();
      // A text file named .onnx says so, since the parser's message alone
      // would puzzle someone who expects a protobuf.
      bool saysText = e.message().find("holds text") != std::string::npos;
      EXPECT_EQ(saysText, std::string(name) == "broken.onnx") << e.what();
    }
  }
}

} // namespace
