#pragma once
#include <string>

namespace unity::viz {

/// The Graphviz library version this build links (libgvc), e.g. "2.43.0".
std::string graphvizVersion();

} // namespace unity::viz
