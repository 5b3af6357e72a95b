#include <gtest/gtest.h>

#include "engine/codegen/codegen.h"
#include "engine/codegen/llvm_info.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/target_hooks.h"

using namespace unity;
using namespace unity::target;

TEST(TargetParse, StringRoundTrip) {
  Target t = Target::parse("llvm -mcpu=skylake -num-cores=2");
  EXPECT_EQ(t.kind, "llvm");
  EXPECT_EQ(t.get("mcpu"), "skylake");
  EXPECT_EQ(t.getInt("num-cores", 0), 2);
  EXPECT_EQ(Target::parse(t.str()), t);
}

TEST(TargetParse, ErrorsNameTheAttribute) {
  try {
    Target::parse("c -bogus=1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-bogus"), std::string::npos);
  }
  EXPECT_THROW(Target::parse("llvm -num-cores=0"), Error);
  EXPECT_THROW(Target::parse("llvm -fast-math=maybe"), Error);
  EXPECT_THROW(Target::parse("cuda"), Error);
  EXPECT_THROW(Target::parse(""), Error);
}

TEST(TargetJSON, RoundTripAndTypes) {
  Target t = Target::fromJSON(R"({"kind": "llvm", "mcpu": "cortex-a72", "num-cores": 4,
                                  "fast-math": true})");
  EXPECT_EQ(t.get("mcpu"), "cortex-a72");
  EXPECT_EQ(t.get("num-cores"), "4");
  EXPECT_EQ(t.get("fast-math"), "true");
  EXPECT_EQ(Target::fromJSON(t.toJSON()), t);
  EXPECT_THROW(Target::fromJSON(R"({"mcpu": "x"})"), Error);
  EXPECT_THROW(Target::fromJSON(R"({"kind": "llvm", "num-cores": "many"})"), Error);
  EXPECT_THROW(Target::fromJSON("{nope"), Error);
}

TEST(TargetTags, ExpandToTargets) {
  Target m7 = Target::parse("cortex-m7");
  EXPECT_EQ(m7.kind, "llvm");
  EXPECT_EQ(m7.get("mtriple"), "thumbv7em-none-eabi");
  EXPECT_EQ(m7.get("mcpu"), "cortex-m7");
  EXPECT_FALSE(m7.isHost());
  Target extra = Target::parse("cortex-m0 -opt-level=2");
  EXPECT_EQ(extra.get("mcpu"), "cortex-m0");
  EXPECT_EQ(extra.get("opt-level"), "2");
  for (const char* tag : {"host", "cortex-m4", "cortex-a72", "x86-64-v2", "x86-64-v3", "x86-64-v4"})
    EXPECT_NO_THROW(Target::parse(tag)) << tag;
}

TEST(TargetKinds, LibraryAndCKindsExist) {
  codegen::registerCodegenKindHooks(); // what build() does first
  for (const char* k : {"llvm", "c", "openblas", "dnnl"}) {
    const TargetKindInfo* info = findTargetKind(k);
    ASSERT_NE(info, nullptr) << k;
    const transform::TargetKindHooks* hooks = transform::findKindHooks(k);
    ASSERT_NE(hooks, nullptr) << k;
    EXPECT_TRUE(hooks->tirToRuntime) << k;
  }
  // Library kinds claim patterns; the code-generating kinds take the
  // generic pipeline.
  EXPECT_TRUE(transform::findKindHooks("openblas")->claims);
  EXPECT_FALSE(transform::findKindHooks("llvm")->graphToTir);
  EXPECT_EQ(transform::findKindHooks("no-such-kind"), nullptr);
  EXPECT_THROW(Target::parse("openblas -mcpu=x"), Error);
}

TEST(TargetHost, TripleIsLLVMsDefaultTriple) {
  // target/ knows the host triple without LLVM; it must be the one codegen's
  // LLVM uses, or isHost() would JIT code for another machine.
  EXPECT_EQ(hostTriple(), codegen::hostTriple());
  EXPECT_TRUE(Target::parse("llvm -mtriple=" + hostTriple()).isHost());
  EXPECT_FALSE(Target::parse("cortex-m7").isHost());
}

TEST(CompositeTarget, ParsePrintDefault) {
  auto c = CompositeTarget::parse("fast: llvm -mcpu=native; compat: c; "
                                  "m7: llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7; "
                                  "blas: openblas");
  EXPECT_EQ(c.names(), (std::vector<std::string>{"fast", "compat", "m7", "blas"}));
  EXPECT_EQ(c.defaultName, "fast");
  EXPECT_EQ(c.at("compat").kind, "c");
  EXPECT_FALSE(c.at("m7").isHost());
  auto again = CompositeTarget::parse(c.str());
  EXPECT_EQ(again.names(), c.names());
  EXPECT_EQ(again.at("m7"), c.at("m7"));

  auto d = CompositeTarget::parse("a: llvm; b: c; default=b");
  EXPECT_EQ(d.defaultName, "b");
  EXPECT_EQ(CompositeTarget::parse(d.str()).defaultName, "b");
}

TEST(CompositeTarget, Errors) {
  EXPECT_THROW(CompositeTarget::parse("a: llvm; a: c"), Error);      // duplicate
  EXPECT_THROW(CompositeTarget::parse("a: llvm; default=z"), Error); // unknown default
  EXPECT_THROW(CompositeTarget::parse("a: llvm; b c"), Error);       // no colon
  EXPECT_THROW(CompositeTarget::parse("a: llvm -nope=1"), Error);    // bad attribute
  EXPECT_THROW(CompositeTarget::parse("a: llvm").at("b"), Error);
  auto single = CompositeTarget::parse("c");
  EXPECT_EQ(single.defaultName, "c");
}
