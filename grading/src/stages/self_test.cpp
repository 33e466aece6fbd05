#include "stages/self_test.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exit_codes.h"
#include "judge/test_kinds.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

// The GPU a trusted run named in its --json file: the device line of the reports and the UUID its
// machine-wide lock goes by.
void read_device(WorkerSetup& worker, const std::string& device_json) {
    try {
        const json j = json::parse(read_file(device_json));
        const json& d = j.at("device");
        worker.device = d.at("name").get<std::string>() + " (driver " + d.at("cuda_driver").get<std::string>() + ")";
        if (worker.gpu_uuid.empty()) worker.gpu_uuid = d.value("uuid", std::string());  // (the lock's name stays)
    } catch (const std::exception& e) {
        throw std::runtime_error("the reference's run wrote no readable device (" + std::string(e.what()) + ")");
    }
}

// The reference solution as a worker's runs in the sandbox see it (runs.h,
// reference_runs_in_sandbox): a copy of its own under `work`, where the sandbox's user can reach
// it, run on a small case.
void place_reference(WorkerSetup& worker, const std::string& work, const std::string& solution, const std::string& variant,
                     const std::string& small) {
    make_dirs(work + "/bin");
    make_dirs(work + "/run");
    worker.reference.program = work + "/bin/reference";
    write_file(worker.reference.program, read_file(solution));
    chmod(worker.reference.program.c_str(), 0755);
    worker.reference.run_dir = work + "/run";
    worker.reference.args = {"--variant", variant, "--size", small, "--reps", "1"};
}

// The isolation step (and stderr line) of a sandbox that shows its runs the whole /dev because the
// reference failed with its GPU's nodes alone.
std::string whole_dev_because(const std::string& failure) {
    return "device nodes: the whole /dev (with its GPU's alone, the reference failed: " + clip(failure, 300) + ")";
}

// The name of a worker's GPU's machine-wide lock: its UUID, else what CUDA_VISIBLE_DEVICES names.
std::string gpu_lock_name(const WorkerSetup& worker) {
    return !worker.gpu_uuid.empty() ? worker.gpu_uuid : "visible-" + (worker.cuda_visible_devices.empty() ? std::string("default") : worker.cuda_visible_devices);
}

// The GPU's locks (machine_locks.h), held alone while the GPU is checked (its ticket's too, as
// every exclusive holder's); its lanes' turns take them through their gate (gpu_turns.h) while
// they grade.
TurnLocks lock_gpu_of(const WorkerSetup& worker, const std::string& lock_dir, const std::string& label) {
    const std::string name = gpu_lock_name(worker);
    return lock_gpu(name, lock_dir, TurnKind::Alone, [&] {
        std::fprintf(stderr, "grade: %s (%s) is in use by another grading run on this machine: waiting for it\n", label.c_str(), name.c_str());
    });
}

