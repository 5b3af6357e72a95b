// The host module of the C backend: writes the generated source into a fresh
// temporary directory, runs the system C compiler (`$CC` or `cc`, -O3
// -shared -fPIC), dlopens the result and looks every kernel up. The shared
// object stays mapped for the module's lifetime; the directory is removed
// right after loading. Compiler failures become unity::Error carrying the
// compiler's own messages.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/codegen/c_codegen.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"

namespace unity::codegen {

namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "unity-c-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw Error("C backend: cannot create a temporary directory");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs `compiler flags extra -o out src`; throws with the compiler output.
void runCompiler(const CCompileOptions& opts, const std::string& extra, const TempDir& dir,
                 const std::string& source, const std::string& outName) {
  std::string cc = opts.compiler;
  if (cc.empty()) {
    const char* env = std::getenv("CC");
    cc = env && *env ? env : "cc";
  }
  fs::path src = dir.path / "kernels.c", out = dir.path / outName, log = dir.path / "cc.log";
  {
    std::ofstream f(src);
    f << source;
    if (!f)
      throw Error("C backend: cannot write " + src.string());
  }
  std::string libs = extra == "-shared" ? " -lm" : "";
  std::string cmd = cc + " " + opts.flags + " -std=gnu11 -fPIC " + extra + " -o " +
                    shellQuote(out.string()) + " " + shellQuote(src.string()) + libs + " > " +
                    shellQuote(log.string()) + " 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc != 0)
    throw Error("C backend: '" + cc + "' failed (status " + std::to_string(rc) + "):\n" +
                readFile(log));
}

class CHostModule : public CompiledModule {
public:
  CHostModule(const NamedPrimFuncs& funcs, CCompileOptions opts) : opts_(std::move(opts)) {
    source_ = emitCSource(funcs);
    TempDir dir;
    runCompiler(opts_, "-shared", dir, source_, "kernels.so");
    handle_ = dlopen((dir.path / "kernels.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
      throw Error(std::string("C backend: dlopen failed: ") + dlerror());
    for (auto& [name, f] : funcs) {
      void* sym = dlsym(handle_, cSymbol(name).c_str());
      if (!sym)
        throw Error("C backend: symbol '" + cSymbol(name) + "' missing from the library");
      kernels_[name] = {reinterpret_cast<KernelFn>(sym), transform::lowerForCodegen(f)};
      order_.push_back(name);
    }
  }
  ~CHostModule() override {
    if (handle_)
      dlclose(handle_);
  }

  KernelFn lookup(const std::string& name) const override {
    auto it = kernels_.find(name);
    if (it == kernels_.end())
      throw Error("C module has no kernel '" + name + "'");
    return it->second.first;
  }
  ir::PrimFuncRef function(const std::string& name) const override {
    auto it = kernels_.find(name);
    return it == kernels_.end() ? ir::PrimFuncRef() : it->second.second;
  }
  std::vector<std::string> names() const override { return order_; }
  std::string llvmIR() const override { return {}; }
  std::string assembly() const override {
    TempDir dir;
    runCompiler(opts_, "-S", dir, source_, "kernels.s");
    return readFile(dir.path / "kernels.s");
  }
  std::vector<char> object() const override {
    TempDir dir;
    runCompiler(opts_, "-c", dir, source_, "kernels.o");
    std::string s = readFile(dir.path / "kernels.o");
    return {s.begin(), s.end()};
  }
  const std::string& source() const { return source_; }

private:
  CCompileOptions opts_;
  std::string source_;
  void* handle_ = nullptr;
  std::map<std::string, std::pair<KernelFn, ir::PrimFuncRef>> kernels_;
  std::vector<std::string> order_;
};

} // namespace

std::unique_ptr<CompiledModule> compileCForHost(const NamedPrimFuncs& funcs,
                                                const CCompileOptions& opts) {
  return std::make_unique<CHostModule>(funcs, opts);
}

} // namespace unity::codegen
