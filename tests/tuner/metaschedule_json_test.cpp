// MetaSchedule JSON database files: export -> import into a fresh database
// gives equal records; the written lines have MetaSchedule's shape; a record
// written by hand in MetaSchedule's style (sampled tiles, annotations,
// postprocessing) imports as the schedule it describes; foreign workloads,
// unknown instructions and TVM's failure marker are handled per record; and
// malformed files are errors that name the file and line and write nothing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "engine/ir/module.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/te/te.h"
#include "engine/te/topi.h"
#include "engine/te/workloads.h"
#include "engine/text/printer.h"
#include "tests/error_of.h"
#include "tuner/database.h"
#include "tuner/metaschedule_json.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace unity;
using unity::testing::errorOf;
using namespace unity::tuner;
using schedule::Schedule;
using schedule::Trace;

namespace {

ir::PrimFuncRef addRelu() {
  auto A = te::placeholder({ir::intImm(8), ir::intImm(16)}, DataType::Float32(), "A");
  auto B = te::placeholder({ir::intImm(8), ir::intImm(16)}, DataType::Float32(), "B");
  auto T = te::topi::add(A, B, "T");
  return te::createPrimFunc({A, B, te::topi::relu(T, "R")});
}

std::string textOf(const ir::PrimFuncRef& f) {
  return text::printModule(ir::makeModule({{"main", f}}));
}

/// The matmul schedule of the schedule tests: tiles, reorder, init split
/// off, unroll, vectorize, fused parallel outer loop.
Trace matmulTrace(const ir::PrimFuncRef& f, int64_t ti, int64_t tj) {
  Schedule s(f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk);
  auto i = s.split(l[0], {-1, ti});
  auto j = s.split(l[1], {-1, tj});
  s.reorder({i[0], j[0], l[2], i[1], j[1]});
  s.decomposeReduction(blk, l[2]);
  s.unroll(i[1]);
  s.vectorize(j[1]);
  s.parallel(s.fuse({i[0], j[0]}));
  return s.trace();
}

Trace inlineTrace(const ir::PrimFuncRef& f) {
  Schedule s(f);
  s.computeInline(s.getBlock("T"));
  auto l = s.getLoops(s.getBlock("R"));
  s.vectorize(s.split(l[1], {-1, 8})[1]);
  return s.trace();
}

std::vector<json> jsonLines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(json::parse(line));
  return out;
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

class MetaScheduleJsonTest : public ::testing::Test {
protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("msjson_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  Record record(int64_t w, int64_t t, const Trace& trace, std::vector<double> times) {
    Record r;
    r.workloadId = w;
    r.targetId = t;
    r.trace = trace.toJson();
    r.times = std::move(times);
    r.node = "test-node";
    return r;
  }

  /// A database with a matmul and an add+relu workload on two targets.
  void fill(Database& db) {
    mm_ = te::matmulPrimFunc(16, 32, 8);
    ar_ = addRelu();
    int64_t wm = db.addWorkload("mm-hash", textOf(mm_), 2.0 * 16 * 32 * 8);
    int64_t wa = db.addWorkload("ar-hash", textOf(ar_), 2.0 * 8 * 16);
    int64_t t1 = db.addTarget(kTarget1), t2 = db.addTarget(kTarget2);
    db.addRecord(record(wm, t1, matmulTrace(mm_, 4, 16), {1.5e-5, 1.25e-5}));
    db.addRecord(record(wm, t1, matmulTrace(mm_, 8, 8), {2.0e-5}));
    db.addRecord(record(wm, t2, matmulTrace(mm_, 2, 32), {3.0e-5, 3.5e-5, 1.0 / 3.0}));
    db.addRecord(record(wa, t1, inlineTrace(ar_), {7.0e-7}));
    Record failed = record(wm, t1, matmulTrace(mm_, 4, 4), {});
    failed.status = RecordStatus::Crash;
    failed.errorKind = "signal";
    failed.errorMessage = "SIGSEGV";
    db.addRecord(failed);
  }

