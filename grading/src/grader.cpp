// grading/grade: grades a class's submissions of one lab. See grading/README.md.
//
// This file holds the command line and the grader's stages, in the order they run (Grader::run):
// intake (the rubric, a regrade's baseline, the roster, the lab: intake/), the sandbox and the
// self-test of the reference in it on each GPU (sandbox/), the submissions found, matched and
// sliced (intake/submissions.h, class/), built and audited with the trusted flags and linked
// with the trusted driver (build/), graded by the rubric's tests (judge/), each run's results
// read through a channel the grader owns (runs/) and judged outside the student's process by the
// trusted reference; and the class's results: feedback, results, gradebook, audit log, summary
// (class/). What the stages share is in context.h.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "args.h"
#include "build/audit.h"
#include "build/build.h"
#include "build/build_queue.h"
#include "build/lab_build.h"
#include "class/audit_log.h"
#include "class/class_results.h"
#include "context.h"
#include "exit_codes.h"
#include "runs/failures.h"
#include "runs/kept_verifier.h"
#include "sandbox/gpu_nodes.h"
#include "sandbox/gpus.h"
#include "class/leaderboard.h"
#include "sandbox/machine_locks.h"
#include "class/regrade.h"
#include "class/roster.h"
#include "class/results.h"
#include "class/run_record.h"
#include "intake/rubric.h"
#include "runs/runs.h"
#include "sandbox/sandbox.h"
#include "util/sha256.h"
#include "class/shard.h"
#include "intake/submissions.h"
#include "judge/reference_pool.h"
#include "judge/test_kinds.h"
#include "util/files.h"
#include "util/text.h"

using nlohmann::json;
using namespace grading;
using cudalabs::UsageError;

namespace {



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

// One submission through the stages.
struct Submission {
    SubmissionSource source;
    StudentResult result;
    GradedProgram graded;
    std::string stage;   // its build folder
    bool ready = false;  // compiled, audited and linked
    SubmissionTiming timing;  // where its time went (OUT/breakdown.jsonl)
    bool restored = false;  // graded before the run stopped: its recorded result is kept (--resume)
};

std::vector<std::string> ids_of(const std::vector<Submission>& subs) {
    std::vector<std::string> ids;
    for (const Submission& s : subs) ids.push_back(s.source.id);
    return ids;
}

// Who grades: one worker, or with --gpus one per GPU, each with its own setup (its GPU, private
// folder, sandbox user and device name), grading whole submissions.
struct Worker {
    size_t slot = 0;     // its place in the --gpus list (0 without --gpus)
    SandboxIdentity identity;  // its own sandbox user (root only), held for the whole run
    int gpu = -1;        // the GPU's index, as CUDA counts them in the grader; -1: no --gpus
    std::string name;    // the GPU's name, from the reference's run on it (with --gpus)
    WorkerSetup setup;
    size_t graded = 0;   // submissions whose tests ran on it
    // How its lanes take turns on its GPU (gpu_turns.h): one gate a GPU, shared by the workers
    // that grade on it (GRADING_SHARED_GPUS), so that a timed test waits for all their lanes.
    std::shared_ptr<GpuGate> gate;
    std::shared_ptr<ReferencePool> reference_pool;  // the reference's timed samples on its GPU, shared the same way
};

// One submission at a time on a worker's GPU (--per-gpu N: N lanes a GPU). The first lane has the
// worker's own setup; each other its own private folder, sandbox user and reference copy, so that
// submissions graded at once on a GPU cannot reach each other's files or processes.
struct Lane {
    size_t worker = 0, index = 0;
    SandboxIdentity identity;  // its own sandbox user (root only; the first lane uses its worker's)
    WorkerSetup setup;
    std::unique_ptr<KeptVerifier> kept_verifier;  // its submissions' verifier, kept open (not with --separate-verifiers)
};

// What comes in beside the lab and the submissions: the earlier run a regrade compares with, and
// the class list with the submissions matched to it.
struct ClassInputs {
    bool regrade = false;  // --regrade
    RegradeBaseline baseline;
    Roster roster;
    RosterMatch roster_match;
};

// The class as this run grades it: its submissions (with --shard, this shard's slice), every
// student's id, and the shard's record (shard.json).
struct ClassSlice {
    std::vector<Submission> subs;
    std::vector<std::string> class_ids;
    ShardRecord shard;
};

class Grader {
public:
    explicit Grader(Config c) { setup_.cfg = std::move(c); }
    // A work folder of this run's own outside OUT goes with the run, however it ends.
    ~Grader() {
        if (!setup_.work.empty() && setup_.work != setup_.out + "/work") remove_tree(setup_.work);
    }
    Grader(const Grader&) = delete;
    Grader& operator=(const Grader&) = delete;
    int run();

private:
    GradingSetup setup_;  // set up by the stages before the builds, then only read
    // The grader's own worker setup (its private folder, the self-test's GPU): the one worker's
    // without --gpus, and what each worker's starts from with it.
    WorkerSetup own_;
    SubmissionState no_submission_;  // what the self-test's and the GPU checks' runs are part of
    std::vector<Worker> workers_;
    std::vector<Lane> lanes_;
    size_t lanes_per_gpu_ = 1;
    std::unique_ptr<BuildCache> build_cache_;  // builds of this run kept for reuse (none: --no-build-reuse)
    std::string build_inputs_;                 // what every build reads besides its file (build_inputs_digest)
    IsolationPaths isolation_paths_;
    ImportLists import_lists_;  // grading/allowed-imports.txt and shimmed-imports.txt
    std::vector<std::string> notes_;  // said at the top of every student's feedback
    bool have_gpu_ = true;
    std::string lock_dir_;           // the machine's grading locks (machine_locks.h)
    std::vector<std::string> gpu_uuids_;  // each GPU CUDA shows the grader, by index (their locks' names)
    // Whether runs see only their own GPU's device nodes where those are known (show_only_its_gpu);
    // false once the reference did not run so in the self-test.
    bool gpu_nodes_alone_ = true;
    SandboxIdentity identity_;       // this run's sandbox user (the first worker's), where the grader is root
    SandboxIdentity build_identity_;  // the builds' own sandbox user, where the grader is root
    Isolation build_iso_;             // the builds' isolation: the run's, as build_identity_
    std::mutex build_progress_;       // the builds' progress lines
    size_t builds_ended_ = 0;
    BuildQueue* builds_ = nullptr;    // while the class is graded
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    // The run's record in OUT/.resume (run_record.h); resuming: it goes on with a run cut short,
    // whose recorded submissions are kept.
    RunRecord record_;
    FolderLock out_lock_;  // OUT is this run's alone (util/files.h)
    bool resuming_ = false;
    std::map<std::string, SubmissionRecord> recorded_;

    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    // Intake: the rubric, a regrade's baseline and the roster; the seed and the folders; the lab.
    ClassInputs take_in_rubric_and_roster();
    int run_stages();
    void choose_seed_and_folders();
    void take_command_from_record();
    void open_run_record();
    void record_tree();
    void keep_recorded(ClassSlice& slice);
    void load_lab();
    void describe_tools_and_tree();
    // The sandbox, the GPUs and the self-test.
    void set_up_sandbox();
    void choose_work_folder();
    void choose_sandbox();
    bool choose_gpus_and_self_test(std::vector<int>& gpus);
    std::vector<int> gpus_to_grade_on();
    void announce_gpus(const std::vector<int>& gpus) const;
    void self_test();
    SandboxCheck reference_in_sandbox_within_limits(std::vector<std::string>& steps);
    SandboxCheck reference_in_sandbox_on_its_gpu(std::vector<std::string>& steps);
    std::string why_not_working(const SandboxCheck& check) const;
    void show_only_its_gpu(WorkerSetup& w) const;
    std::string check_sanitizers();
    void check_kernel_trace(const ProgramRun& run, std::vector<std::string>& steps);
    std::string isolation_description(const std::vector<std::string>& steps) const;
    RunResult run_reference_outside_sandbox(const WorkerSetup& worker, const std::string& variant, const std::string& small,
                                            const std::string& device_json, const std::vector<std::string>& env) const;
    std::pair<std::string, std::string> reference_case() const;
    bool reference_kernels_seen(const ProgramRun& run) const;
    bool reference_repetitions_own(const ProgramRun& run) const;
    int count_gpus();
    std::vector<int> choose_gpus();
    void set_up_workers(const std::vector<int>& gpus);
    void check_gpu(Worker& w);
    size_t lanes_per_gpu(const Worker& w);
    void set_up_lanes();
    std::string gpu_label(const Worker& w) const;
    std::string worker_name(const Worker& w) const;
    TurnLocks lock_gpu_of(const WorkerSetup& worker, const std::string& label);
    // The submissions, their builds and audits.
    ClassSlice take_in_submissions(ClassInputs& inputs);
    void match_class_to_roster(const std::vector<Submission>& subs, ClassInputs& inputs);
    void take_shard_slice(ClassSlice& slice);
    std::unique_ptr<BuildQueue> start_builds(std::vector<Submission>& subs);
    bool build_one(Submission& s, size_t count, bool last_try);
    std::vector<size_t> build_order(const std::vector<Submission>& subs) const;
    void set_up_build_reuse();
    bool prepare(Submission& s, bool last_try);
    void stage_submission(Submission& s, const std::string& source, const std::string& work);
    BuildSpec build_spec(const std::string& work) const;
    // Grading, and the class's results.
    std::vector<std::string> grade_class(ClassSlice& slice, const ClassInputs& inputs, ClassResults& book, BuildQueue& builds);
    json run_line(const ClassSlice& slice, const ClassInputs& inputs) const;
    bool grade_submission(Worker& w, Lane& lane, Submission& s, size_t index, size_t count);
    bool grade_contained(Worker& w, Lane& lane, Submission& s, size_t index, size_t count);
    void finish_contained(const Worker& w, ClassSlice& slice, const ClassInputs& inputs, size_t index, bool ran,
                          std::vector<std::string>& regrade_note, ClassResults& book);
    void grade_tests(Worker& w, Lane& lane, SubmissionState& state, Submission& s, size_t index, size_t count);
    TestResult run_test(Worker& w, GradingContext& ctx, Submission& s, const TestSpec& t);
    std::string lane_name(const Worker& w, const Lane& lane) const;
    void finish_breakdown(const std::vector<Submission>& subs) const;
    double sandbox_start_seconds();
    double sandbox_start_s_ = 0;  // what starting a program in the sandbox costs (the breakdown's estimate)
    size_t begin_class_files(ClassSlice& slice, const ClassInputs& inputs, ClassResults& book, std::vector<std::string>& regrade_note);
    void note_finished(ClassSlice& slice, const ClassInputs& inputs, size_t index, std::vector<std::string>& regrade_note);
    void record_result(const Submission& s, size_t index, const std::string& line, bool ran, size_t worker, ClassResults& book);
    json audit_line(const Worker& w, const Submission& s, bool ran) const;
    int write_class_results(ClassSlice& slice, const ClassResults& book, const std::vector<std::string>& regrade_note);
    void finish_shard(ClassSlice& slice, const std::string& device, const std::vector<std::string>& gpu_text, std::ostream& tail);
    std::string device_summary() const;
    std::vector<std::string> gpu_lines() const;
    std::string regrade_command(const std::vector<const Submission*>& failed) const;
};

// A write of the run's own records that fails (a full disk) stops it in one sentence; what it
// recorded stays, and --resume finishes it.
int Grader::run() {
    try {
        return run_stages();
    } catch (const StorageError& e) {
        throw StorageError(std::string(e.what()) + ": free space on its disk (or make it writable), then finish the run with grading/grade --resume " +
                           setup_.out);
    }
}

// The grader's stages, in the order they run.
int Grader::run_stages() {
    become_subreaper();
    check_command(setup_.cfg);  // (grading/grade made these checks before building the grader too)
    take_command_from_record();
    ClassInputs inputs = take_in_rubric_and_roster();
    choose_seed_and_folders();
    load_lab();
    record_tree();
    set_up_sandbox();
    std::vector<int> gpus;  // with --gpus: the GPUs to grade on (CUDA's indices in the grader)
    if (!choose_gpus_and_self_test(gpus)) return cudalabs::kExitNoGpu;
    set_up_workers(gpus);
    ClassSlice slice = take_in_submissions(inputs);
    keep_recorded(slice);
    const std::unique_ptr<BuildQueue> builds = start_builds(slice.subs);
    ClassResults book(setup_.out, setup_.rubric, "Lab " + setup_.cfg.lab + (setup_.rubric.title.empty() ? "" : " -- " + setup_.rubric.title),
                      ids_of(slice.subs));
    book.use_roofline_drawer(scorecard_drawer(absolute(setup_.cfg.root), setup_.priv));
    const std::vector<std::string> regrade_note = grade_class(slice, inputs, book, *builds);
    builds->finish();
    const int code = write_class_results(slice, book, regrade_note);
    record_.finished = true;  // a later run in OUT starts afresh
    save_run_record(setup_.out, record_);
    return code;
}

// ---- intake ----

// The rubric, and what a regrade reuses (its seed, its roster); then the roster itself, read
// before anything is built: a bad one stops the run at once (exit 2).
ClassInputs Grader::take_in_rubric_and_roster() {
    Config& cfg = setup_.cfg;
    cfg.root = absolute(cfg.root);
    if (cfg.rubric_path.empty()) cfg.rubric_path = rubric_of_lab(cfg.root, cfg.lab);
    setup_.rubric_text = read_rubric(cfg.rubric_path);
    // Its form now, before the lab is built; its tests of the lab's rungs once it is (load_lab).
    setup_.rubric = parse_rubric(setup_.rubric_text, cfg.rubric_path);
    setup_.rubric_sha = sha256_hex(setup_.rubric_text);
    if (setup_.rubric.lab != cfg.lab) throw UsageError(cfg.rubric_path + " is the rubric of lab " + setup_.rubric.lab + ", not " + cfg.lab);

    ClassInputs in;
    // A regrade reuses the earlier seed (unless one is given) and compares.
    in.regrade = !cfg.regrade.empty();
    if (in.regrade) {
        const std::string audit = read_given_file(cfg.regrade, kMaxAuditLogBytes, "audit log of --regrade");
        in.baseline = parse_regrade_baseline(audit, cfg.regrade);
        if (!cfg.seed) cfg.seed = in.baseline.seed;
        if (cfg.roster.empty()) cfg.roster = roster_of_run(audit);  // the roster it was graded with
    }
    if (!cfg.roster.empty()) {
        in.roster = parse_roster(read_given_file(cfg.roster, kMaxRosterBytes, "roster file"), cfg.roster);
        in.roster.path = absolute(cfg.roster);
        if (in.roster.encoding != "UTF-8")
            std::fprintf(stderr, "grade: the roster %s is not UTF-8: read as %s\n", cfg.roster.c_str(), in.roster.encoding.c_str());
    }
    return in;
}

void Grader::choose_seed_and_folders() {
    Config& cfg = setup_.cfg;
    if (cfg.out_dir.empty()) cfg.out_dir = default_out_dir(cfg);
    // Before anything is built: a folder that cannot be written (or a full disk) stops the run now.
    try {
        make_dirs(cfg.out_dir);
        check_writable(cfg.out_dir);
    } catch (const std::runtime_error& e) {
        throw UsageError(std::string(e.what()) + ": give --out a folder you can write to, on a disk with free space");
    }
    setup_.out = absolute(cfg.out_dir);
    out_lock_ = FolderLock(setup_.out);  // one run at a time in OUT, from before its record is read to the end
    open_run_record();
    if (!cfg.seed) {
        std::random_device rd;
        cfg.seed = 1 + (static_cast<unsigned long long>(rd()) << 16 ^ rd()) % 2147483646ull;
    }
    record_.seed = cfg.seed;
    save_run_record(setup_.out, record_);  // the seed, before the first submission is graded
    setup_.priv = setup_.out + "/.private";
    make_dirs(setup_.priv);
    chmod(setup_.priv.c_str(), 0700);
    own_.priv = setup_.priv;
    for (const char* d : {"feedback", "results"}) make_dirs(setup_.out + "/" + d);
    // This run's own sandbox user (root only): no other grading run on the machine shares it,
    // its processes, or its process limit.
    lock_dir_ = lock_folder();
    if (geteuid() == 0) identity_ = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);
    std::fprintf(stderr, "grade: lab %s, rubric %s, seed %llu, results in %s\n", cfg.lab.c_str(), cfg.rubric_path.c_str(), cfg.seed,
                 setup_.out.c_str());
    if (resuming_)
        std::fprintf(stderr, "grade: resuming the run begun in %s with its seed %llu (recorded when it began); %zu submission%s graded before it stopped %s kept\n",
                     setup_.out.c_str(), cfg.seed, recorded_.size(), recorded_.size() == 1 ? "" : "s", recorded_.size() == 1 ? "is" : "are");
}

