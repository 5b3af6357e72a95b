#include "engine/ir/attrs.h"

#include <algorithm>

#include <fmt/format.h>

namespace unity::ir {

namespace {
template <class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}
} // namespace

std::string attrValueStr(const AttrValue& v) {
  return std::visit(
      Overloaded{
          [](bool b) -> std::string { return b ? "True" : "False"; },
          [](int64_t i) -> std::string { return std::to_string(i); },
          [](double d) -> std::string {
            std::string s = fmt::format("{}", d);
            if (s.find_first_of(".eEn") == std::string::npos)
              s += ".0";
            return s;
          },
          [](const std::string& s) { return quote(s); },
          [](DataType t) { return quote(t.str()); },
          [](const std::vector<int64_t>& xs) { return fmt::format("[{}]", fmt::join(xs, ", ")); },
          [](const std::vector<double>& xs) {
            std::vector<std::string> parts;
            for (double d : xs)
              parts.push_back(attrValueStr(AttrValue(d)));
            return fmt::format("[{}]", fmt::join(parts, ", "));
          },
          [](const std::vector<std::string>& xs) {
            std::vector<std::string> parts;
            for (auto& s : xs)
              parts.push_back(quote(s));
            return fmt::format("[{}]", fmt::join(parts, ", "));
          },
      },
      v);
}

Attrs::Attrs(std::initializer_list<Entry> entries) {
  for (auto& e : entries)
    set(e.first, e.second);
}

const AttrValue* Attrs::find(const std::string& key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, const std::string& k) { return e.first < k; });
  return it != entries_.end() && it->first == key ? &it->second : nullptr;
}

void Attrs::set(const std::string& key, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, const std::string& k) { return e.first < k; });
  if (it != entries_.end() && it->first == key)
    it->second = std::move(value);
  else
    entries_.insert(it, Entry{key, std::move(value)});
}

Attrs Attrs::with(const std::string& key, AttrValue value) const {
  Attrs copy = *this;
  copy.set(key, std::move(value));
  return copy;
}

Attrs Attrs::without(const std::string& key) const {
  Attrs copy = *this;
  std::erase_if(copy.entries_, [&](const Entry& e) { return e.first == key; });
  return copy;
}

int64_t Attrs::getInt(const std::string& key, int64_t dflt) const {
  if (auto v = get<int64_t>(key))
    return *v;
  if (auto b = get<bool>(key))
    return *b;
  return dflt;
}
double Attrs::getFloat(const std::string& key, double dflt) const {
  if (auto v = get<double>(key))
    return *v;
  if (auto i = get<int64_t>(key))
    return static_cast<double>(*i);
  return dflt;
}
bool Attrs::getBool(const std::string& key, bool dflt) const {
  if (auto v = get<bool>(key))
    return *v;
  if (auto i = get<int64_t>(key))
    return *i != 0;
  return dflt;
}
std::string Attrs::getString(const std::string& key, const std::string& dflt) const {
  if (auto v = get<std::string>(key))
    return *v;
  if (auto t = get<DataType>(key))
    return t->str();
  return dflt;
}
std::vector<int64_t> Attrs::getInts(const std::string& key, std::vector<int64_t> dflt) const {
  if (auto v = get<std::vector<int64_t>>(key))
    return *v;
  if (auto i = get<int64_t>(key))
    return {*i};
  return dflt;
}

} // namespace unity::ir