  static constexpr const char* kTarget1 = "llvm -mcpu=skylake-avx512 -num-cores=1";
  static constexpr const char* kTarget2 = "llvm -mattr=+avx2,+fma -mcpu=haswell -num-cores=2";
  fs::path dir_;
  ir::PrimFuncRef mm_, ar_;
};

struct Flat {
  std::string hash, target;
  Trace trace;
  std::vector<double> times;
};

/// Every ok record with its workload hash and target text, in a stable order.
std::vector<Flat> okRecords(const Database& db) {
  std::vector<Flat> out;
  for (auto& w : db.workloads())
    for (auto& t : db.targets())
      for (auto& r : db.records(w.id, t.id, RecordStatus::Ok))
        out.push_back({w.hash, t.text, Trace::fromJson(r.trace), r.times});
  std::sort(out.begin(), out.end(), [](const Flat& a, const Flat& b) {
    return std::tie(a.hash, a.target, a.times) < std::tie(b.hash, b.target, b.times);
  });
  return out;
}

} // namespace

TEST_F(MetaScheduleJsonTest, ExportThenImportGivesEqualRecords) {
  // The targets are stored in their canonical form, as the tuner stores them.
  ASSERT_EQ(target::Target::parse(kTarget1).str(), kTarget1);
  ASSERT_EQ(target::Target::parse(kTarget2).str(), kTarget2);
  Database src(path("src.db"));
  fill(src);
  auto ex = metaschedule::exportDatabase(src, path("ms"));
  EXPECT_EQ(ex.workloads, 2);
  EXPECT_EQ(ex.records, 4); // the crashed record has no place in the format
  EXPECT_TRUE(ex.refused.empty()) << ex.refused.front();

  Database dst(path("dst.db"));
  auto im = metaschedule::importDatabase(dst, path("ms"));
  EXPECT_EQ(im.workloads, 2);
  EXPECT_EQ(im.records, 4);
  EXPECT_EQ(im.foreignRecords, 0);
  EXPECT_TRUE(im.refused.empty()) << im.refused.front();

  auto a = okRecords(src), b = okRecords(dst);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].hash, a[i].hash);
    EXPECT_EQ(b[i].target, a[i].target);
    EXPECT_EQ(b[i].times, a[i].times); // exactly: the JSON numbers round-trip
    EXPECT_EQ(b[i].trace, a[i].trace);
    auto f = a[i].hash == "mm-hash" ? mm_ : ar_;
    EXPECT_TRUE(ir::structuralEqual(Schedule::replay(f, b[i].trace).func(),
                                    Schedule::replay(f, a[i].trace).func()));
  }
  auto w = dst.workloadByHash("mm-hash");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->flops, 2.0 * 16 * 32 * 8);
  EXPECT_EQ(w->text, src.workloadByHash("mm-hash")->text);

  // Importing the same files again adds nothing.
  auto again = metaschedule::importDatabase(dst, path("ms"));
  EXPECT_EQ(again.records, 0);
  EXPECT_EQ(again.duplicates, 4);
  EXPECT_EQ(okRecords(dst).size(), 4u);
}

TEST_F(MetaScheduleJsonTest, ExportWritesMetaSchedulesLineShapes) {
  Database db(path("src.db"));
  int64_t w = db.addWorkload("mm-hash", textOf(te::matmulPrimFunc(16, 32, 8)), 8192);
  int64_t t = db.addTarget(kTarget2);
  Schedule s(te::matmulPrimFunc(16, 32, 8));
  auto l = s.getLoops(s.getBlock("C"));
  s.split(l[0], {-1, 4});
  s.parallel(s.getLoops(s.getBlock("C"))[0]);
  db.addRecord(record(w, t, s.trace(), {2.5e-6}));
  metaschedule::exportDatabase(db, path("ms"));

  auto wl = jsonLines(dir_ / "ms" / "database_workload.json");
  ASSERT_EQ(wl.size(), 1u);
  EXPECT_EQ(wl[0][0], "mm-hash");
  EXPECT_TRUE(wl[0][1].is_string());

  auto rl = jsonLines(dir_ / "ms" / "database_tuning_record.json");
  ASSERT_EQ(rl.size(), 1u);
  json want = json::parse(R"([0, [
    [[["GetBlock", [], ["C", "main"], ["b0"]],
      ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
      ["Split", ["l1", 4, 4], [1, 0], ["l4", "l5"]],
      ["GetLoops", ["b0"], [], ["l6", "l7", "l8", "l9"]],
      ["Parallel", ["l6"], [], []]],
     []],
    [2.5e-6],
    {"kind": "llvm", "tag": "", "keys": ["cpu"], "mattr": ["+avx2", "+fma"], "mcpu": "haswell",
     "num-cores": 2},
    [["TENSOR", "float32", [16, 8]], ["TENSOR", "float32", [8, 32]],
     ["TENSOR", "float32", [16, 32]]]]])");
  EXPECT_EQ(rl[0], want) << rl[0].dump();
}

