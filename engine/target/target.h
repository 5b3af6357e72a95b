#pragma once
// Target: a kind plus attributes, parsed from and printed to the familiar
// string form ("llvm -mcpu=skylake-avx512 -num-cores=2").
//
// Each kind declares the attributes it accepts; an unknown attribute or a
// malformed value is an error naming it. (Composite targets, tags, JSON and
// the kinds' lowering hooks build on this; see docs/adding-a-target-kind.md
// once they exist.)
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace unity::target {

struct Target {
  std::string kind;
  std::map<std::string, std::string> attrs; // without the leading '-'

  /// Parses "kind -key=value -flag ..."; throws unity::Error.
  static Target parse(const std::string& text);
  std::string str() const;

  std::string get(const std::string& key, const std::string& dflt = {}) const;
  int getInt(const std::string& key, int dflt) const;
  bool getBool(const std::string& key, bool dflt) const;

  /// True when code for this target runs on this machine (llvm/c without a
  /// foreign -mtriple).
  bool isHost() const;
  /// The number of threads kernels may use (-num-cores, default: all).
  int numCores() const;
};

struct TargetKindInfo {
  std::string name;
  std::vector<std::string> attrs; // accepted attribute names
  std::string doc;
};
const TargetKindInfo* findTargetKind(const std::string& name);
std::vector<const TargetKindInfo*> allTargetKinds();

} // namespace unity::target
