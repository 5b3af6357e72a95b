// RunnerOptions, its JSON form (stored with a run for --resume), partition
// resolution per sub-target, and the runner factory (see runner.h).
#include "tuner/runner.h"

#include "engine/support/error.h"
#include "engine/target/target.h"
#include "tuner/features.h"
#include "tuner/slurm_runner.h"

namespace unity::tuner {

using nlohmann::json;

json RunnerOptions::toJson() const {
  json j = {{"kind", kind}};
  if (kind == "local")
    return j;
  j["partition"] = partition;
  j["sub_target_partitions"] = subTargetPartitions;
  j["target"] = target;
  j["max_jobs"] = maxJobs;
  j["job_time"] = jobTime;
  j["spool"] = spool;
  j["worker_program"] = workerProgram;
  j["poll_s"] = pollSeconds;
  j["extra_sbatch"] = extraSbatch;
  return j;
}

RunnerOptions RunnerOptions::fromJson(const json& j) {
  RunnerOptions o;
  if (j.is_string()) { // a run stored before runners had options: "local"
    o.kind = j.get<std::string>();
    return o;
  }
  if (!j.is_object())
    throw Error("runner options: expected an object, got " + j.dump());
  try {
    o.kind = j.value("kind", o.kind);
    o.partition = j.value("partition", o.partition);
    o.subTargetPartitions = j.value("sub_target_partitions", std::map<std::string, std::string>{});
    o.target = j.value("target", o.target);
    o.maxJobs = j.value("max_jobs", o.maxJobs);
    o.jobTime = j.value("job_time", o.jobTime);
    o.spool = j.value("spool", o.spool);
    o.workerProgram = j.value("worker_program", o.workerProgram);
    o.pollSeconds = j.value("poll_s", o.pollSeconds);
    o.extraSbatch = j.value("extra_sbatch", std::vector<std::string>{});
  } catch (const json::exception& e) {
    throw Error(std::string("runner options: ") + e.what());
  }
  return o;
}

void addPartitionSpec(RunnerOptions& options, const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos) {
    if (spec.empty())
      throw Error("--partition: empty partition name");
    options.partition = spec;
    return;
  }
  std::string name = spec.substr(0, eq), part = spec.substr(eq + 1);
  if (name.empty() || part.empty())
    throw Error("--partition '" + spec + "': expected PARTITION or SUBTARGET=PARTITION");
  options.subTargetPartitions[name] = part;
}

std::string partitionFor(const RunnerOptions& options, const std::string& target) {
  if (options.subTargetPartitions.empty())
    return options.partition;
  auto composite = target::CompositeTarget::parse(options.target);
  for (auto& [name, part] : options.subTargetPartitions) {
    const target::Target* t = composite.find(name);
    if (!t) {
      std::string known;
      for (auto& n : composite.names())
        known += (known.empty() ? "" : ", ") + n;
      throw Error("--partition " + name + "=" + part + ": the target '" + options.target +
                  "' has no sub-target '" + name + "' (sub-targets: " + known + ")");
    }
    if (t->str() == target)
      return part;
  }
  return options.partition;
}

int enableRemoteSubTargets(std::vector<Task>& tasks, const RunnerOptions& options) {
  if (options.kind == "local")
    return 0;
  int n = 0;
  for (auto& t : tasks)
    if (!t.tunable && options.subTargetPartitions.count(t.subTarget) &&
        t.whyNotTunable.find("does not run on this machine") != std::string::npos) {
      t.tunable = true;
      t.whyNotTunable.clear();
      t.flops = estimateFlops(t.workload);
      ++n;
    }
  return n;
}

std::unique_ptr<Runner> makeRunner(const RunnerOptions& options) {
  if (options.kind == "local")
    return std::make_unique<LocalRunner>();
  if (options.kind == "slurm") {
    if (options.maxJobs < 1)
      throw Error("slurm runner: --max-jobs must be at least 1");
    if (!options.subTargetPartitions.empty())
      (void)partitionFor(options, ""); // sub-target names are checked now, not mid-run
    return std::make_unique<SlurmRunner>(options);
  }
  throw Error("unknown runner '" + options.kind + "' (known: local, slurm)");
}

std::vector<std::string> runnerKinds() { return {"local", "slurm"}; }

} // namespace unity::tuner