// --resume OUT: the run's options and seed are those OUT's record holds.
void Grader::take_command_from_record() {
    Config& cfg = setup_.cfg;
    if (cfg.resume.empty()) return;
    if (!has_run_record(cfg.resume))
        throw UsageError(cfg.resume + " holds no record of a grading run (" + run_record_path(cfg.resume) +
                         "): there is nothing to resume; grade the class with grading/grade --lab NN --out " + cfg.resume + " SUBMISSION...");
    const RunRecord recorded = load_run_record(cfg.resume);
    if (recorded.finished) throw UsageError("the run in " + cfg.resume + " has finished: there is nothing to resume (its results are there)");
    apply_run_command(recorded.command, cfg);
    cfg.seed = recorded.seed;
    cfg.out_dir = cfg.resume;
    Config as_recorded = cfg;  // its inputs and files must still be there
    as_recorded.resume.clear();
    check_command(as_recorded);
}

// The run's record (run_record.h), written before anything is built. A run that finds its own
// unfinished record in OUT goes on with it: the seed it recorded, the submissions it graded.
// Another run's unfinished results are neither mixed in nor lost: that run is refused.
void Grader::open_run_record() {
    Config& cfg = setup_.cfg;
    const std::string& out = setup_.out;
    const json command = run_command_json(cfg);
    if (has_run_record(out)) {
        const RunRecord before = load_run_record(out);
        if (!before.finished) {
            std::vector<std::string> damaged;
            recorded_ = load_submission_records(out, &damaged);
            for (const std::string& id : damaged) {
                forget_submission_record(out, id);
                std::fprintf(stderr, "grade: %s's record in %s/.resume was damaged: %s is graded again\n", id.c_str(), out.c_str(), id.c_str());
            }
            const std::string refusal = resume_refusal(before, command, setup_.rubric_sha, cfg.seed, out);
            if (refusal.empty()) {
                record_ = before;
                resuming_ = true;
                cfg.seed = before.seed;
                return;
            }
            if (!recorded_.empty() || !cfg.resume.empty()) throw UsageError(refusal);
        }
    }
    recorded_.clear();
    clear_submission_records(out);
    record_ = RunRecord{};
    record_.command = command;
    record_.rubric_sha256 = setup_.rubric_sha;
}

// A run is resumed with the trusted tree it began with: another grader could grade otherwise.
void Grader::record_tree() {
    if (resuming_ && !record_.tree.empty() && record_.tree != setup_.tree)
        throw UsageError("the run in " + setup_.out + " began with the tree at " + record_.tree + ", not " + setup_.tree +
                         ": resume it with that tree, or grade the class anew into another --out");
    record_.tree = setup_.tree;
    save_run_record(setup_.out, record_);
}

void Grader::load_lab() {
    std::fprintf(stderr, "grade: building the trusted tree (make grading-info LAB=%s)...\n", setup_.cfg.lab.c_str());
    setup_.info = load_lab_info(setup_.cfg.root, setup_.cfg.lab, setup_.priv);
    const LabInfo& info = setup_.info;
    setup_.trusted = load_trusted_symbols(info.objects, info.driver_object, setup_.priv);
    setup_.sol_kernels = object_kernels(info.sol_object, setup_.priv);
    import_lists_ = load_import_lists(setup_.cfg.root);

    // The rubric's tests of each rung come from the rungs the lab declares, and the rubric must
    // agree with the rest of what it declares: its variants, and every size the driver checks in
    // each correctness test.
    RunResult described = run_trusted({info.sol, "--describe"}, setup_.cfg.root, 60, setup_.priv);
    if (!described.ok())
        throw std::runtime_error(info.sol + " --describe failed (" + described.describe() + "): " + clip(described.err, 500));
    const LabDeclaration declared = parse_lab_declaration(described.out, info.sol + " --describe");
    setup_.variants = declared.variants;
    setup_.rubric = parse_rubric(setup_.rubric_text, setup_.cfg.rubric_path, &declared);
    const std::vector<std::string> disagreements = rubric_disagreements(setup_.rubric, declared);
    if (!disagreements.empty())
        throw RubricError(setup_.cfg.rubric_path + " disagrees with lab " + setup_.cfg.lab + " (" + info.sol +
                          " --describe): " + join(disagreements, "; "));
    describe_tools_and_tree();
}

