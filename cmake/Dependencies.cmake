# Finds every third-party dependency of ../shared/TOOLCHAIN.md and fails with a
# message naming the Debian package when one is missing. scripts/install-deps.sh
# installs them all.

function(lowerscope_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "Lowerscope needs ${what}. Install it with: "
      "sudo apt-get install ${package}   (or run scripts/install-deps.sh)")
  endif()
endfunction()

find_package(PkgConfig)
lowerscope_require(PkgConfig_FOUND "pkg-config" "pkg-config")

# LLVM: the version file rejects "19", so ask for 19.1 (see TOOLCHAIN.md), and
# link the shared libLLVM target.
find_package(LLVM 19.1 CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
lowerscope_require(LLVM_FOUND "LLVM 19" "llvm-19-dev libzstd-dev")
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

find_package(SQLite3)
lowerscope_require(SQLite3_FOUND "SQLite 3" "libsqlite3-dev")

pkg_check_modules(GRAPHVIZ IMPORTED_TARGET libgvc libcgraph)
lowerscope_require(GRAPHVIZ_FOUND "Graphviz (libgvc, libcgraph)" "libgraphviz-dev")

# Protobuf must come before ONNX's config, which refers to it.
find_package(Protobuf)
lowerscope_require(Protobuf_FOUND "protobuf" "libprotobuf-dev protobuf-compiler")
find_package(ONNX CONFIG)
lowerscope_require(ONNX_FOUND "ONNX (onnx_proto)" "libonnx-dev")

pkg_check_modules(OPENBLAS IMPORTED_TARGET openblas)
lowerscope_require(OPENBLAS_FOUND "OpenBLAS" "libopenblas-dev")

find_package(dnnl CONFIG)
lowerscope_require(dnnl_FOUND "oneDNN" "libdnnl-dev")

# Debian's xgboost CMake config references files the package does not ship,
# so find the C API directly.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h)
find_library(XGBOOST_LIBRARY xgboost)
if(XGBOOST_INCLUDE_DIR AND XGBOOST_LIBRARY)
  set(XGBOOST_FOUND TRUE)
  add_library(lowerscope_xgboost UNKNOWN IMPORTED)
  set_target_properties(lowerscope_xgboost PROPERTIES
    IMPORTED_LOCATION "${XGBOOST_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XGBOOST_INCLUDE_DIR}")
endif()
lowerscope_require(XGBOOST_FOUND "XGBoost" "libxgboost-dev")

find_package(nlohmann_json 3 CONFIG)
lowerscope_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")

find_package(CLI11 CONFIG)
lowerscope_require(CLI11_FOUND "CLI11" "libcli11-dev")

find_package(fmt CONFIG)
lowerscope_require(fmt_FOUND "fmt" "libfmt-dev")

find_package(Threads REQUIRED)

if(LOWERSCOPE_BUILD_TESTS)
  find_package(GTest CONFIG)
  lowerscope_require(GTest_FOUND "GoogleTest" "libgtest-dev")
endif()

if(LOWERSCOPE_BUILD_GUI)
  # Svg: packaging/ renders the icon with it (the app loads SVG icons through
  # Qt's image plugin, not by linking). Charts: bench/plot_curves draws the
  # tuning curves with it.
  find_package(Qt6 COMPONENTS Widgets Svg Test Concurrent Charts)
  lowerscope_require(Qt6_FOUND "Qt 6 (Widgets, Svg, Test, Concurrent, Charts)"
    "qt6-base-dev qt6-svg-dev libqt6opengl6-dev qt6-charts-dev")
endif()
