// Candidate measurement: a good candidate is timed, and a candidate whose
// kernel segfaults, hangs or computes a wrong result is reported as such
// with its message (faults injected at the Builder seam: the compiled
// kernel is swapped for a faulty one, chosen by the scheduled function).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <map>

#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/measure.h"
#include "tuner/space.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;

namespace {

/// Builds for real, then swaps the kernel of the functions listed in
/// `faults` (by structural hash) for a faulty one.
class FaultyBuilder : public Builder {
public:
  std::map<std::string, runtime::KernelFn> faults;
  std::shared_ptr<const runtime::CompiledModule> build(const ir::PrimFuncRef& scheduled,
                                                       const std::string& target) const override {
    auto m = LocalBuilder().build(scheduled, target);
    auto it = faults.find(ir::structuralHashHex(scheduled));
    return it == faults.end() ? m : std::make_shared<SwappedModule>(m, it->second);
  }
};

const char* kTarget = "llvm -num-cores=1";

/// n distinct candidates of a 32^3 matmul: the default first.
std::vector<Candidate> candidates(const ir::PrimFuncRef& f, size_t n) {
  DesignSpace space(transform::schedulePolicyFor(target::Target::parse(kTarget)));
  std::vector<Candidate> out;
  std::set<std::string> keys;
  std::mt19937_64 rng(1);
  Point p = space.basePoint();
  while (out.size() < n) {
    if (auto c = space.apply(f, p); c && keys.insert(c->key).second)
      out.push_back(*c);
    p = space.sample(rng);
  }
  return out;
}

TEST(MeasureTest, TimesAValidCandidateInProcess) {
  auto f = te::matmulPrimFunc(32, 32, 32);
  LocalBuilder builder;
  auto ref = makeReference(f, kTarget, 7, builder);
  auto c = candidates(f, 2)[1];
  MeasureSettings s;
  s.repeats = 3;
  s.minSeconds = 0;
  auto r = measureInProcess({f, kTarget, c.trace}, ref, s, builder);
  EXPECT_EQ(r.status, RecordStatus::Ok) << r.errorMessage;
  EXPECT_GE(r.times.size(), 3u);
  EXPECT_GT(r.meanSeconds(), 0);
  EXPECT_GT(r.buildSeconds, 0);
  EXPECT_FALSE(r.node.empty());
}

TEST(MeasureTest, JobAndResultTravelAsJson) {
  auto f = te::matmulPrimFunc(16, 16, 16);
  auto c = candidates(f, 2)[1];
  MeasureJob job{f, kTarget, c.trace};
  MeasureJob back = MeasureJob::fromJson(nlohmann::json::parse(job.toJson().dump()));
  EXPECT_TRUE(ir::structuralEqual(back.workload, f));
  EXPECT_EQ(back.target, kTarget);
  EXPECT_EQ(back.trace, c.trace);
  MeasureResult r;
  r.status = RecordStatus::Crash;
  r.errorKind = "SIGSEGV";
  r.errorMessage = "crashed: SIGSEGV";
  r.times = {1e-3};
  MeasureResult rb = MeasureResult::fromJson(r.toJson());
  EXPECT_EQ(rb.status, r.status);
  EXPECT_EQ(rb.errorKind, r.errorKind);
  EXPECT_EQ(rb.errorMessage, r.errorMessage);
  EXPECT_EQ(rb.times, r.times);
  EXPECT_THROW(MeasureJob::fromJson({{"workload", 3}}), Error);
}

TEST(MeasureTest, ScheduleThatDoesNotReplayIsABuildError) {
  auto f = te::matmulPrimFunc(16, 16, 16);
  schedule::Trace bad;
  bad.append({"split", {}, {{"no_such_block", 0}}, {-1, 4}});
  LocalBuilder builder;
  auto ref = makeReference(f, kTarget, 1, builder);
  auto r = measureInProcess({f, kTarget, bad}, ref, MeasureSettings{}, builder);
  EXPECT_EQ(r.status, RecordStatus::BuildError);
  EXPECT_EQ(r.errorKind, "schedule");
  EXPECT_NE(r.errorMessage.find("no_such_block"), std::string::npos) << r.errorMessage;
}

TEST(MeasureTest, CrashHangAndWrongResultAreRecordedAndTheBatchGoesOn) {
  auto f = te::matmulPrimFunc(32, 32, 32);
  auto cs = candidates(f, 5);
  auto builder = std::make_shared<FaultyBuilder>();
  builder->faults[cs[1].key] = segfaultKernel;
  builder->faults[cs[2].key] = hangingKernel;
  builder->faults[cs[3].key] = wrongKernel;
  LocalRunner runner(builder);
  auto ref = makeReference(f, kTarget, 3, LocalBuilder());
  std::vector<MeasureJob> jobs;
  for (auto& c : cs)
    jobs.push_back({f, kTarget, c.trace});
  MeasureSettings s;
  s.timeoutSeconds = 2;
  s.minSeconds = 0;
  std::map<size_t, MeasureResult> got;
  runner.run(jobs, ref, s, [&](size_t i, const MeasureResult& r) { got[i] = r; });
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].status, RecordStatus::Ok) << got[0].errorMessage;
  EXPECT_EQ(got[1].status, RecordStatus::Crash);
  EXPECT_EQ(got[1].errorKind, "SIGSEGV");
  EXPECT_NE(got[1].errorMessage.find("SIGSEGV"), std::string::npos) << got[1].errorMessage;
  EXPECT_EQ(got[2].status, RecordStatus::Timeout);
  EXPECT_NE(got[2].errorMessage.find("timed out"), std::string::npos) << got[2].errorMessage;
  EXPECT_EQ(got[3].status, RecordStatus::WrongResult);
  EXPECT_NE(got[3].errorMessage.find("differ from the untuned kernel"), std::string::npos)
      << got[3].errorMessage;
  EXPECT_EQ(got[4].status, RecordStatus::Ok) << got[4].errorMessage;
  EXPECT_FALSE(got[4].times.empty());
}

} // namespace