// The compiler and the trusted tree's revision, as every report states them.
void Grader::describe_tools_and_tree() {
    const std::string& root = setup_.cfg.root;
    const std::string& priv = setup_.priv;
    std::string last;
    std::istringstream vin(run_trusted({setup_.info.nvcc, "--version"}, root, 60, priv).out);
    for (std::string line; std::getline(vin, line);)
        if (!line.empty()) last = line;
    setup_.tools = "nvcc: " + last;
    std::string git = run_trusted({"git", "-C", root, "rev-parse", "--short", "HEAD"}, root, 30, priv).out;
    std::string dirty = run_trusted({"git", "-C", root, "status", "--porcelain"}, root, 30, priv).out;
    if (!git.empty()) setup_.tools += "; tree: " + split_ws(git)[0] + (dirty.empty() ? "" : " (modified)");
    // Shards of one class must come from the same tree: a modified one is told apart by the
    // changes of its tracked files (not by untracked ones, such as other shards' results).
    if (!git.empty()) {
        setup_.tree = split_ws(git)[0];
        const std::string diff = dirty.empty() ? "" : run_trusted({"git", "-C", root, "diff", "HEAD"}, root, 60, priv).out;
        if (!diff.empty()) setup_.tree += " modified (diff sha256 " + sha256_hex(diff).substr(0, 16) + ")";
    }
}

// ---- the sandbox, the GPUs, the self-test ----

// The limits of every run (the rubric's), where the sandbox's files live, and the isolation.
void Grader::set_up_sandbox() {
    setup_.run_limits.mem_mb = setup_.rubric.mem_limit_mb;
    setup_.run_limits.file_mb = setup_.rubric.file_limit_mb;
    // RLIMIT_NPROC counts every process of a user: it is this run's own only where the programs
    // run as this run's own user (the grader is root); as the grader's user it would count the
    // user's other processes too, so it is not set there.
    setup_.run_limits.processes = geteuid() == 0 ? setup_.rubric.process_limit : 0;
    setup_.run_limits.keep_output = 16 << 10;
    choose_work_folder();
    choose_sandbox();
    own_.iso = setup_.iso;
}

// Where the sandbox's files live (build stages, programs, run folders): OUT/work when the
// sandbox's user can enter every folder on the way there, else a folder of this run's own under
// /var/tmp (a bubblewrap started as that user cannot bind what lies past a private folder, such
// as root's home). Said in one line when neither will do.
void Grader::choose_work_folder() {
    const uid_t uid = identity_.lock.held() ? identity_.uid : kSandboxUid;
    const gid_t gid = identity_.lock.held() ? identity_.gid : kSandboxGid;
    const std::string preferred = setup_.out + "/work";
    const std::string blocked = geteuid() == 0 ? unenterable_folder(preferred, uid, gid) : "";
    if (blocked.empty()) {
        setup_.work = preferred;
    } else {
        const std::string base = "/var/tmp";
        if (const std::string also = unenterable_folder(base, uid, gid); !also.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + blocked + " nor " + also +
                             ": give --out a folder under one that others may enter (chmod o+x)");
        std::string tmpl = base + "/cudalabs-grading-XXXXXX";
        if (!mkdtemp(&tmpl[0])) throw std::runtime_error("cannot create a work folder in " + base + ": " + std::strerror(errno));
        setup_.work = tmpl;
        std::fprintf(stderr, "grade: the sandbox's user cannot enter %s, so submissions are built and run in %s\n", blocked.c_str(),
                     setup_.work.c_str());
    }
    make_dirs(setup_.work);
    chmod(setup_.work.c_str(), 0711);  // its user enters, nobody lists
    // The trace library comes from the trusted tree, which may lie past a private folder too.
    if (!setup_.info.trace_lib.empty()) {
        const std::string copy = setup_.work + "/.trusted/" + basename_of(setup_.info.trace_lib);
        make_dirs(setup_.work + "/.trusted");
        chmod((setup_.work + "/.trusted").c_str(), 0755);
        write_file(copy, read_file(setup_.info.trace_lib));
        chmod(copy.c_str(), 0755);
        setup_.info.trace_lib = copy;
    }
    if (geteuid() == 0)
        if (const std::string cuda = unenterable_folder(setup_.info.cuda_home, uid, gid); !cuda.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + cuda + ", on the way to the CUDA toolkit " +
                             setup_.info.cuda_home + ": let others enter it (chmod o+rx) or install the toolkit elsewhere");
}

void Grader::choose_sandbox() {
    isolation_paths_.hidden = {setup_.cfg.root, setup_.out, setup_.work};
    if (identity_.lock.held()) {
        isolation_paths_.uid = identity_.uid;
        isolation_paths_.gid = identity_.gid;
    }
    // A submission given as a single file: hide its folder, which holds the other students'.
    for (const std::string& in : setup_.cfg.inputs) {
        const std::string abs = absolute(in);
        isolation_paths_.hidden.push_back(is_dir(abs) ? abs : abs.substr(0, abs.find_last_of('/')));
    }
    isolation_paths_.readonly = {setup_.info.cuda_home};
    if (!setup_.info.trace_lib.empty()) isolation_paths_.readonly.push_back(setup_.info.trace_lib);
    isolation_paths_.probe_dir = setup_.work + "/.probe";
    setup_.iso = choose_isolation(setup_.cfg.isolation, isolation_paths_);  // or one sentence saying what to do (UsageError)
}

// The GPUs to grade on, and the self-test on the first of them (with --compile-only, neither).
// False when there is no usable GPU.
bool Grader::choose_gpus_and_self_test(std::vector<int>& gpus) {
    const Config& cfg = setup_.cfg;
    if (!cfg.compile_only) {
        gpus = gpus_to_grade_on();
        if (have_gpu_) {
            std::fprintf(stderr, "grade: checking the sandbox with the reference solution...\n");
            self_test();
        }
        if (!have_gpu_) {
            std::fprintf(stderr, "grade: no usable CUDA GPU: grading needs one to run the programs (--compile-only builds and audits without)\n");
            return false;
        }
    } else {
        setup_.isolation_text = setup_.iso.describe() + " (compile only)";
        if (cfg.gpus.given) std::fprintf(stderr, "grade: --compile-only runs nothing on a GPU: --gpus %s is not used\n", cfg.gpus.text.c_str());
    }
    std::fprintf(stderr, "grade: isolation: %s\n", setup_.isolation_text.c_str());
    announce_gpus(gpus);
    return true;
}

// The GPUs --gpus names, the first of them the self-test's; without --gpus, the one CUDA picks.
// Their UUIDs come first (no context is made): a GPU is locked by its UUID before anything of
// this run uses it.
std::vector<int> Grader::gpus_to_grade_on() {
    std::vector<int> gpus;
    if (setup_.cfg.gpus.given) {
        gpus = choose_gpus();
        if (gpus.empty()) have_gpu_ = false;
        else own_.cuda_visible_devices = pinned_device(gpus[0], std::getenv("CUDA_VISIBLE_DEVICES"));
        if (!gpus.empty() && static_cast<size_t>(gpus[0]) < gpu_uuids_.size()) own_.gpu_uuid = gpu_uuids_[static_cast<size_t>(gpus[0])];
    } else if (count_gpus() > 0 && !gpu_uuids_.empty()) {
        own_.gpu_uuid = gpu_uuids_[0];  // the one CUDA picks
    }
    return gpus;
}

void Grader::announce_gpus(const std::vector<int>& gpus) const {
    const Config& cfg = setup_.cfg;
    if (!gpus.empty() && cfg.gpus.shared)
        std::fprintf(stderr, "grade: %s=1: %zu workers on the GPUs of --gpus %s, some sharing one: their timings disturb each other, "
                             "so the performance scores are not fair (for testing the grader, not for grading a class)\n",
                     kSharedGpusVariable, gpus.size(), cfg.gpus.text.c_str());
    else if (!gpus.empty())
        std::fprintf(stderr, "grade: grading on %zu GPU%s (--gpus %s), one worker each; checking each GPU with the reference...\n",
                     gpus.size(), gpus.size() == 1 ? "" : "s", cfg.gpus.text.c_str());
}

