#pragma once
// Attributes of operator calls, functions, loops and modules: a small
// key-sorted dictionary of plain values. Being a value type (not a node) keeps
// it trivial to compare, hash and print.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/support/dtype.h"

namespace unity::ir {

using AttrValue = std::variant<bool, int64_t, double, std::string, DataType, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>>;

std::string attrValueStr(const AttrValue& v);

class Attrs {
public:
  using Entry = std::pair<std::string, AttrValue>;
  Attrs() = default;
  Attrs(std::initializer_list<Entry> entries);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  bool has(const std::string& key) const { return find(key) != nullptr; }
  const AttrValue* find(const std::string& key) const;
  /// Returns a copy with key set (replacing an existing value).
  Attrs with(const std::string& key, AttrValue value) const;
  Attrs without(const std::string& key) const;
  void set(const std::string& key, AttrValue value);

  template <class T> std::optional<T> get(const std::string& key) const {
    if (auto* v = find(key))
      if (auto* t = std::get_if<T>(v))
        return *t;
    return std::nullopt;
  }
  int64_t getInt(const std::string& key, int64_t dflt) const;
  double getFloat(const std::string& key, double dflt) const; // accepts ints too
  bool getBool(const std::string& key, bool dflt) const;
  std::string getString(const std::string& key, const std::string& dflt = {}) const;
  std::vector<int64_t> getInts(const std::string& key, std::vector<int64_t> dflt = {}) const;

  friend bool operator==(const Attrs&, const Attrs&) = default;

private:
  std::vector<Entry> entries_; // sorted by key, unique keys
};

} // namespace unity::ir
