#include "engine/viz/graphviz_info.h"

#include <graphviz/gvc.h>

namespace unity::viz {

std::string graphvizVersion() {
  // Ask the library itself rather than a header macro, so a mismatched
  // runtime is visible.
  GVC_t* gvc = gvContext();
  std::string version = gvcVersion(gvc) ? gvcVersion(gvc) : "unknown";
  gvFreeContext(gvc);
  return version;
}

} // namespace unity::viz