void Grader::self_test() {
    // The reference solution must run inside the sandbox exactly as a student's program will,
    // channel and trace included, before anything is graded. The level chosen at the start is
    // kept for the whole run: a reference that will not run in it stops the run here, saying
    // why, rather than have the run go on weaker.
    const auto [variant, small] = reference_case();
    place_reference(own_, setup_.work + "/.selftest", setup_.info.sol, variant, small);
    setup_.trace_ok = !setup_.cfg.no_trace && !setup_.info.trace_lib.empty();
    // One trusted run first, outside the sandbox: it tells "no GPU" from "no sandbox", names the
    // GPU (for the reports and its machine-wide lock), and creates the GPU's device nodes where
    // the driver makes them on first use (the sandbox cannot: it runs without the privileges
    // nvidia-modprobe needs).
    std::vector<std::string> pinned;
    if (!own_.cuda_visible_devices.empty()) pinned.push_back("CUDA_VISIBLE_DEVICES=" + own_.cuda_visible_devices);
    const std::string device_json = setup_.priv + "/device.json";
    TurnLocks gpu = lock_gpu_of(own_, "the GPU");
    const RunResult plain = run_reference_outside_sandbox(own_, variant, small, device_json, pinned);
    if (plain.exit_code == cudalabs::kExitNoGpu) {
        have_gpu_ = false;
        return;
    }
    if (!plain.ok())
        throw std::runtime_error("the reference solution fails outside the sandbox (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500));
    read_device(own_, device_json);
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
}

// The isolation step (and stderr line) of a sandbox that shows its runs the whole /dev because the
// reference failed with its GPU's nodes alone.
std::string whole_dev_because(const std::string& failure) {
    return "device nodes: the whole /dev (with its GPU's alone, the reference failed: " + clip(failure, 300) + ")";
}

// Where the driver names the GPU's node (gpu_nodes.h), a run under bubblewrap sees that node and
// the driver's, no other GPU's, and CUDA_VISIBLE_DEVICES names the GPU by its UUID (an index
// would count the GPUs the run cannot open). Elsewhere (no UUID, a MIG instance, another
// isolation level) the run sees the whole /dev, as before.
void Grader::show_only_its_gpu(WorkerSetup& w) const {
    w.iso.devices.clear();
    if (!gpu_nodes_alone_ || w.iso.level != IsolationLevel::Bwrap || w.gpu_uuid.empty()) return;
    w.iso.devices = gpu_device_nodes(w.gpu_uuid);
    if (!w.iso.devices.empty()) w.cuda_visible_devices = w.gpu_uuid;
}

// The self-test's sandbox check (reference_in_sandbox_within_limits, on own_) with the run shown
// only its GPU's nodes; where the reference does not run so, the check again with the whole /dev,
// said in `steps`. A rule that makes runs faster never stops a class.
SandboxCheck Grader::reference_in_sandbox_on_its_gpu(std::vector<std::string>& steps) {
    const WorkerSetup whole_dev = own_;
    const Limits limits = setup_.run_limits;
    const size_t known_steps = steps.size();
    show_only_its_gpu(own_);
    if (own_.iso.devices.empty()) return reference_in_sandbox_within_limits(steps);
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
    own_ = whole_dev;
    setup_.run_limits = limits;
    steps.resize(known_steps);
    gpu_nodes_alone_ = false;
    steps.push_back(whole_dev_because(failure));
    std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
    return reference_in_sandbox_within_limits(steps);
}

// What keeps the reference's run in the sandbox from counting as working there: its failure, or a
// kernel trace that saw none of its kernels (the trace would be turned off); "" when it works.
std::string Grader::why_not_working(const SandboxCheck& check) const {
    if (!check.failure.empty()) return check.failure;
    if (setup_.trace_ok && !reference_kernels_seen(check.run)) return "the kernel trace recorded none of its kernels";
    return "";
}

// The reference run in the sandbox under the rubric's limits; without the memory limit where it
// would not run under it (said in `steps`); then every sanitizer tool of the rubric.
SandboxCheck Grader::reference_in_sandbox_within_limits(std::vector<std::string>& steps) {
    const GradingContext ctx{setup_, own_, no_submission_};
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
std::string Grader::check_sanitizers() {
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
        const SandboxCheck check = run_reference_in_sandbox({setup_, own_, no_submission_}, &like);
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
void Grader::check_kernel_trace(const ProgramRun& run, std::vector<std::string>& steps) {
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
std::string Grader::isolation_description(const std::vector<std::string>& steps) const {
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
RunResult Grader::run_reference_outside_sandbox(const WorkerSetup& worker, const std::string& variant, const std::string& small,
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
bool Grader::reference_kernels_seen(const ProgramRun& run) const {
    for (const CaseEvidence& c : run.cases)
        for (const KernelSpan& k : c.kernels)
            if (is_one_of(k, setup_.sol_kernels)) return true;
    return false;
}

// Whether the reference's timed repetitions ran kernels, all of them its own (so that a kernel
// foreign to a submission's file, in its repetitions, is the submission's doing).
bool Grader::reference_repetitions_own(const ProgramRun& run) const {
    bool any = false;
    for (const CaseEvidence& c : run.cases) {
        if (foreign_kernel(c, setup_.sol_kernels)) return false;
        for (const RepetitionEvidence& rep : c.reps) any = any || !rep.kernels.empty();
    }
    return any;
}

// The name of a worker's GPU's machine-wide lock: its UUID, else what CUDA_VISIBLE_DEVICES names.
std::string gpu_lock_name(const WorkerSetup& worker) {
    return !worker.gpu_uuid.empty() ? worker.gpu_uuid : "visible-" + (worker.cuda_visible_devices.empty() ? std::string("default") : worker.cuda_visible_devices);
}

// The GPU's locks (machine_locks.h), held alone while the GPU is checked (its ticket's too, as
// every exclusive holder's); its lanes' turns take them through their gate (gpu_turns.h) while
// they grade.
TurnLocks Grader::lock_gpu_of(const WorkerSetup& worker, const std::string& label) {
    const std::string name = gpu_lock_name(worker);
    return lock_gpu(name, lock_dir_, TurnKind::Alone, [&] {
        std::fprintf(stderr, "grade: %s (%s) is in use by another grading run on this machine: waiting for it\n", label.c_str(), name.c_str());
    });
}

// A variant and size of the rubric's first correctness test (not a yardstick, which checks
// nothing and so exits 1): what the reference runs to test the sandbox and each GPU.
std::pair<std::string, std::string> Grader::reference_case() const {
    for (const TestSpec& t : setup_.rubric.tests)
        if (!t.sizes.empty() && t.kind == TestKind::Correctness) return {t.variants[0], t.sizes[0]};
    return {setup_.variants.front(), "1"};
}

// How many GPUs CUDA shows the grader (within CUDA_VISIBLE_DEVICES when it is set), asked of the
// trusted reference (a --device that no machine has: the harness names the count), so that the
// grader itself needs no CUDA; nvidia-smi -L where the answer cannot be read. 0: no usable GPU.
int Grader::count_gpus() {
    const auto [variant, small] = reference_case();
    RunResult r = run_trusted({setup_.info.sol, "--device", "1023", "--variant", variant, "--size", small, "--reps", "1"}, setup_.priv, 120,
                              setup_.priv);
    if (r.exit_code == cudalabs::kExitNoGpu) return 0;
    const int n = parse_device_count(r.out + "\n" + r.err);
    gpu_uuids_ = parse_device_uuids(r.out + "\n" + r.err);
    if (gpu_uuids_.size() != static_cast<size_t>(std::max(n, 0))) gpu_uuids_.clear();
    if (n >= 0) return n;
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) return static_cast<int>(visible_device_entries(visible).size());
    RunResult smi = run_trusted({"nvidia-smi", "-L"}, setup_.priv, 60, setup_.priv);
    if (smi.ok()) return count_nvidia_smi_gpus(smi.out);
    throw std::runtime_error("cannot count the GPUs: " + setup_.info.sol + " --device 1023 (" + r.describe() + ") named no count (" +
                             clip(r.out + r.err, 300) + ") and nvidia-smi -L failed (" + smi.describe() + ")");
}

// The GPUs --gpus names, checked against those CUDA shows (empty: no usable GPU at all).
std::vector<int> Grader::choose_gpus() {
    const int count = count_gpus();
    if (count == 0) return {};
    return resolve_gpus(setup_.cfg.gpus, count, std::getenv("CUDA_VISIBLE_DEVICES"));
}

std::string Grader::gpu_label(const Worker& w) const {
    std::string label = worker_name(w);
    const std::string& visible = w.setup.cuda_visible_devices;
    if (visible != std::to_string(w.gpu) && visible != w.setup.gpu_uuid) label += " (CUDA_VISIBLE_DEVICES=" + visible + ")";
    return label;
}

// "GPU 2", or where workers share a GPU (GRADING_SHARED_GPUS) "GPU 0 worker 1" (its place in the list).
std::string Grader::worker_name(const Worker& w) const {
    std::string name = "GPU " + std::to_string(w.gpu);
    if (setup_.cfg.gpus.shared) name += " worker " + std::to_string(w.slot);
    return name;
}

// One worker per GPU, each with its own setup: its GPU (CUDA_VISIBLE_DEVICES in every run's
// environment, the reference's and the verifier's too), its own private folder (outputs,
// verdicts, the reference's timing runs), its own sandbox user where the sandbox changes user
// (from the machine's pool of identities: runs under way at once cannot reach each other's
// processes or run folders, nor share a process limit) and its own device name. Without --gpus,
// one worker with the grader's own setup.
void Grader::set_up_workers(const std::vector<int>& gpus) {
    workers_.clear();
    if (gpus.empty()) {
        Worker w;
        w.setup = own_;
        workers_.push_back(std::move(w));
        set_up_lanes();
        return;
    }
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    for (size_t k = 0; k < gpus.size(); ++k) {
        Worker w;
        w.slot = k;
        w.gpu = gpus[k];
        w.setup = own_;
        w.setup.cuda_visible_devices = pinned_device(gpus[k], visible);
        w.setup.gpu_uuid = static_cast<size_t>(gpus[k]) < gpu_uuids_.size() ? gpu_uuids_[static_cast<size_t>(gpus[k])] : "";
        show_only_its_gpu(w.setup);
        w.setup.priv = setup_.priv + "/worker" + std::to_string(k);
        make_dirs(w.setup.priv);
        chmod(w.setup.priv.c_str(), 0700);
        if (w.setup.iso.changes_user() && k > 0) {
            // A user of its own, from the machine's pool: runs under way at once cannot reach
            // each other, nor share a process limit (the first worker has the run's).
            w.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);
            w.setup.iso.uid = w.identity.uid;
            w.setup.iso.gid = w.identity.gid;
        }
        workers_.push_back(std::move(w));
    }
    for (Worker& w : workers_) check_gpu(w);
    set_up_lanes();
}

// How many submissions at once on a worker's GPU: --per-gpu N, or auto from what the GPU's check
// found (its memory and SMs, in the reference's device.json), the CPUs and the GPU's compute mode.
size_t Grader::lanes_per_gpu(const Worker& w) {
    const Config& cfg = setup_.cfg;
    if (cfg.compile_only) return 1;
    if (cfg.per_gpu > 0) return cfg.per_gpu;
    double memory_gib = 0;
    int sms = 0;
    const std::string device_json = (w.gpu >= 0 ? w.setup.priv : setup_.priv) + "/device.json";
    try {
        const json d = json::parse(read_file(device_json)).at("device");
        memory_gib = d.value("memory_gib", 0.0);
        sms = d.value("sms", 0);
    } catch (const std::exception&) {
        return 1;  // nothing known of the GPU: one at a time
    }
    std::vector<std::string> query = {"nvidia-smi", "--query-gpu=compute_mode", "--format=csv,noheader"};
    if (!w.setup.gpu_uuid.empty()) query.insert(query.end(), {"-i", w.setup.gpu_uuid});
    const RunResult smi = run_trusted(query, setup_.priv, 60, setup_.priv);
    const std::vector<std::string> words = smi.ok() ? split_ws(smi.out) : std::vector<std::string>();
    const std::string mode = words.size() == 1 ? words[0] : "";
    return auto_lanes_per_gpu(memory_gib, sms, std::max(1u, std::thread::hardware_concurrency()), workers_.size(), mode);
}

// Each worker's lanes (--per-gpu) and its GPU's gate. The first lane is the worker's own setup;
// the others have their own private folder, sandbox user and copy of the reference (what decides
// a failure that persists, run as their user), made from the worker's checked setup.
void Grader::set_up_lanes() {
    lanes_.clear();
    lanes_per_gpu_ = lanes_per_gpu(workers_[0]);
    std::map<std::string, std::shared_ptr<GpuGate>> gates;  // by the GPU's lock name
    std::map<std::string, std::shared_ptr<ReferencePool>> pools;
    for (size_t k = 0; k < workers_.size(); ++k) {
        Worker& w = workers_[k];
        const std::string label = w.gpu >= 0 ? gpu_label(w) : "the GPU";
        const std::string name = gpu_lock_name(w.setup);
        std::shared_ptr<GpuGate>& gate = gates[name];
        if (!gate)
            gate = std::make_shared<GpuGate>(name, lock_dir_, [label, name] {
                std::fprintf(stderr, "grade: %s (%s) is in use by another grading run on this machine: waiting for it\n", label.c_str(), name.c_str());
            });
        w.gate = gate;
        std::shared_ptr<ReferencePool>& pool = pools[name];
        if (!pool) pool = std::make_shared<ReferencePool>();
        w.reference_pool = pool;
        w.setup.reference_pool = pool.get();  // (each lane's setup is a copy of it)
        for (size_t j = 0; j < lanes_per_gpu_; ++j) {
            Lane lane;
            lane.worker = k;
            lane.index = j;
            lane.setup = w.setup;
            if (j > 0) {
                lane.setup.priv = w.setup.priv + "/lane" + std::to_string(j);
                make_dirs(lane.setup.priv);
                chmod(lane.setup.priv.c_str(), 0700);
                if (lane.setup.iso.changes_user()) {
                    lane.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);
                    lane.setup.iso.uid = lane.identity.uid;
                    lane.setup.iso.gid = lane.identity.gid;
                }
                if (!w.setup.reference.program.empty())
                    place_reference(lane.setup, setup_.work + "/.selftest-worker" + std::to_string(k) + "-lane" + std::to_string(j), setup_.info.sol,
                                    w.setup.reference.args[1], w.setup.reference.args[3]);
            }
            lanes_.push_back(std::move(lane));
        }
    }
    if (lanes_per_gpu_ > 1)
        std::fprintf(stderr, "grade: %zu submissions at once on each GPU (--per-gpu %s): untimed tests share it, timed tests have it alone\n",
                     lanes_per_gpu_, setup_.cfg.per_gpu ? std::to_string(setup_.cfg.per_gpu).c_str() : "auto");
}

// Before grading, each GPU runs the reference: outside the sandbox (its name and driver, for the
// reports), and in the sandbox as a student's program will run there (the first GPU's was the
// self-test). A GPU that fails is named, and grading does not start.
void Grader::check_gpu(Worker& w) {
    const auto [variant, small] = reference_case();
    const std::string label = gpu_label(w), device_json = w.setup.priv + "/device.json";
    const std::string leave_out = ": check it (nvidia-smi), or leave it out of --gpus";
    unlink(device_json.c_str());
    TurnLocks gpu = lock_gpu_of(w.setup, label);
    const RunResult plain =
        run_reference_outside_sandbox(w.setup, variant, small, device_json, {"CUDA_VISIBLE_DEVICES=" + w.setup.cuda_visible_devices});
    if (plain.exit_code == cudalabs::kExitNoGpu)
        throw std::runtime_error(label + ": CUDA cannot use it (" + clip(plain.err, 500) + ")" + leave_out);
    if (!plain.ok())
        throw std::runtime_error(label + ": the reference solution fails on it (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500) +
                                 leave_out);
    try {
        read_device(w.setup, device_json);
        w.name = json::parse(read_file(device_json)).at("device").at("name").get<std::string>();
    } catch (const std::exception& e) {
        throw std::runtime_error(label + ": " + e.what());
    }
    // Each worker's own reference run in the sandbox (as its user, on its GPU): the self-test's
    // for the first, and what decides a failure that persists (runs.h, reference_runs_in_sandbox).
    place_reference(w.setup, setup_.work + "/.selftest-worker" + std::to_string(w.slot), setup_.info.sol, variant, small);
    if (w.slot > 0) {
        SandboxCheck check = run_reference_in_sandbox({setup_, w.setup, no_submission_});
        if (const std::string failure = why_not_working(check); !failure.empty() && !w.setup.iso.devices.empty()) {
            // As in the self-test: with the whole /dev rather than not at all.
            std::fprintf(stderr, "grade: %s: %s\n", label.c_str(), whole_dev_because(failure).c_str());
            w.setup.iso.devices.clear();
            w.setup.cuda_visible_devices = pinned_device(w.gpu, std::getenv("CUDA_VISIBLE_DEVICES"));
            check = run_reference_in_sandbox({setup_, w.setup, no_submission_});
        }
        if (!check.failure.empty())
            throw std::runtime_error(label + " (" + w.name + "): " + check.failure + " (" + w.setup.iso.describe() + ")\n" + leave_out.substr(2));
        if (setup_.trace_ok && !reference_kernels_seen(check.run))
            throw std::runtime_error(label + " (" + w.name + "): the kernel trace recorded no kernel of the reference there, as it did on GPU " +
                                     std::to_string(workers_[0].gpu) + leave_out);
    }
    std::fprintf(stderr, "grade: %s: %s: the reference runs there%s\n", label.c_str(), w.setup.device.c_str(),
                 w.slot > 0 ? " in the sandbox" : "");
}

// ---- the submissions: found, matched to the roster, sliced, built and audited ----

ClassSlice Grader::take_in_submissions(ClassInputs& inputs) {
    const Config& cfg = setup_.cfg;
    ClassSlice slice;
    for (const SubmissionSource& src : take_submissions(cfg.inputs, setup_.info.topic_file)) {
        Submission s;
        s.source = src;
        s.result.student = src.id;
        s.result.submitted_as = src.submitted_as;
        s.result.file = src.file;
        s.result.rejected = src.rejected;
        if (!src.unreadable.empty()) s.result.grader_error = "while taking the submission in: " + src.unreadable;
        if (src.rejected.empty() && src.unreadable.empty()) s.result.sha256 = sha256_hex(src.source);
        s.result.notes = notes_;
        slice.subs.push_back(s);
    }
    if (slice.subs.empty()) throw UsageError("no submissions found");
    match_class_to_roster(slice.subs, inputs);
    slice.class_ids = ids_of(slice.subs);
    if (cfg.shard.active()) take_shard_slice(slice);
    if (!cfg.gradescope.empty() && slice.subs.size() != 1) throw UsageError("--gradescope needs exactly one submission");
    return slice;
}

// With a roster: the whole class is matched (every shard finds the same), before the slice.
void Grader::match_class_to_roster(const std::vector<Submission>& subs, ClassInputs& inputs) {
    const Config& cfg = setup_.cfg;
    if (cfg.roster.empty()) {
        for (const char* f : {"roster.json", "lms-canvas.csv", "lms-moodle.csv", "roster.txt"}) unlink((setup_.out + "/" + f).c_str());  // an earlier run's
        return;
    }
    std::vector<SubmissionSource> sources;
    for (const Submission& s : subs) sources.push_back(s.source);
    inputs.roster_match = match_roster(inputs.roster, submission_names(sources));
    if (!cfg.allow_unmatched_roster) require_some_match(inputs.roster, inputs.roster_match, subs.size());
    LmsAssignment assignment{cfg.lms_assignment.empty() ? "Lab " + cfg.lab : cfg.lms_assignment,
                             cfg.lms_points > 0 ? cfg.lms_points : setup_.rubric.total_points(), setup_.rubric.total_points()};
    write_file(setup_.out + "/roster.json", roster_record_json(inputs.roster, inputs.roster_match, assignment));
    std::fprintf(stderr, "grade: roster %s: %zu students, %zu of the %zu submissions matched\n", cfg.roster.c_str(), inputs.roster.entries.size(),
                 inputs.roster_match.students.size(), subs.size());
}

// A shard grades its slice of the class; the slices depend on the sorted ids alone, so every
// node finds the same ones. Its shard.json says so from the start (unfinished until the end).
void Grader::take_shard_slice(ClassSlice& slice) {
    const Config& cfg = setup_.cfg;
    std::vector<Submission>& subs = slice.subs;
    const std::vector<std::string> mine = shard_members(slice.class_ids, cfg.shard.k, cfg.shard.n);
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const Submission& s) { return std::find(mine.begin(), mine.end(), s.source.id) == mine.end(); }),
               subs.end());
    ShardRecord& shard = slice.shard;
    shard.k = cfg.shard.k;
    shard.n = cfg.shard.n;
    shard.seed = cfg.seed;
    shard.lab = cfg.lab;
    shard.rubric = cfg.rubric_path;
    shard.rubric_sha256 = setup_.rubric_sha;
    shard.tree = setup_.tree;
    shard.tools = setup_.tools;
    shard.isolation = setup_.isolation_text;
    shard.compile_only = cfg.compile_only;
    shard.regrade_of = cfg.regrade;
    shard.class_ids = slice.class_ids;
    shard.assigned = mine;
    shard.summary_head = summary_head(setup_.rubric);
    write_file(setup_.out + "/shard.json", shard_record_json(shard));
    std::fprintf(stderr, "grade: shard %s: %zu of the class's %zu submissions\n", cfg.shard.text().c_str(), subs.size(), slice.class_ids.size());
}