bool SelfTest::run() {
    // The reference solution must run inside the sandbox exactly as a student's program will,
    // channel and trace included, before anything is graded. The level chosen at the start is
    // kept for the whole run: a reference that will not run in it stops the run here, saying
    // why, rather than have the run go on weaker.
    const auto [variant, small] = reference_case();
    place_reference(sandbox_.own, setup_.work + "/.selftest", setup_.info.sol, variant, small);
    setup_.trace_ok = !setup_.cfg.no_trace && !setup_.info.trace_lib.empty();
    // One trusted run first, outside the sandbox: it tells "no GPU" from "no sandbox", names the
    // GPU (for the reports and its machine-wide lock), and creates the GPU's device nodes where
    // the driver makes them on first use (the sandbox cannot: it runs without the privileges
    // nvidia-modprobe needs).
    std::vector<std::string> pinned;
    if (!sandbox_.own.cuda_visible_devices.empty()) pinned.push_back("CUDA_VISIBLE_DEVICES=" + sandbox_.own.cuda_visible_devices);
    const std::string device_json = setup_.priv + "/device.json";
    TurnLocks gpu = lock_gpu_of(sandbox_.own, sandbox_.lock_dir, "the GPU");
    const RunResult plain = run_reference_outside_sandbox(sandbox_.own, variant, small, device_json, pinned);
    if (plain.exit_code == cudalabs::kExitNoGpu) {
        return false;
    }
    if (!plain.ok())
        throw std::runtime_error("the reference solution fails outside the sandbox (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500));
    read_device(sandbox_.own, device_json);
    std::vector<std::string> steps;
    const SandboxCheck check = reference_in_sandbox_on_its_gpu(steps);
    gpu.release();
    if (!check.failure.empty())
        throw std::runtime_error("the reference solution does not run in the sandbox (" + setup_.iso.describe() + "): " + check.failure +
                                 "\n(the isolation is chosen once and never weakened during a run: fix the cause, or choose a level "
                                 "with --isolation)");
    check_kernel_trace(check.run, steps);
    if (setup_.iso.level != IsolationLevel::Bwrap)
        notes_.push_back("Graded with isolation '" + std::string(isolation_level_name(setup_.iso.level)) + "': " + setup_.iso.describe());
    setup_.isolation_text = isolation_description(steps);
    return true;
}

// Where the driver names the GPU's node (gpu_nodes.h), a run under bubblewrap sees that node and
// the driver's, no other GPU's, and CUDA_VISIBLE_DEVICES names the GPU by its UUID (an index
// would count the GPUs the run cannot open). Elsewhere (no UUID, a MIG instance, another
// isolation level) the run sees the whole /dev, as before.
void SelfTest::show_only_its_gpu(WorkerSetup& w) const {
    w.iso.devices.clear();
    if (!gpu_nodes_alone_ || w.iso.level != IsolationLevel::Bwrap || w.gpu_uuid.empty()) return;
    w.iso.devices = gpu_device_nodes(w.gpu_uuid);
    if (!w.iso.devices.empty()) w.cuda_visible_devices = w.gpu_uuid;
}

// The self-test's sandbox check (reference_in_sandbox_within_limits, on sandbox_.own) with the run shown
// only its GPU's nodes; where the reference does not run so, the check again with the whole /dev,
// said in `steps`. A rule that makes runs faster never stops a class.
SandboxCheck SelfTest::reference_in_sandbox_on_its_gpu(std::vector<std::string>& steps) {
    const WorkerSetup whole_dev = sandbox_.own;
    const Limits limits = setup_.run_limits;
    const size_t known_steps = steps.size();
    show_only_its_gpu(sandbox_.own);
    if (sandbox_.own.iso.devices.empty()) return reference_in_sandbox_within_limits(steps);
    SandboxCheck check;
    std::string failure;
    try {
        check = reference_in_sandbox_within_limits(steps);
        failure = why_not_working(check);
    } catch (const std::runtime_error& e) {  // a sanitizer tool that could not run there
        failure = e.what();
    }
    if (failure.empty()) {
        steps.push_back("device nodes: each run sees its own GPU's and the driver's, no other GPU's");
        return check;
    }
    sandbox_.own = whole_dev;
    setup_.run_limits = limits;
    steps.resize(known_steps);
    gpu_nodes_alone_ = false;
    steps.push_back(whole_dev_because(failure));
    std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
    return reference_in_sandbox_within_limits(steps);
}

// What keeps the reference's run in the sandbox from counting as working there: its failure, or a
// kernel trace that saw none of its kernels (the trace would be turned off); "" when it works.
std::string SelfTest::why_not_working(const SandboxCheck& check) const {
    if (!check.failure.empty()) return check.failure;
    if (setup_.trace_ok && !reference_kernels_seen(check.run)) return "the kernel trace recorded none of its kernels";
    return "";
}

// The reference run in the sandbox under the rubric's limits; without the memory limit where it
// would not run under it (said in `steps`); then every sanitizer tool of the rubric.
SandboxCheck SelfTest::reference_in_sandbox_within_limits(std::vector<std::string>& steps) {
    const GradingContext ctx{setup_, sandbox_.own, no_submission_};
    SandboxCheck check = run_reference_in_sandbox(ctx);
    if (!check.failure.empty() && setup_.run_limits.mem_mb > 0) {
        steps.push_back("memory limit dropped: the reference would not run under RLIMIT_DATA=" + std::to_string(setup_.run_limits.mem_mb) + " MiB");
        setup_.run_limits.mem_mb = 0;
        check = run_reference_in_sandbox(ctx);
    }
    if (check.failure.empty()) {
        const std::string tools = check_sanitizers();
        if (!tools.empty()) steps.push_back(tools);
    }
    return check;
}

// Every sanitizer tool of the rubric must run the reference in the sandbox, the very way its test
// runs a student's program (sanitizer_request): a tool that cannot -- missing, or stopped by a
// limit of the sandbox -- is found here, once, and not as a grader error for every correct
// submission. Returns the step for the isolation's description ("" without sanitizer tests).
std::string SelfTest::check_sanitizers() {
    std::vector<const TestSpec*> tools;  // one test for each distinct tool and options
    for (const TestSpec& t : setup_.rubric.tests)
        if (t.kind == TestKind::Sanitizer && std::none_of(tools.begin(), tools.end(), [&](const TestSpec* u) {
                return u->tool == t.tool && u->tool_options == t.tool_options;
            }))
            tools.push_back(&t);
    if (tools.empty()) return "";
    const std::string sanitizer = setup_.info.cuda_home + "/bin/compute-sanitizer";
    if (!exists(sanitizer)) throw std::runtime_error("the rubric has sanitizer tests but " + sanitizer + " does not exist");
    const RunResult help = run_trusted({sanitizer, "--help"}, setup_.priv, 60, setup_.priv);
    setup_.racecheck_workers_option = help.out.find("--racecheck-num-workers") != std::string::npos;
    auto limit = [](long v) { return v > 0 ? std::to_string(v) : std::string("unlimited"); };
    std::vector<std::string> names;
    for (const TestSpec* t : tools) {
        const RunRequest like = sanitizer_request(setup_, *t);
        const SandboxCheck check = run_reference_in_sandbox({setup_, sandbox_.own, no_submission_}, &like);
        if (!check.failure.empty())
            throw std::runtime_error("the sanitizer test '" + t->id + "' cannot run in the sandbox (" + setup_.iso.describe() + "): " +
                                     check.failure + "\n(the sandbox's limits come from the rubric: process_limit " +
                                     limit(setup_.run_limits.processes) + " (RLIMIT_NPROC), mem_limit_mb " + limit(setup_.run_limits.mem_mb) +
                                     " (RLIMIT_DATA); raise the one the tool ran into)");
        names.push_back(t->tool);
    }
    return "compute-sanitizer " + join(names, ", ") + " checked on the reference in the sandbox";
}

// What the kernel trace saw of the reference's run in the sandbox decides whether kernels are
// checked at all (the trace), and whether kernels foreign to a file are looked for.
void SelfTest::check_kernel_trace(const ProgramRun& run, std::vector<std::string>& steps) {
    if (setup_.trace_ok) {
        // The trace must see the reference's own kernels, or every student would fail the kernel
        // check: then it is turned off, loudly.
        if (!reference_kernels_seen(run)) {
            setup_.trace_ok = false;
            steps.push_back(std::string("WARNING: the CUPTI kernel trace recorded no kernel of the reference (trace ") +
                            (run.trace_ready ? "loaded" : "not loaded") +
                            "), so it is off: results computed without kernels are not detected and performance is not timed");
            std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
            notes_.push_back("The grader ran without its kernel trace: whether your kernels ran was not checked and "
                             "performance was not timed.");
        }
    }
    setup_.foreign_kernel_rule = setup_.trace_ok && reference_repetitions_own(run);
    if (setup_.trace_ok && !setup_.foreign_kernel_rule) {
        steps.push_back("WARNING: the reference's timed repetitions showed no kernel, or a kernel not of its file, so kernels "
                        "foreign to a submission's file are not looked for");
        std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
    }
}

// The isolation as every report states it: the sandbox, the limits, the channel, the trace, and
// what the self-test changed (`steps`).
std::string SelfTest::isolation_description(const std::vector<std::string>& steps) const {
    const Limits& limits = setup_.run_limits;
    std::ostringstream d;
    d << setup_.iso.describe() << "; own process group killed at the time limit; rlimits: core 0, file " << limits.file_mb
      << " MiB, open files " << limits.open_files << ", data "
      << (limits.mem_mb ? std::to_string(limits.mem_mb) + " MiB" : "unlimited") << ", processes "
      << (limits.processes
              ? std::to_string(limits.processes) + " (this run's own user; under a sanitizer, one more per CPU for its threads)"
              : "unlimited")
      << "; scrubbed environment; results through a channel the grader owns; kernel trace: " << (setup_.trace_ok ? "CUPTI" : "off");
    for (const std::string& s : steps) d << "; " << s;
    return d.str();
}

// The reference run once as a trusted program, outside the sandbox, on the worker's GPU (`env`),
// writing its device to `device_json`; made again after the retry pauses while it fails.
RunResult SelfTest::run_reference_outside_sandbox(const WorkerSetup& worker, const std::string& variant, const std::string& small,
                                                const std::string& device_json, const std::vector<std::string>& env) const {
    RunResult plain;
    for (size_t attempt = 0; attempt < setup_.retry.attempts(); ++attempt) {
        pause_before(setup_.retry, attempt);
        plain = run_trusted({setup_.info.sol, "--variant", variant, "--size", small, "--reps", "1", "--json", device_json}, worker.priv, 120,
                            worker.priv, env);
        if (plain.ok()) break;
    }
    return plain;
}

// Whether the kernel trace saw a kernel of the reference's own in its run.
bool SelfTest::reference_kernels_seen(const ProgramRun& run) const {
    for (const CaseEvidence& c : run.cases)
        for (const KernelSpan& k : c.kernels)
            if (is_one_of(k, setup_.sol_kernels)) return true;
    return false;
}

// Whether the reference's timed repetitions ran kernels, all of them its own (so that a kernel
// foreign to a submission's file, in its repetitions, is the submission's doing).
bool SelfTest::reference_repetitions_own(const ProgramRun& run) const {
    bool any = false;
    for (const CaseEvidence& c : run.cases) {
        if (foreign_kernel(c, setup_.sol_kernels)) return false;
        for (const RepetitionEvidence& rep : c.reps) any = any || !rep.kernels.empty();
    }
    return any;
}

// A variant and size of the rubric's first correctness test (not a yardstick, which checks
// nothing and so exits 1): what the reference runs to test the sandbox and each GPU.
std::pair<std::string, std::string> SelfTest::reference_case() const {
    for (const TestSpec& t : setup_.rubric.tests)
        if (!t.sizes.empty() && t.kind == TestKind::Correctness) return {t.variants[0], t.sizes[0]};
    return {setup_.variants.front(), "1"};
}

}  // namespace grading
