// libFuzzer target for the ONNX importer: any bytes must either import or be
// refused with unity::Error (a malformed protobuf, an unsupported node, a bad
// attribute, a size the file does not back...), never a crash, a hang, a
// leak or another exception. Both modes are exercised: the strict import
// (`import`, `build`) and the viewing import that keeps unsupported nodes as
// placeholders (`print`, `render`, the workbench); whatever imports must
// print as text IR.
//
//   cmake --preset fuzz && cmake --build --preset fuzz --target onnx_import_fuzz
//   build/fuzz/tests/fuzz/onnx_import_fuzz -max_total_time=1800 -timeout=20 \
//       -rss_limit_mb=4096 CORPUS_DIR SEED_DIR...
// Seeds: the model.onnx files of /usr/share/libonnx-testdata/data/node/*
// (tests/fuzz/seed_onnx_corpus.sh copies them into one folder).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "engine/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool keep : {false, true}) {
    unity::frontend::ImportOptions o;
    o.sourceName = "fuzz.onnx";
    o.modelDir = "/nonexistent-fuzz-dir"; // external data never resolves to a real file
    o.keepUnsupported = keep;
    try {
      auto m = unity::frontend::importOnnxBytes(bytes, o);
      (void)unity::text::printModule(m);
    } catch (const unity::Error&) {
    }
  }
  return 0;
}