// Resuming: the submissions recorded before the run stopped keep their results, and are neither
// built nor graded again. The class must be the one the run began with, each file unchanged.
void Grader::keep_recorded(ClassSlice& slice) {
    if (!resuming_) return;
    const std::string anew = ": grade the class anew into another --out";
    if (!record_.class_ids.empty() && record_.class_ids != ids_of(slice.subs))
        throw UsageError("the submissions are not those the run in " + setup_.out + " began with" + anew);
    for (Submission& s : slice.subs) {
        auto it = recorded_.find(s.source.id);
        if (it == recorded_.end()) continue;
        const std::string& sha = it->second.result.sha256;
        if (!sha.empty() && sha != s.result.sha256) {  // its own row only: graded anew
            forget_submission_record(setup_.out, s.source.id);
            std::fprintf(stderr, "grade: %s's submission changed since the run in %s began: it is graded again\n", s.source.id.c_str(),
                         setup_.out.c_str());
            continue;
        }
        s.result = it->second.result;
        s.restored = true;
    }
}

// The builds start, beside the grading (build_queue.h): no student code runs in a build and no
// timing is taken there. They run as a sandbox user of their own (root only), so that they share
// no process limit with the lane that has the run's.
std::unique_ptr<BuildQueue> Grader::start_builds(std::vector<Submission>& subs) {
    set_up_build_reuse();
    build_iso_ = setup_.iso;
    if (build_iso_.changes_user()) {
        build_identity_ = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);
        build_iso_.uid = build_identity_.uid;
        build_iso_.gid = build_identity_.gid;
    }
    const int jobs = setup_.cfg.jobs > 0 ? setup_.cfg.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::make_unique<BuildQueue>(build_order(subs), jobs,
                                        [this, &subs](size_t i, bool last_try) { return build_one(subs[i], subs.size(), last_try); });
}