TEST_F(MetaScheduleJsonTest, ExportRefusesARecordWithAnInstructionTvmLacks) {
  Database db(path("src.db"));
  auto f = te::matmulPrimFunc(10, 8, 4);
  int64_t w = db.addWorkload("h", textOf(f), 640);
  int64_t t = db.addTarget("llvm -num-cores=1");
  Schedule s(f);
  s.splitWithTail(s.getLoops(s.getBlock("C"))[0], 4);
  int64_t bad = db.addRecord(record(w, t, s.trace(), {1e-6}));
  db.addRecord(record(w, t, matmulTrace(f, 2, 4), {2e-6}));

  auto ex = metaschedule::exportDatabase(db, path("ms"));
  EXPECT_EQ(ex.records, 1);
  ASSERT_EQ(ex.refused.size(), 1u);
  EXPECT_NE(ex.refused[0].find("record " + std::to_string(bad)), std::string::npos)
      << ex.refused[0];
  EXPECT_NE(ex.refused[0].find("split_tail"), std::string::npos) << ex.refused[0];
  EXPECT_EQ(jsonLines(dir_ / "ms" / "database_tuning_record.json").size(), 1u);
}

TEST_F(MetaScheduleJsonTest, HandWrittenMetaScheduleRecordImportsAsItsSchedule) {
  // The workload line comes from an export of a database holding only it.
  auto f = te::matmulPrimFunc(16, 32, 8);
  {
    Database db(path("w.db"));
    db.addWorkload("mm-hash", textOf(f), 8192);
    metaschedule::exportDatabase(db, path("ms"));
  }
  // What MetaSchedule writes for a CPU matmul: sampled tiles feeding splits,
  // a tiling-structure annotation, then the postprocessing part.
  writeFile(dir_ / "ms" / "database_tuning_record.json",
            R"([0, [[[["GetBlock", [], ["C", "main"], ["b0"]],)"
            R"(["Annotate", ["b0", "\"SSRSRS\""], ["meta_schedule.tiling_structure"], []],)"
            R"(["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],)"
            R"(["SamplePerfectTile", ["l1"], [2, 64], ["v4", "v5"]],)"
            R"(["Split", ["l1", "v4", "v5"], [1, 0], ["l6", "l7"]],)"
            R"(["SamplePerfectTile", ["l2"], [2, 64], ["v8", "v9"]],)"
            R"(["Split", ["l2", "v8", "v9"], [1, 0], ["l10", "l11"]],)"
            R"(["Reorder", ["l6", "l10", "l3", "l7", "l11"], [], []],)"
            R"(["SampleCategorical", [], [[0, 16, 64], [0.33, 0.33, 0.34]], ["v12"]],)"
            R"(["Annotate", ["b0", "v12"], ["meta_schedule.unroll_explicit"], []],)"
            R"(["EnterPostproc", [], [], []],)"
            R"(["Fuse", ["l6", "l10"], [1], ["l13"]],)"
            R"(["Parallel", ["l13"], [], []],)"
            R"(["Vectorize", ["l11"], [], []],)"
            R"(["DecomposeReduction", ["b0", "l3"], [], ["b14"]]],)"
            R"([[3, [4, 4]], [5, [2, 16]], [8, 1]]],)"
            R"( [1.5e-05, 1.75e-05], {"kind": "llvm", "tag": "", "keys": ["cpu"],)"
            R"( "mcpu": "skylake-avx512", "num-cores": 1, "host": {"kind": "llvm"}}, null]])"
            "\n");
  Database db(path("dst.db"));
  auto im = metaschedule::importDatabase(db, path("ms"));
  ASSERT_EQ(im.records, 1) << (im.refused.empty() ? "" : im.refused[0]);
  EXPECT_EQ(im.droppedAnnotations, 3);

  // The same schedule written with our primitives.
  Schedule s(f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk);
  auto i = s.split(l[0], {4, 4});
  auto j = s.split(l[1], {2, 16});
  s.reorder({i[0], j[0], l[2], i[1], j[1]});
  s.parallel(s.fuse({i[0], j[0]}));
  s.vectorize(j[1]);
  s.decomposeReduction(blk, l[2]);

  auto w = db.workloadByHash("mm-hash");
  auto t = db.targetId("llvm -mcpu=skylake-avx512 -num-cores=1");
  ASSERT_TRUE(w && t);
  auto recs = db.records(w->id, *t);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].status, RecordStatus::Ok);
  EXPECT_EQ(recs[0].times, (std::vector<double>{1.5e-05, 1.75e-05}));
  ASSERT_TRUE(recs[0].meanS);
  EXPECT_DOUBLE_EQ(*recs[0].meanS, 1.625e-05);
  EXPECT_EQ(Trace::fromJson(recs[0].trace), s.trace()) << Trace::fromJson(recs[0].trace).str();
}

