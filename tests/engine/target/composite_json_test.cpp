// CompositeTarget's JSON form: the object form in file order with a default,
// a single target object, a JSON string, round trip through toJSON, and
// errors that name the bad part.
#include <gtest/gtest.h>

#include "engine/support/error.h"
#include "engine/target/target.h"

using namespace unity;
using namespace unity::target;

namespace {

std::string errorOf(const std::string& json) {
  try {
    CompositeTarget::fromJSON(json);
  } catch (const Error& e) {
    return e.message();
  }
  return "<no error>";
}

} // namespace

TEST(CompositeTargetJSON, ObjectFormKeepsFileOrderAndDefault) {
  auto c = CompositeTarget::fromJSON(
      R"({"targets": {"zfast": "llvm -num-cores=2", "blas": {"kind": "openblas", "num-cores": 3},
                      "m7": "cortex-m7", "acompat": "c"}, "default": "blas"})");
  EXPECT_EQ(c.names(), (std::vector<std::string>{"zfast", "blas", "m7", "acompat"}));
  EXPECT_EQ(c.defaultName, "blas");
  EXPECT_EQ(c.at("blas").numCores(), 3);
  EXPECT_EQ(c.at("m7").get("mtriple"), "thumbv7em-none-eabi"); // the tag expanded
  EXPECT_EQ(c.at("zfast"), Target::parse("llvm -num-cores=2"));
  // The same composite as the string form.
  EXPECT_EQ(CompositeTarget::parse(c.str()).str(), c.str());
}

TEST(CompositeTargetJSON, DefaultIsTheFirstWhenNotGiven) {
  auto c = CompositeTarget::fromJSON(R"({"targets": {"b": "c", "a": "llvm"}})");
  EXPECT_EQ(c.defaultName, "b");
}

TEST(CompositeTargetJSON, ToJSONRoundTrips) {
  auto c = CompositeTarget::parse("cpu: llvm -opt-level=2; conv: dnnl -num-cores=1; default=conv");
  auto back = CompositeTarget::fromJSON(c.toJSON());
  EXPECT_EQ(back.str(), c.str());
  EXPECT_EQ(back.defaultName, "conv");
}

TEST(CompositeTargetJSON, SingleTargetObjectAndStringForms) {
  auto one = CompositeTarget::fromJSON(R"({"kind": "openblas", "num-cores": 2})");
  ASSERT_EQ(one.targets.size(), 1u);
  EXPECT_EQ(one.defaultName, "openblas");
  EXPECT_EQ(one.at("openblas").numCores(), 2);
  auto s = CompositeTarget::fromJSON(R"("a: llvm; b: c; default=b")");
  EXPECT_EQ(s.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.defaultName, "b");
}

TEST(CompositeTargetJSON, ErrorsNameThePart) {
  EXPECT_NE(errorOf("{\"targets\": {\"a\": \"llvm\"},\n \"default\" 3}").find("line 2"),
            std::string::npos);
  std::string bad = errorOf(R"({"targets": {"cpu": "llvm -bogus=1"}})");
  EXPECT_NE(bad.find("sub-target 'cpu'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("bogus"), std::string::npos) << bad;
  EXPECT_EQ(bad.find("error:"), std::string::npos) << "nested 'error:' prefix: " << bad;
  EXPECT_NE(errorOf(R"({"targets": {"a": "llvm"}, "default": "b"})").find("default 'b'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"targets": {}})").find("non-empty"), std::string::npos);
  EXPECT_NE(errorOf(R"({"targets": {"a": 3}})").find("sub-target 'a'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"targets": {"a": "llvm"}, "defualt": "a"})").find("unknown key"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"targets": {"a b": "llvm"}})").find("invalid sub-target name"),
            std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("must be an object"), std::string::npos);
}