// One build, on a compile thread; false where it is put off (prepare). A disk that refused the
// build's files stops the run (the exception goes on); any other failure is a grader error of
// this submission's.
bool Grader::build_one(Submission& s, size_t count, bool last_try) {
    bool ended = true;
    try {
        ended = prepare(s, last_try);
    } catch (const StorageError&) {
        throw;
    } catch (const std::exception& e) {
        s.result.grader_error = std::string("while building: ") + e.what();
    }
    std::lock_guard<std::mutex> lock(build_progress_);
    if (!ended) {
        const double limit = setup_.rubric.compile_timeout_s;
        std::fprintf(stderr,
                     "[%zu/%zu] %s: the compilation took longer than %s s; it is made again with %s s once the rest of the "
                     "class is graded (elapsed %s)\n",
                     builds_ended_, count, s.source.id.c_str(), number_text(limit).c_str(), number_text(kTimeoutStretch * limit).c_str(),
                     elapsed_text(elapsed()).c_str());
        return false;
    }
    const std::string why = !s.result.grader_error.empty() ? "grader error " + s.result.grader_error : s.result.rejected;
    std::fprintf(stderr, "[%zu/%zu] built %s: %s (elapsed %s)\n", ++builds_ended_, count, s.source.id.c_str(),
                 s.restored ? "graded before the run stopped: kept" : s.ready ? "ok" : why.substr(0, 100).c_str(), elapsed_text(elapsed()).c_str());
    return true;
}

// Builds are reused for identical files (build_cache.h) unless --no-build-reuse: what every build
// reads besides its file is hashed once here (the toolchain, the staged headers, the trusted
// objects).
void Grader::set_up_build_reuse() {
    if (!setup_.cfg.build_reuse) return;
    build_cache_ = std::make_unique<BuildCache>(setup_.priv + "/build-cache");
    const LabInfo& info = setup_.info;
    std::vector<std::string> inputs;
    for (const std::string& dir : {std::string("common"), info.dir})
        for (const std::string& f : list_dir(setup_.cfg.root + "/" + dir))
            if (is_header(f)) inputs.push_back(setup_.cfg.root + "/" + dir + "/" + f);
    const BuildSpec b = build_spec(setup_.work);
    inputs.insert(inputs.end(), b.trusted_objects.begin(), b.trusted_objects.end());
    build_inputs_ = build_inputs_digest(setup_.tools, inputs);
}

// The order of the builds: the first file of each content first, then the files identical to one
// before them, which wait for its build to be reused.
std::vector<size_t> Grader::build_order(const std::vector<Submission>& subs) const {
    std::vector<size_t> first, again;
    std::set<std::string> seen;
    for (size_t i = 0; i < subs.size(); ++i) {
        const StudentResult& r = subs[i].result;
        const bool taken = r.rejected.empty() && r.grader_error.empty();
        const bool repeat = build_cache_ && taken && !seen.insert(r.sha256).second;
        (repeat ? again : first).push_back(i);
    }
    first.insert(first.end(), again.begin(), again.end());
    return first;
}

// Build and audit one submission (runs on a compile thread; no student code runs); false where
// its compile timed out and is put off to the end of the class (`last_try`: made then).
bool Grader::prepare(Submission& s, bool last_try) {
    StudentResult& r = s.result;
    if (!r.rejected.empty() || !r.grader_error.empty() || s.restored) return true;
    // The file's bytes were taken in through no link (intake/submissions.h); the disk must have
    // room for its build before it starts (else the run stops: a full disk is no student's).
    check_free_space(setup_.work);
    const std::string work = setup_.work + "/" + s.source.id;
    stage_submission(s, s.source.source, work);
    BuildSpec b = build_spec(work);
    // A compile that times out is made again once the rest of the class is graded, so that no
    // timed test waits for its longer try (build_queue.h).
    b.compile_retry = last_try ? TimeoutRetry::Longer : TimeoutRetry::Later;
    if (build_cache_) {
        b.cache = build_cache_.get();
        b.cache_key = build_cache_key(b, r.sha256, build_inputs_);
    }
    BuildResult built = build_submission(b, setup_.trusted);
    s.timing.compile_s += built.compile_s;  // a build put off: both tries
    s.timing.audit_s = built.audit_s;
    s.timing.link_s = built.link_s;
    s.timing.build_reused = built.reused;
    release_run_folder(s.stage);
    if (built.put_off) return false;
    r.compiled = built.compiled;
    r.compiler_output = clip(built.compiler_output, 12000);
    if (!built.note.empty()) r.notes.push_back(built.note);
    if (!built.ok) {
        check_writable(work);  // a compiler that failed for want of disk is no error of the student's
        r.rejected = built.rejected;
        return true;
    }
    s.graded.id = s.source.id;
    s.graded.file = r.file;
    s.graded.program = b.output_program;
    s.graded.run_dir = work + "/run";
    s.graded.kernels = built.kernels;
    make_dirs(s.graded.run_dir);  // handed to the sandbox's user only while its tests run
    s.ready = true;
    return true;
}

// The stage holds the trusted headers and the student's file, nothing else (no driver, no
// solution); the program goes to a folder the submission can only read, its runs to one of its
// own.
void Grader::stage_submission(Submission& s, const std::string& source, const std::string& work) {
    const LabInfo& info = setup_.info;
    s.stage = work + "/build";
    remove_tree(work);
    make_dirs(work + "/bin");
    stage_submission_files(setup_.cfg.root, info, s.stage, source);
    s.graded.source_copy = s.stage + "/" + info.dir + "/" + info.topic_file;
    prepare_run_folder(s.stage, build_iso_);
}

// How a submission staged in `work` is built: the lab's trusted flags and objects, the rubric's
// rules, the compiler in the sandbox.
BuildSpec Grader::build_spec(const std::string& work) const {
    const LabInfo& info = setup_.info;
    BuildSpec b = lab_build_spec(info, setup_.rubric, import_lists_, work + "/build");
    b.trusted_objects = info.objects;
    b.trusted_objects.push_back(info.student_source_object);
    if (!info.shim_object.empty()) b.trusted_objects.push_back(info.shim_object);
    b.output_program = work + "/bin/program";
    const Isolation& iso = build_iso_;
    b.isolation = &iso;
    return b;
}

// ---- grading ----

// Every submission graded by the next free lane, in the order their builds end (the builds go on
// beside the grading: start_builds). Results are written as each submission
// finishes, so that a run cut short keeps them. With several GPUs they finish in any order: the
// files are put in class order as they are written (the gradebook) or at the end (the audit
// log), as one GPU would have written them. Returns each submission's regrade note, in class
// order ("": the same as before, or no regrade).
std::vector<std::string> Grader::grade_class(ClassSlice& slice, const ClassInputs& inputs, ClassResults& book, BuildQueue& builds) {
    std::vector<Submission>& subs = slice.subs;
    if (!setup_.cfg.roster.empty()) book.use_roster(&inputs.roster, &inputs.roster_match);
    std::vector<std::string> regrade_note(subs.size());  // by class order
    std::mutex finishing;  // the progress lines, the counts, shard.json's rows
    size_t graded = begin_class_files(slice, inputs, book, regrade_note);
    if (graded == 0) write_file(setup_.out + "/breakdown.jsonl", "");  // resumed: the earlier lines stay
    if (!setup_.cfg.compile_only) sandbox_start_s_ = sandbox_start_seconds();
    builds_ = &builds;
    struct Unset {
        BuildQueue*& builds;
        ~Unset() { builds = nullptr; }
    } unset{builds_};
    distribute(subs.size(), lanes_.size(), [&](size_t lane, size_t k) {
        const size_t i = builds.take(k);  // the next submission built
        // The queue hears when it is graded, however that ends (builds put off wait for the
        // class), and a lane that fails stops the lanes still waiting for a build.
        struct Handed {
            BuildQueue& builds;
            ~Handed() {
                if (std::uncaught_exceptions() > 0) builds.cancel();
                builds.graded();
            }
        } handed{builds};
        Lane& l = lanes_[lane];
        Worker& w = workers_[l.worker];
        Submission& s = subs[i];
        if (s.restored) return;
        const bool ran = grade_contained(w, l, s, i, subs.size());
        std::lock_guard<std::mutex> lock(finishing);
        const double written = steady_now();
        if (ran) ++w.graded;
        ++graded;
        const double remaining = elapsed() / static_cast<double>(graded) * static_cast<double>(subs.size() - graded);
        const std::string on = w.gpu >= 0 ? worker_name(w) + ": " : "";
        std::fprintf(stderr, "[%zu/%zu] %s%s: %s (elapsed %s, about %s left)\n", graded, subs.size(), on.c_str(), s.source.id.c_str(),
                     total_text(s.result, setup_.rubric.total_points()).c_str(), elapsed_text(elapsed()).c_str(), elapsed_text(remaining).c_str());
        finish_contained(w, slice, inputs, i, ran, regrade_note, book);
        s.timing.results_s = seconds_since(written);
        s.timing.total_s += s.timing.results_s;
        std::ofstream(setup_.out + "/breakdown.jsonl", std::ios::app) << breakdown_json(s.timing) << "\n";
    });
    for (Lane& l : lanes_) l.kept_verifier.reset();  // the class is graded: the kept verifiers end
    book.end();
    finish_breakdown(subs);
    return regrade_note;
}

// One submission graded, whatever happens inside it: a failure there (an exception, a tool that
// crashed) becomes its own grader error, never the class's. Only a failed write of the grader's
// own (StorageError: a full disk) stops the run, which --resume then finishes.
bool Grader::grade_contained(Worker& w, Lane& lane, Submission& s, size_t index, size_t count) {
    try {
        return grade_submission(w, lane, s, index, count);
    } catch (const StorageError&) {
        throw;
    } catch (const std::exception& e) {
        make_grader_error(s.result, std::string("while grading: ") + e.what());
        return false;
    }
}

