# CPack: `cpack -G DEB` from the release build (see packaging/README.md).
# What goes in is whatever the install() rules put under the prefix: the two
# executables (app/) and the desktop integration files (packaging/).
set(CPACK_PACKAGE_NAME "lowerscope")
set(CPACK_PACKAGE_VENDOR "Lowerscope developers")
set(CPACK_PACKAGE_CONTACT "Lowerscope developers <lowerscope@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
  "Lowerscope opens a model (ONNX or text IR), builds it with the unity tensor compiler and
shows every pass before and after, as a graph and as text. lowerscope is the Qt
workbench; lowerscope-cli offers the same operations from the command line.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Runtime dependencies (libQt6*, libllvm19, libsqlite3-0, ...) are computed
# from the binaries by dpkg-shlibdeps (package dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded at run time, so invisible to dpkg-shlibdeps: Qt's SVG icon engine
# draws the window icon.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6svg6")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
include(CPack)
