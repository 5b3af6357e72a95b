// libFuzzer target for the text format: any input must either parse or be
// rejected with unity::Error (never a crash, hang or other exception), and
// whatever parses must print, re-parse and print identically.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  unity::ir::IRModule m;
  try {
    m = unity::text::parseModule(src, "fuzz.uir");
  } catch (const unity::Error&) {
    return 0;
  }
  std::string text = unity::text::printModule(m);
  // The printed form of a parsed module must itself round-trip.
  unity::ir::IRModule again = unity::text::parseModule(text, "printed.uir");
  if (unity::text::printModule(again) != text)
    __builtin_trap();
  return 0;
}