// A graded submission's results written (its record, audit line, feedback, results.json and
// gradebook row), every text of its result made valid UTF-8 first. Where making them fails, the
// submission is a grader error instead, written the same way; only a failed write stops the run.
void Grader::finish_contained(const Worker& w, ClassSlice& slice, const ClassInputs& inputs, size_t index, bool ran,
                              std::vector<std::string>& regrade_note, ClassResults& book) {
    Submission& s = slice.subs[index];
    make_text_valid(s.result);
    for (int attempt = 0;; ++attempt) {
        try {
            json line = audit_line(w, s, ran);
            note_finished(slice, inputs, index, regrade_note);
            if (inputs.regrade) line["same_as_before"] = regrade_note[index].empty();
            record_result(s, index, json_text(line), ran, w.slot, book);
            return;
        } catch (const StorageError&) {
            throw;
        } catch (const std::exception& e) {
            if (attempt > 0) throw;  // not even a grader error could be written: the grader's own fault
            forget_submission_record(setup_.out, s.source.id);
            make_grader_error(s.result, std::string("while writing its results: ") + valid_utf8(e.what()));
        }
    }
}

// This run's block of the audit log begun; resumed, begun again with the run's own line and the
// submissions recorded before it stopped, whose files are rendered again from their results.
// Returns how many were kept.
size_t Grader::begin_class_files(ClassSlice& slice, const ClassInputs& inputs, ClassResults& book, std::vector<std::string>& regrade_note) {
    if (record_.audit_prefix < 0) {  // grading begins: where its block starts, and its line
        record_.audit_prefix = book.audit_prefix();
        record_.run_line = json_text(run_line(slice, inputs));
        record_.class_ids = ids_of(slice.subs);
        save_run_record(setup_.out, record_);
    }
    std::map<size_t, ClassResults::Restored> restored;
    for (size_t i = 0; i < slice.subs.size(); ++i) {
        if (!slice.subs[i].restored) continue;
        const SubmissionRecord& r = recorded_.at(slice.subs[i].source.id);
        restored[i] = {r.result, r.audit_line};
        if (r.ran && r.worker < workers_.size()) ++workers_[r.worker].graded;
        note_finished(slice, inputs, i, regrade_note);
    }
    book.resume(record_.audit_prefix, record_.run_line, restored);
    return restored.size();
}

// A finished submission's regrade note (what changed) and its row of shard.json's summary.
void Grader::note_finished(ClassSlice& slice, const ClassInputs& inputs, size_t index, std::vector<std::string>& regrade_note) {
    const Submission& s = slice.subs[index];
    if (inputs.regrade) {
        regrade_note[index] = regrade_difference(s.result, inputs.baseline);
        slice.shard.regrade_notes[s.source.id] = regrade_note[index];
    }
    slice.shard.summary_rows[s.source.id] = summary_row(s.result, setup_.rubric);
}

// A graded submission is recorded (run_record.h) before its files are made from it. A grader
// error may be a full disk's doing: then the run stops instead, and a resume grades it again.
void Grader::record_result(const Submission& s, size_t index, const std::string& line, bool ran, size_t worker, ClassResults& book) {
    if (!s.result.grader_error.empty()) {
        check_writable(setup_.out);
        check_writable(setup_.work);
    }
    save_submission_record(setup_.out, s.source.id, {s.result, line, ran, worker});
    // For the resume suite: a kill -9 at the worst moment, the record written and no file yet.
    static const char* kill_after = std::getenv("GRADING_KILL_AFTER_RECORDS");
    static std::atomic<long> recorded{0};
    if (kill_after && ++recorded == std::atol(kill_after)) raise(SIGKILL);
    book.finish(index, s.result, line);
}

// The audit log's first line of this run: what it graded with, on which GPUs, and when it began
// grading (made once and recorded, so a resumed run keeps its start).
json Grader::run_line(const ClassSlice& slice, const ClassInputs& inputs) const {
    const Config& cfg = setup_.cfg;
    json line = {{"event", "run"}, {"lab", cfg.lab}, {"seed", cfg.seed}, {"rubric", cfg.rubric_path}, {"rubric_sha256", setup_.rubric_sha},
                 {"isolation", setup_.isolation_text}, {"tools", setup_.tools}, {"compile_only", cfg.compile_only}, {"submissions", slice.subs.size()},
                 {"graded_at", utc_timestamp(std::time(nullptr))}};
    if (inputs.regrade) line["regrade_of"] = cfg.regrade;
    if (!cfg.roster.empty()) line["roster"] = inputs.roster.path;
    if (!setup_.tree.empty()) line["tree"] = setup_.tree;
    if (cfg.shard.active()) line["shard"] = {{"k", cfg.shard.k}, {"n", cfg.shard.n}};
    if (workers_[0].gpu >= 0) {
        line["gpus"] = json::array();
        for (const Worker& w : workers_)
            line["gpus"].push_back({{"index", w.gpu}, {"worker", w.slot}, {"name", w.name}, {"device", w.setup.device},
                                    {"cuda_visible_devices", w.setup.cuda_visible_devices}, {"uid", w.setup.iso.changes_user() ? static_cast<long>(w.setup.iso.uid) : -1L}});
    }
    return line;
}

// One submission on lane `lane` of worker `w`: its tests run where it was built (not with
// --compile-only), else each test says why not. Returns whether its tests ran.
bool Grader::grade_submission(Worker& w, Lane& lane, Submission& s, size_t index, size_t count) {
    auto t0 = std::chrono::steady_clock::now();
    const bool runs = s.ready && !setup_.cfg.compile_only;
    s.timing.student = s.source.id;
    if (runs) {
        s.timing.lane = lane_name(w, lane);
        try {
            SubmissionState state;  // its own, nothing of the submission before
            state.timing = &s.timing;
            // --per-gpu 1: one graded submission at a time on this GPU, across every grading run
            // here; otherwise each test takes its turn (grade_tests).
            GpuTurn whole;
            if (lanes_per_gpu_ == 1) {
                const double waited = steady_now();
                whole = GpuTurn(*w.gate, true);
                s.timing.wait_gpu_s += seconds_since(waited);
                state.gpu_turn = &whole;
            }
            if (setup_.cfg.keep_verifier) {
                if (!lane.kept_verifier) lane.kept_verifier = std::make_unique<KeptVerifier>();
                state.kept_verifier = lane.kept_verifier.get();
            }
            const double folder = steady_now();
            prepare_run_folder(s.graded.run_dir, lane.setup.iso);
            s.timing.sandbox_s += seconds_since(folder);
            grade_tests(w, lane, state, s, index, count);
        } catch (const std::exception& e) {
            // The grader's own failure (the environment's, or a bug): this student is not
            // graded -- no score anywhere -- and the class goes on.
            s.result.grader_error = e.what();
            s.result.tests.clear();
        }
        const double folder = steady_now();
        release_run_folder(s.graded.run_dir);
        remove_tree(lane.setup.priv + "/outputs");
        s.timing.sandbox_s += seconds_since(folder);
    } else if (s.result.grader_error.empty()) {
        for (const TestSpec& t : setup_.rubric.tests) {
            TestResult r{t.id, t.name, 0, t.points, t.visibility, s.ready ? "not run (--compile-only)" : "not run: " + s.result.rejected};
            r.not_run = s.ready;
            s.result.tests.push_back(r);
        }
    }
    s.result.execution_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.timing.total_s = s.timing.compile_s + s.timing.audit_s + s.timing.link_s + s.result.execution_time_s;
    return runs;
}

void Grader::grade_tests(Worker& w, Lane& lane, SubmissionState& state, Submission& s, size_t index, size_t count) {
    GradingContext ctx{setup_, lane.setup, state};
    const std::string on = w.gpu >= 0 || lanes_per_gpu_ > 1 ? lane_name(w, lane) + ": " : "";
    std::map<std::string, TestResult> done;
    s.timing.tests.reserve(setup_.rubric.tests.size());  // (runs add to the current one by pointer)
    for (const TestSpec& t : setup_.rubric.tests) {
        std::fprintf(stderr, "[%zu/%zu] %s%s: %s (elapsed %s)\n", index + 1, count, on.c_str(), s.source.id.c_str(), t.id.c_str(),
                     elapsed_text(elapsed()).c_str());
        // A test that needs others at full marks is not even run without them (a hang or a wrong
        // result would only repeat itself, and cost the whole class time).
        std::string missing;
        for (const std::string& need : t.requires_tests) {
            auto it = done.find(need);
            if (missing.empty() && (it == done.end() || !it->second.passed())) missing = it == done.end() ? need : it->second.name;
        }
        TestResult r{t.id, t.name, 0, t.points, t.visibility, ""};
        if (!missing.empty()) r.output = "not run: it needs full marks in '" + missing + "' first";
        else r = run_test(w, ctx, s, t);
        done[t.id] = r;
        s.result.tests.push_back(r);
    }
}

// One test's runs, in its turn on the GPU: with several lanes a GPU, every test shares it and a
// performance test, holding the GPU's ticket from its start, takes it alone around each timed
// process (run_performance); with one, the submission's turn is alone already.
TestResult Grader::run_test(Worker& w, GradingContext& ctx, Submission& s, const TestSpec& t) {
    TestTiming& timing = s.timing.tests.emplace_back();
    timing.id = t.id;
    s.timing.current = &timing;
    const double started = steady_now();
    // Nothing is timed while a build runs: compilations would take the CPUs from the timed
    // processes. (The first performance tests come after the others, when most builds are over.)
    if (t.kind == TestKind::Performance && builds_) builds_->wait();
    GpuTurn* const whole = ctx.submission.gpu_turn;
    GpuTurn turn = test_turn(*w.gate, whole, t.kind == TestKind::Performance);
    if (turn.held()) {
        timing.wait_gpu_s = seconds_since(started);
        s.timing.wait_gpu_s += timing.wait_gpu_s;
        ctx.submission.gpu_turn = &turn;
    }
    timing.alone = !ctx.submission.gpu_turn->sharing();
    TestResult r;
    try {
        if (t.kind == TestKind::Correctness) r = run_correctness(ctx, s.graded, t);
        else if (t.kind == TestKind::Sanitizer) r = run_sanitizer(ctx, s.graded, t);
        else r = run_performance(ctx, s.graded, t);
    } catch (const std::exception& e) {
        ctx.submission.gpu_turn = whole;
        s.timing.current = nullptr;
        throw GraderError("in test '" + t.id + "': " + e.what());  // which of its runs the grader could not make
    }
    ctx.submission.gpu_turn = whole;
    s.timing.current = nullptr;
    timing.wall_s = seconds_since(started);
    return r;
}

