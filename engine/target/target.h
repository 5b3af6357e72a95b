#pragma once
// Target: a kind plus attributes, parsed from and printed to the familiar
// string form ("llvm -mcpu=skylake-avx512 -num-cores=2") and to JSON
// ({"kind": "llvm", "mcpu": "skylake-avx512"}); tags name common machines
// ("cortex-m7" -> "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7 ...").
//
// Each kind declares the attributes it accepts; an unknown attribute or a
// malformed value is an error naming it. A kind's lowering hooks are not
// here: they are passes and codegen functions, registered by kind name in
// engine/transform/target_hooks.h; this folder only describes targets.
//
// A CompositeTarget maps names to sub-targets
// ("fast: llvm -mcpu=native; compat: c; blas: openblas", default: the first
// or `default=NAME`). The module keeps it in its "target" attribute (string
// form); each function's "target" attribute names one sub-target.
// See docs/targets.md.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace unity::target {

struct Target {
  std::string kind;
  std::map<std::string, std::string> attrs; // without the leading '-'

  /// Parses "kind -key=value -flag ..." or a tag name ("cortex-m7", possibly
  /// followed by extra -key=value attributes); throws unity::Error.
  static Target parse(const std::string& text);
  /// Parses {"kind": "llvm", "mcpu": "..."} (or {"kind":..., "attrs":{...}});
  /// values may be strings, integers or booleans. Throws unity::Error.
  static Target fromJSON(const std::string& json);
  std::string str() const;
  std::string toJSON() const;

  std::string get(const std::string& key, const std::string& dflt = {}) const;
  int getInt(const std::string& key, int dflt) const;
  bool getBool(const std::string& key, bool dflt) const;

  /// True when code for this target runs on this machine (llvm/c without a
  /// foreign -mtriple; library kinds always).
  bool isHost() const;
  /// The number of threads kernels may use (-num-cores, default: all).
  int numCores() const;

  friend bool operator==(const Target&, const Target&) = default;
};

/// How an attribute's value is checked.
enum class AttrType { String, Int, Bool };
struct TargetAttrInfo {
  std::string name;
  AttrType type = AttrType::String;
  int minValue = 0, maxValue = 0; // Int only; min == max == 0: unchecked
};

struct TargetKindInfo {
  std::string name;
  std::vector<TargetAttrInfo> attrs; // accepted attributes
  std::string doc;
  bool hasAttr(const std::string& a) const;
};
const TargetKindInfo* findTargetKind(const std::string& name);
std::vector<const TargetKindInfo*> allTargetKinds();
/// Adds (or replaces) a kind: how a new kind is plugged in (see
/// docs/adding-a-target-kind.md); its hooks are registered separately
/// (transform::registerKindHooks).
void registerTargetKind(TargetKindInfo info);

/// The triple LLVM treats as the host's (its default target triple, fixed
/// when the engine was configured against LLVM): an llvm/c target with this
/// -mtriple, or none, runs here. Equal to codegen::hostTriple(), without
/// needing LLVM.
std::string hostTriple();

/// Tags: names for common machines, mapped to target strings.
std::optional<std::string> findTag(const std::string& name);
std::vector<std::pair<std::string, std::string>> allTags();

/// Named sub-targets plus a default. Order is kept (it is the printing order).
struct CompositeTarget {
  std::vector<std::pair<std::string, Target>> targets;
  std::string defaultName;

  /// "name: target; name: target[; default=name]". A plain target string
  /// without any ':' gives a single sub-target named after its kind.
  /// Throws unity::Error naming the bad part.
  static CompositeTarget parse(const std::string& text);
  /// {"targets": {"fast": "llvm -mcpu=native", "blas": {"kind": "openblas",
  /// "num-cores": 2}}, "default": "fast"}: each sub-target a target string
  /// (tags allowed) or a target JSON object, in file order; "default"
  /// optional (the first). A single target object {"kind": ...} gives one
  /// sub-target named after its kind; a JSON string is parsed as the string
  /// form. Throws unity::Error naming the bad part (parse errors with line
  /// and column).
  static CompositeTarget fromJSON(const std::string& json);
  std::string str() const;
  /// The first JSON form above.
  std::string toJSON() const;

  const Target* find(const std::string& name) const;
  /// Throws unity::Error listing the known names.
  const Target& at(const std::string& name) const;
  const Target& defaultTarget() const { return at(defaultName); }
  std::vector<std::string> names() const;
};

/// True when text is a composite ("a: llvm; b: c"), false for a plain target.
bool isCompositeTargetString(const std::string& text);

} // namespace unity::target