TEST_F(MetaScheduleJsonTest, ImportHandlesEachRecordOnItsOwn) {
  auto f = te::matmulPrimFunc(8, 8, 8);
  {
    Database db(path("w.db"));
    db.addWorkload("mm-hash", textOf(f), 1024);
    metaschedule::exportDatabase(db, path("ms"));
  }
  std::string wl;
  {
    std::ifstream in(dir_ / "ms" / "database_workload.json");
    std::getline(in, wl);
  }
  // Line 2: a TVM workload (base64 of a serialized TVM IRModule).
  writeFile(dir_ / "ms" / "database_workload.json",
            wl + "\n" + R"(["11093487223041", "eyJyb290IjogMSwgIm5vZGVzIjogW119"])" + "\n");
  const std::string target = R"({"kind": "llvm", "num-cores": 1})";
  const std::string get = R"([["GetBlock", [], ["C", "main"], ["b0"]],)"
                          R"(["GetLoops", ["b0"], [], ["l1", "l2", "l3"]])";
  writeFile(dir_ / "ms" / "database_tuning_record.json",
            // 1: fine
            "[0, [[" + get + R"(, ["Parallel", ["l1"], [], []]], []], [1e-6], )" + target +
                ", null]]\n"
                // 2: a GPU instruction we do not have
                "[0, [[" +
                get + R"(, ["Bind", ["l1"], ["blockIdx.x"], []]], []], [1e-6], )" + target +
                ", null]]\n"
                // 3: a record of the TVM workload
                "[1, [[[], []], [1e-6], " +
                target +
                ", null]]\n"
                // 4: TVM's failure marker
                "[0, [[" +
                get + R"(, ["Vectorize", ["l2"], [], []]], []], [1e10], )" + target +
                ", null]]\n"
                // 5: a target kind we do not have
                "[0, [[" +
                get + R"(], []], [1e-6], {"kind": "cuda", "arch": "sm_80"}, null]])" + "\n");
  Database db(path("dst.db"));
  auto im = metaschedule::importDatabase(db, path("ms"));
  EXPECT_EQ(im.workloads, 1);
  EXPECT_EQ(im.foreignWorkloads, 1);
  EXPECT_EQ(im.foreignRecords, 1);
  EXPECT_EQ(im.records, 2);
  EXPECT_EQ(im.failedRecords, 1);
  ASSERT_EQ(im.refused.size(), 2u);
  EXPECT_NE(im.refused[0].find("database_tuning_record.json:2"), std::string::npos)
      << im.refused[0];
  EXPECT_NE(im.refused[0].find("instruction 2 (Bind)"), std::string::npos) << im.refused[0];
  EXPECT_NE(im.refused[1].find("database_tuning_record.json:5"), std::string::npos)
      << im.refused[1];
  EXPECT_NE(im.refused[1].find("cuda"), std::string::npos) << im.refused[1];
  EXPECT_EQ(db.workloads().size(), 1u); // the TVM workload is not added

  auto w = db.workloadByHash("mm-hash");
  auto t = db.targetId("llvm -num-cores=1");
  ASSERT_TRUE(w && t);
  auto failed = db.records(w->id, *t, RecordStatus::RunError);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].errorKind, "metaschedule_failed");
  EXPECT_FALSE(failed[0].meanS);
  EXPECT_EQ(db.best(w->id, *t, 5).size(), 1u);
}