// "GPU 1 lane 2" (with --gpus), "lane 2" (without), "GPU 1" (one lane a GPU).
std::string Grader::lane_name(const Worker& w, const Lane& lane) const {
    std::string name = w.gpu >= 0 ? worker_name(w) : "";
    if (lanes_per_gpu_ > 1) name += (name.empty() ? "" : " ") + std::string("lane ") + std::to_string(lane.index);
    return name.empty() ? "GPU" : name;
}

// What starting a program in the sandbox costs: the median of three starts of /usr/bin/true as the
// first lane's runs are started (its user, its reference's run folder); 0 where it cannot run.
double Grader::sandbox_start_seconds() {
    const WorkerSetup& lane = lanes_[0].setup;
    if (lane.reference.run_dir.empty()) return 0;
    std::vector<double> took;
    prepare_run_folder(lane.reference.run_dir, lane.iso);
    for (int k = 0; k < 3; ++k) {
        RunSpec spec;
        lane.iso.apply(spec, {"/usr/bin/true"}, lane.reference.run_dir);
        spec.env = scrubbed_env(lane.reference.run_dir, setup_.info.cuda_home + "/bin");
        spec.limits.wall_s = 30;
        const double t0 = steady_now();
        if (!run_process(spec).ok()) break;
        took.push_back(seconds_since(t0));
    }
    release_run_folder(lane.reference.run_dir);
    if (took.size() < 3) return 0;
    std::sort(took.begin(), took.end());
    return took[1];
}

// Where the class's time went: the table on stderr and in OUT/breakdown.txt (each submission's
// line is in OUT/breakdown.jsonl).
void Grader::finish_breakdown(const std::vector<Submission>& subs) const {
    std::vector<SubmissionTiming> all;
    for (const Submission& s : subs) all.push_back(s.timing);
    const std::string table = breakdown_table(all, elapsed(), sandbox_start_s_);
    write_file(setup_.out + "/breakdown.txt", table);
    std::fprintf(stderr, "%s", table.c_str());
}

// A submission's line in the audit log: its scores, when they were written, and where its tests
// ran, which GPU graded it.
json Grader::audit_line(const Worker& w, const Submission& s, bool ran) const {
    json line = json::parse(audit_json(s.result, setup_.cfg.lab, setup_.cfg.seed, w.setup.device, isolation_level_name(w.setup.iso.level), setup_.tools, setup_.rubric_sha));
    line["event"] = "submission";
    line["graded_at"] = utc_timestamp(std::time(nullptr));
    // Which GPU graded whom (a submission that ran nothing was graded on none).
    if (w.gpu >= 0 && ran) line["gpu"] = {{"index", w.gpu}, {"name", w.name}, {"worker", w.slot}};
    // The leaderboard's figures (where a performance test was timed): the grader's own.
    if (const json figures = leaderboard_audit(s.result, setup_.rubric); !figures.is_null()) line["leaderboard"] = figures;
    return line;
}

// ---- the class's results ----

// The summary (and with --gradescope, --roster and --shard their files); the exit code: 1 where a
// submission could not be graded.
int Grader::write_class_results(ClassSlice& slice, const ClassResults& book, const std::vector<std::string>& regrade_note) {
    const Config& cfg = setup_.cfg;
    const std::vector<Submission>& subs = slice.subs;
    std::vector<std::string> regrade_notes;
    size_t same = 0;
    for (const std::string& note : regrade_note) {
        if (note.empty()) ++same;
        else regrade_notes.push_back(note);
    }
    const std::vector<StudentResult> all = book.results();
    if (!cfg.gradescope.empty())
        write_file(cfg.gradescope, with_gradescope_roofline(with_gradescope_leaderboard(gradescope_json(subs[0].result), subs[0].result, setup_.rubric),
                                                            book.roofline_picture(0)));
    const std::string roster_text = write_roster_outputs(setup_.out);  // with --roster: the LMS files and what did not match
    std::string summary = summary_table(all, setup_.rubric);
    std::ostringstream tail;
    const std::string device = device_summary();
    tail << summary_tail(cfg.lab, subs.size(), cfg.seed, device, setup_.isolation_text, setup_.tools, cfg.regrade, same, regrade_notes);
    if (!cfg.compile_only) {
        tail << (cfg.combine_correctness ? "correctness: each trial of the tests that share sizes run in one process; a variant that did not "
                                           "pass there was run on its own, and that run decided (--separate-correctness: each on its own)\n"
                                         : "correctness: each trial of each test run in a process of its own (--separate-correctness)\n");
        tail << (cfg.keep_verifier ? "verifier: one kept open on each lane; only its passes were taken, anything else was settled by a "
                                     "verifier of its own (--separate-verifiers: one for each verification)\n"
                                   : "verifier: one for each verification (--separate-verifiers)\n");
    }
    const std::vector<std::string> gpu_text = gpu_lines();
    if (!gpu_text.empty())
        tail << gpu_summary(gpu_text, "--gpus " + cfg.gpus.text + (cfg.gpus.shared ? std::string(", shared through ") + kSharedGpusVariable + "=1: timings not fair" : ""));
    if (cfg.shard.active()) finish_shard(slice, device, gpu_text, tail);
    // Submissions the grader could not grade have no score: they are named, with the command
    // that grades them again, and the run exits 1.
    std::vector<const Submission*> failed;
    for (const Submission& s : subs)
        if (!s.result.grader_error.empty()) failed.push_back(&s);
    if (!failed.empty())
        tail << failed.size() << " submission" << (failed.size() == 1 ? "" : "s") << " not graded (grader error: no score); grade "
             << (failed.size() == 1 ? "it" : "them") << " again with:\n  " << regrade_command(failed) << "\n";
    write_file(setup_.out + "/summary.txt", summary + "\n" + tail.str());
    std::cout << summary << "\n" << tail.str() << roster_text << "results: " << setup_.out << "\n";
    return failed.empty() ? 0 : cudalabs::kExitFail;
}

// The shard's summary line, and its shard.json finished.
void Grader::finish_shard(ClassSlice& slice, const std::string& device, const std::vector<std::string>& gpu_text, std::ostream& tail) {
    tail << "shard " << setup_.cfg.shard.text() << ": " << slice.subs.size() << " of the class's " << slice.class_ids.size()
         << " submissions (grading/grade merge OUT SHARD_DIR... assembles the class)\n";
    slice.shard.device = device;
    slice.shard.gpus = gpu_text;
    slice.shard.finished = true;
    write_file(setup_.out + "/shard.json", shard_record_json(slice.shard));
}

// The device of the summary and of shard.json: the one GPU's, or each GPU's where they differ.
std::string Grader::device_summary() const {
    std::set<std::string> distinct;
    for (const Worker& w : workers_) distinct.insert(w.setup.device);
    if (distinct.size() == 1) return *distinct.begin();
    std::vector<std::string> each;
    for (const Worker& w : workers_) each.push_back(worker_name(w) + ": " + w.setup.device);
    return join(each, "; ");
}

// With --gpus: one line per GPU for the summary (and shard.json): which, as whom, how many.
std::vector<std::string> Grader::gpu_lines() const {
    std::vector<std::string> lines;
    if (workers_.empty() || workers_[0].gpu < 0) return lines;
    for (const Worker& w : workers_) {
        std::string line = gpu_label(w) + ": " + w.setup.device;
        if (w.setup.iso.changes_user()) line += ", sandbox uid " + std::to_string(w.setup.iso.uid);
        line += ": " + std::to_string(w.graded) + " submission" + (w.graded == 1 ? "" : "s") + " graded";
        lines.push_back(line);
    }
    return lines;
}

// The command that grades `failed` again with this run's seed and rubric, into a folder of its own.
std::string Grader::regrade_command(const std::vector<const Submission*>& failed) const {
    auto quoted = [](const std::string& s) {
        if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=,:") == std::string::npos) return s;
        std::string q = "'";
        for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    std::string cmd = "grading/grade --lab " + setup_.cfg.lab + " --seed " + std::to_string(setup_.cfg.seed) + " --rubric " +
                      quoted(setup_.cfg.rubric_path) + " --out " + quoted(setup_.out + "-regrade");
    if (setup_.cfg.isolation != "auto") cmd += " --isolation " + setup_.cfg.isolation;
    if (setup_.cfg.gpus.given) cmd += " --gpus " + quoted(setup_.cfg.gpus.text);
    if (!setup_.cfg.roster.empty()) cmd += " --roster " + quoted(setup_.cfg.roster);
    for (const Submission* s : failed) cmd += " " + quoted(s->source.path);
    return cmd;
}

}  // namespace

// grading/grade merge OUT SHARD_DIR... (the script puts --root DIR first).
int merge_main(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (!a.empty() && a[0] == '-') throw UsageError("merge takes no option '" + a + "': grading/grade merge OUT SHARD_DIR...");
    }
    if (args.size() < 2) throw UsageError("merge needs the merged results' folder and the shards' folders: grading/grade merge OUT SHARD_DIR...");
    const std::string summary = merge_shards(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
    std::cout << summary << "results: " << absolute(args[0]) << "\n";
    return 0;
}

namespace {

// Runs a subcommand of grading/grade (`who` names it in its errors): a usage error exits 2, any
// other error 1, each with one line on stderr.
template <class Command>
int exit_of(const std::string& who, Command command) {
    try {
        return command();
    } catch (const UsageError& e) {
        std::cerr << who << ": error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << who << ": error: " << e.what() << "\n";
        return cudalabs::kExitFail;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int first = argc > 2 && std::string(argv[1]) == "--root" ? 3 : 1;
    if (argc > first && std::string(argv[first]) == "leaderboard") {
        return exit_of("grade leaderboard", [&]() -> int {
            const std::vector<std::string> args(argv + first + 1, argv + argc);
            if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
                std::cout << kUsage;
                return 0;
            }
            std::cout << leaderboard_command(args);
            return 0;
        });
    }
    if (argc > first && std::string(argv[first]) == "merge")
        return exit_of("grade merge", [&] { return merge_main(std::vector<std::string>(argv + first + 1, argv + argc)); });
    Config cfg;
    try {
        cfg = parse_command_line(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    }
    if (cfg.help) {
        std::cout << kUsage;
        return 0;
    }
    return exit_of("grade", [&]() -> int {
        try {
            return Grader(cfg).run();
        } catch (const RubricError& e) {
            std::cerr << "grade: rubric error: " << e.what() << "\n";
            return cudalabs::kExitUsage;
        }
    });
}