TEST_F(MetaScheduleJsonTest, MalformedFilesAreErrorsAndWriteNothing) {
  Database db(path("dst.db"));
  std::string err = errorOf([&] { metaschedule::importDatabase(db, path("missing")); });
  EXPECT_NE(err.find("database_workload.json: cannot open"), std::string::npos) << err;

  auto f = te::matmulPrimFunc(4, 4, 4);
  {
    Database src(path("w.db"));
    src.addWorkload("h", textOf(f), 128);
    metaschedule::exportDatabase(src, path("ms"));
  }
  auto records = dir_ / "ms" / "database_tuning_record.json";
  const std::string ok =
      R"([0, [[[["GetBlock", [], ["C", "main"], ["b0"]]], []], [1e-6], {"kind": "llvm"}, null]])";
  struct Case {
    std::string text, message;
  };
  for (const Case& c :
       {Case{ok + "\n{not json\n", "database_tuning_record.json:2: not a JSON value"},
        Case{ok + "\n[0, [1, 2]]\n", "database_tuning_record.json:2: a record line"},
        Case{"[7, [[[], []], [1], {\"kind\": \"llvm\"}, null]]\n",
             "database_tuning_record.json:1: workload index 7"}}) {
    writeFile(records, c.text);
    err = errorOf([&] { metaschedule::importDatabase(db, path("ms")); });
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
    // One transaction: the workload added before the bad line is gone too.
    EXPECT_TRUE(db.workloads().empty());
  }
  writeFile(dir_ / "ms" / "database_workload.json", "[\"only-one-string\"]\n");
  err = errorOf([&] { metaschedule::importDatabase(db, path("ms")); });
  EXPECT_NE(err.find("database_workload.json:1: a workload line is [hash, payload]"),
            std::string::npos)
      << err;
  EXPECT_EQ(db.integrityCheck(), "ok");
}

TEST_F(MetaScheduleJsonTest, TargetsConvertBothWays) {
  auto j = metaschedule::targetToMetaSchedule("llvm -mcpu=znver4 -mattr=+avx512f -num-cores=4");
  EXPECT_EQ(j["kind"], "llvm");
  EXPECT_EQ(j["mcpu"], "znver4");
  EXPECT_EQ(j["num-cores"], 4);
  EXPECT_EQ(j["mattr"], json::array({"+avx512f"}));
  // TVM's own export carries keys, tag, host and features we do not use.
  json tvm = json::parse(R"({"kind": "llvm", "tag": "", "keys": ["cpu"], "mcpu": "znver4",
                             "mattr": ["+avx512f", "+avx512bw"], "num-cores": 4,
                             "host": {"kind": "llvm"}, "features": {}})");
  EXPECT_EQ(
      metaschedule::targetFromMetaSchedule(tvm),
      target::Target::parse("llvm -mcpu=znver4 -mattr=+avx512f,+avx512bw -num-cores=4").str());
  EXPECT_NE(errorOf([] { metaschedule::targetFromMetaSchedule(json::parse("[1]")); }).find("kind"),
            std::string::npos);
}

TEST_F(MetaScheduleJsonTest, OddJsonTypesInsideARecordRefuseOnlyThatRecord) {
  auto f = te::matmulPrimFunc(8, 8, 8);
  {
    Database db(path("w.db"));
    db.addWorkload("mm-hash", textOf(f), 1024);
    metaschedule::exportDatabase(db, path("ms"));
  }
  const std::string get = R"([["GetBlock", [], ["C", "main"], ["b0"]],)"
                          R"(["GetLoops", ["b0"], [], ["l1", "l2", "l3"]])";
  const std::string target = R"({"kind": "llvm"})";
  std::string lines;
  for (const std::string& rec :
       {"[[" + get + R"(, ["Split", ["l1", 2.5, {"x": 1}], [], ["l4", "l5"]]], []], [1e-6], )" +
            target + ", null]",
        "[[" + get + R"(, ["Split", ["l1", "v9", 4], [], ["l4", "l5"]]], []], [1e-6], )" + target +
            ", null]",
        "[[" + get + R"(], [[0, [1, 2]], [7, 1]]], [1e-6], )" + target + ", null]",
        "[[" + get + R"(], []], ["fast"], )" + target + ", null]",
        "[[" + get + R"(], []], [1e-6], {"kind": 3}, null])",
        "[[" + get + R"(, ["Parallel", [], [], []]], []], [1e-6], )" + target + ", null]",
        "[[" + get + R"(, 42], []], [1e-6], )" + target + ", null]"})
    lines += "[0, " + rec + "]\n";
  writeFile(dir_ / "ms" / "database_tuning_record.json", lines);
  Database db(path("dst.db"));
  auto im = metaschedule::importDatabase(db, path("ms"));
  EXPECT_EQ(im.records, 0);
  EXPECT_EQ(im.refused.size(), 7u);
  for (size_t i = 0; i < im.refused.size(); ++i)
    EXPECT_NE(im.refused[i].find("database_tuning_record.json:" + std::to_string(i + 1) + ": "),
              std::string::npos)
        << im.refused[i];
  EXPECT_EQ(db.integrityCheck(), "ok");
}
