// grading/grade: grades a class's submissions of one lab. See grading/README.md.
//
// The stages, each in its own file: find the submissions (submissions.cpp); build and audit
// each one with the trusted flags and link it with the trusted driver (build.cpp, audit.cpp);
// run the rubric's tests (test_kinds.cpp), each run's results read through a channel the grader
// owns (runs.cpp, channel.cpp) and judged outside the student's process by the trusted
// reference (judge.cpp); write feedback, results, gradebook and audit log (results.cpp); compare
// with an earlier run (regrade.cpp). This file holds the command line and the order of things.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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
#include "class/class_results.h"
#include "context.h"
#include "exit_codes.h"
#include "runs/failures.h"
#include "sandbox/gpus.h"
#include "class/leaderboard.h"
#include "sandbox/machine_locks.h"
#include "class/regrade.h"
#include "class/roster.h"
#include "class/results.h"
#include "intake/rubric.h"
#include "runs/runs.h"
#include "sandbox/sandbox.h"
#include "util/sha256.h"
#include "class/shard.h"
#include "intake/submissions.h"
#include "judge/test_kinds.h"
#include "util/util.h"

using nlohmann::json;
using namespace grading;
using cudalabs::UsageError;

namespace {

constexpr const char* kUsage = R"(Usage: grading/grade --lab NN [options] SUBMISSION...
       grading/grade merge OUT SHARD_DIR...
       grading/grade leaderboard [--secret-file FILE] [--title TEXT] OUT RUN_DIR...

Grades submissions of lab NN. A SUBMISSION is the lab's file (e.g. vector_add.cu; the student is
the file's name without .cu, or its folder's name when the file has the lab's own name), a folder
per student holding that file, or a folder of such files and folders.

Options:
  --lab NN             the lab (required)
  --rubric FILE        the rubric (default grading/rubrics/NN.rubric)
  --out DIR            where to write the results (default build/grading/labNN-<date>)
  --seed N             base seed of the hidden inputs (default: fresh; a regrade reuses it)
  --regrade FILE       an earlier run's audit.jsonl: reuse its seed and say what changed
  --isolation MODE     how submissions are kept from the grader and from each other
                       (stated in every report):
                         auto        (default) the same as bwrap
                         bwrap       bubblewrap (Debian package bubblewrap): only the system,
                                     the CUDA toolkit and the run folder visible; as root,
                                     started as the run's own uid (64000-64255); where it cannot
                                     run, grading stops at the start and says what to do
                         uid         only by name, as root: the run's own uid alone (reads what
                                     any user may read, sees other processes, has the network)
                         unsafe      only by name: the grader's own user with resource limits only
  --jobs N             parallel compilations (default: the number of cores)
  --compile-only       build and audit only, run nothing (no GPU needed); tests are "not run"
  --no-trace           grade without the CUPTI kernel trace (no kernel checks; performance 0)
  --shard K/N          grade only shard K (0..N-1) of N slices of the class, for one node of
                       several: the i-th student in sorted order goes to shard i % N. Needs
                       --seed (the same for every shard). Writes DIR/shard.json besides.
  --gpus LIST|all      grade on several GPUs of this machine at once, one worker per GPU, each
                       grading whole submissions: every run of a submission's tests, and the
                       reference runs its timing is compared with, on that GPU (pinned with
                       CUDA_VISIBLE_DEVICES). LIST: GPU indices as CUDA counts them, comma-
                       separated (0,2,3), within CUDA_VISIBLE_DEVICES when that is set; all:
                       every GPU CUDA shows. The builds stay in parallel on the CPUs first.
                       Scores, feedback, gradebook and summary are a one-GPU run's, in the same
                       order; the summary and audit log say which GPU graded whom. Default: the
                       one GPU CUDA picks. Combines with --shard (one node's GPUs per shard).
                       GRADING_SHARED_GPUS=1 lets a GPU be given twice (0,0: two workers on
                       it), to test this on one GPU: timings are then not fair.
  --roster FILE        the class list (CSV: id, name, email, section, optional pseudonym; or a
                       Canvas, Moodle or Gradescope export as it comes). Submissions are matched
                       by folder or file name, or by the submission_metadata.json of a Gradescope
                       submission folder; the gradebook gains roster_id, name, email and section;
                       DIR/lms-canvas.csv and DIR/lms-moodle.csv import the grades into Canvas or
                       Moodle; DIR/roster.txt lists submissions not on the roster and students
                       without a submission. A bad roster: exit 2, naming the file and line. A
                       regrade reuses the earlier run's roster unless given one.
  --lms-assignment T   the assignment's name in the LMS (default "Lab NN")
  --lms-points P       the assignment's points in the LMS: scores are scaled to them (default:
                       the rubric's total)
  --gradescope FILE    also write the single submission's results.json to FILE
  --root DIR           the trusted cudalabs tree (default: this script's)
  -h, --help           this text

Writes DIR/feedback/STUDENT.md, DIR/results/STUDENT.json (Gradescope's format),
DIR/gradebook.csv, DIR/audit.jsonl and DIR/summary.txt. Exit: 0 graded, 1 error (a GPU of
--gpus on which the reference fails is named, before grading starts), 2 bad command line (a
--gpus index with no GPU too), 77 no GPU.

leaderboard OUT RUN_DIR... ranks the graded runs' submissions that have full correctness and
sanitizer marks by the grader's interleaved median ratio of their kernel time to the reference's,
per lab and GPU model, under pseudonyms (the roster's Pseudonym column, else derived from the id
with the course secret: --secret-file FILE or GRADING_LEADERBOARD_SECRET); writes
OUT/leaderboard.html (self-contained) and OUT/leaderboard.csv.

merge OUT SHARD_DIR... assembles the folders of every shard K/N of one class into OUT (new or
empty) as one run with that seed writes it: feedback, results, gradebook (in the order of a
single run), audit log and summary. It refuses shards of different seeds, rubrics, trees, labs
or N, a missing or unfinished shard (naming which to rerun), a shard given twice and a student in
two shards. Shard folders are only read.
)";

// The GPU a trusted run named in its --json file: the device line of the reports and the UUID its
// machine-wide lock goes by.
void read_device(GradingContext& ctx, const std::string& device_json) {
    try {
        const json j = json::parse(read_file(device_json));
        const json& d = j.at("device");
        ctx.device = d.at("name").get<std::string>() + " (driver " + d.at("cuda_driver").get<std::string>() + ")";
        if (ctx.gpu_uuid.empty()) ctx.gpu_uuid = d.value("uuid", std::string());  // (the lock's name stays)
    } catch (const std::exception& e) {
        throw std::runtime_error("the reference's run wrote no readable device (" + std::string(e.what()) + ")");
    }
}

// One submission through the stages.
struct Submission {
    SubmissionSource source;
    StudentResult result;
    GradedProgram graded;
    std::string stage;   // its build folder
    bool ready = false;  // compiled, audited and linked
};

// Who grades: one worker, or with --gpus one per GPU, each with its own copy of the context (its
// GPU, private folder, sandbox user and device name), grading whole submissions.
struct Worker {
    size_t slot = 0;     // its place in the --gpus list (0 without --gpus)
    SandboxIdentity identity;  // its own sandbox user (root only), held for the whole run
    int gpu = -1;        // the GPU's index, as CUDA counts them in the grader; -1: no --gpus
    std::string name;    // the GPU's name, from the reference's run on it (with --gpus)
    GradingContext ctx;
    size_t graded = 0;   // submissions whose tests ran on it
};

class Grader {
public:
    explicit Grader(Config c) { ctx_.cfg = std::move(c); }
    int run();

private:
    GradingContext ctx_;
    std::vector<Worker> workers_;
    IsolationPaths isolation_paths_;
    std::vector<std::string> allowed_imports_;                         // grading/allowed-imports.txt
    std::vector<std::pair<std::string, std::string>> import_renames_;  // grading/shimmed-imports.txt
    std::vector<std::string> notes_;  // said at the top of every student's feedback
    bool have_gpu_ = true;
    std::string lock_dir_;           // the machine's grading locks (machine_locks.h)
    std::vector<std::string> gpu_uuids_;  // each GPU CUDA shows the grader, by index (their locks' names)
    SandboxIdentity identity_;       // this run's sandbox user (the first worker's), where the grader is root
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    void load_lab();
    void choose_work_folder();
    void choose_sandbox();
    void prepare(Submission& s);
    void self_test();
    std::string check_sanitizers();
    std::pair<std::string, std::string> reference_case() const;
    bool reference_kernels_seen(const ProgramRun& run) const;
    bool reference_repetitions_own(const ProgramRun& run) const;
    int count_gpus();
    std::vector<int> choose_gpus();
    void set_up_workers(const std::vector<int>& gpus);
    void check_gpu(Worker& w);
    std::string gpu_label(const Worker& w) const;
    std::string worker_name(const Worker& w) const;
    std::string device_summary() const;
    std::vector<std::string> gpu_lines() const;
    void grade_tests(Worker& w, Submission& s, size_t index, size_t count);
    HeldLock lock_gpu_of(const GradingContext& ctx, const std::string& label);
    std::string regrade_command(const std::vector<const Submission*>& failed) const;
};

void Grader::load_lab() {
    ctx_.info = load_lab_info(ctx_.cfg.root, ctx_.cfg.lab, ctx_.priv);
    const LabInfo& info = ctx_.info;
    ctx_.trusted = load_trusted_symbols(info.objects, info.driver_object, ctx_.priv);
    ctx_.sol_kernels = object_kernels(info.sol_object, ctx_.priv);
    allowed_imports_ = load_glob_list(ctx_.cfg.root + "/grading/allowed-imports.txt");
    import_renames_ = load_import_renames(ctx_.cfg.root + "/grading/shimmed-imports.txt");

    // The rubric must agree with what the lab declares: its variants, and every size the
    // driver checks in each correctness test.
    RunResult described = run_trusted({info.sol, "--describe"}, ctx_.cfg.root, 60, ctx_.priv);
    if (!described.ok())
        throw std::runtime_error(info.sol + " --describe failed (" + described.describe() + "): " + clip(described.err, 500));
    const LabDeclaration declared = parse_lab_declaration(described.out, info.sol + " --describe");
    ctx_.variants = declared.variants;
    const std::vector<std::string> disagreements = rubric_disagreements(ctx_.rubric, declared);
    if (!disagreements.empty())
        throw RubricError(ctx_.cfg.rubric_path + " disagrees with lab " + ctx_.cfg.lab + " (" + info.sol +
                          " --describe): " + join(disagreements, "; "));

    std::string last;
    std::istringstream vin(run_trusted({info.nvcc, "--version"}, ctx_.cfg.root, 60, ctx_.priv).out);
    for (std::string line; std::getline(vin, line);)
        if (!line.empty()) last = line;
    ctx_.tools = "nvcc: " + last;
    std::string git = run_trusted({"git", "-C", ctx_.cfg.root, "rev-parse", "--short", "HEAD"}, ctx_.cfg.root, 30, ctx_.priv).out;
    std::string dirty = run_trusted({"git", "-C", ctx_.cfg.root, "status", "--porcelain"}, ctx_.cfg.root, 30, ctx_.priv).out;
    if (!git.empty()) ctx_.tools += "; tree: " + split_ws(git)[0] + (dirty.empty() ? "" : " (modified)");
    // Shards of one class must come from the same tree: a modified one is told apart by the
    // changes of its tracked files (not by untracked ones, such as other shards' results).
    if (!git.empty()) {
        ctx_.tree = split_ws(git)[0];
        const std::string diff = dirty.empty() ? "" : run_trusted({"git", "-C", ctx_.cfg.root, "diff", "HEAD"}, ctx_.cfg.root, 60, ctx_.priv).out;
        if (!diff.empty()) ctx_.tree += " modified (diff sha256 " + sha256_hex(diff).substr(0, 16) + ")";
    }
}

// Build and audit one submission (runs on a compile thread; no student code runs).
void Grader::prepare(Submission& s) {
    StudentResult& r = s.result;
    if (!r.rejected.empty()) return;
    // Only a regular file of a sane size is read (the grader may be root): never a link to
    // someone else's file, never a pipe that would block.
    struct stat st;
    if (lstat(s.source.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        r.rejected = "the submission is not a regular file (a link, a folder or a device is not graded)";
        return;
    }
    if (st.st_size > (1 << 20)) {
        r.rejected = "the file is larger than 1 MiB";
        return;
    }
    const std::string source = read_file(s.source.path);
    r.sha256 = sha256_hex(source);
    const LabInfo& info = ctx_.info;
    const std::string work = ctx_.work + "/" + s.source.id;
    s.stage = work + "/build";
    remove_tree(work);
    // The stage holds the trusted headers and the student's file, nothing else (no driver, no
    // solution); the program goes to a folder the submission can only read, its runs to one of
    // its own.
    make_dirs(s.stage + "/common");
    make_dirs(s.stage + "/" + info.dir);
    make_dirs(work + "/bin");
    for (const std::string& dir : {std::string("common"), info.dir})
        for (const std::string& f : list_dir(ctx_.cfg.root + "/" + dir))
            if ((f.size() > 2 && f.substr(f.size() - 2) == ".h") || (f.size() > 4 && f.substr(f.size() - 4) == ".cuh"))
                write_file(s.stage + "/" + dir + "/" + f, read_file(ctx_.cfg.root + "/" + dir + "/" + f));
    s.graded.source_copy = s.stage + "/" + info.dir + "/" + info.topic_file;
    write_file(s.graded.source_copy, source);
    prepare_run_folder(s.stage, ctx_.iso);

    BuildSpec b;
    b.stage_dir = s.stage;
    b.lab_dir = info.dir;
    b.topic_file = info.topic_file;
    b.nvcc = info.nvcc;
    b.cuda_home = info.cuda_home;
    b.nvcc_flags = split_ws(info.nvcc_flags);
    b.arch_flags = split_ws(info.arch_flags);
    b.ldlibs = split_ws(info.ldlibs);
    b.trusted_objects = info.objects;
    b.trusted_objects.push_back(info.student_source_object);
    if (!info.shim_object.empty()) b.trusted_objects.push_back(info.shim_object);
    b.output_program = work + "/bin/program";
    b.compile_timeout_s = ctx_.rubric.compile_timeout_s;
    b.file_limit_mb = ctx_.rubric.file_limit_mb;
    b.rules.forbid_symbols = ctx_.rubric.forbid_symbols;
    b.rules.allowed_imports = allowed_imports_;
    b.rules.allow_imports = ctx_.rubric.allow_imports;
    b.import_renames = import_renames_;
    const Isolation& iso = ctx_.iso;
    b.sandbox = [&iso](RunSpec& spec, const std::vector<std::string>& argv, const std::string& cwd) { iso.apply(spec, argv, cwd); };
    BuildResult built = build_submission(b, ctx_.trusted);
    release_run_folder(s.stage);
    r.compiled = built.compiled;
    r.compiler_output = clip(built.compiler_output, 12000);
    if (!built.ok) {
        r.rejected = built.rejected;
        return;
    }
    s.graded.id = s.source.id;
    s.graded.file = r.file;
    s.graded.program = b.output_program;
    s.graded.run_dir = work + "/run";
    s.graded.kernels = built.kernels;
    make_dirs(s.graded.run_dir);  // handed to the sandbox's user only while its tests run
    s.ready = true;
}

// Where the sandbox's files live (build stages, programs, run folders): OUT/work when the
// sandbox's user can enter every folder on the way there, else a folder of this run's own under
// /var/tmp (a bubblewrap started as that user cannot bind what lies past a private folder, such
// as root's home). Said in one line when neither will do.
void Grader::choose_work_folder() {
    const uid_t uid = identity_.lock.held() ? identity_.uid : kSandboxUid;
    const gid_t gid = identity_.lock.held() ? identity_.gid : kSandboxGid;
    const std::string preferred = ctx_.out + "/work";
    const std::string blocked = geteuid() == 0 ? unenterable_folder(preferred, uid, gid) : "";
    if (blocked.empty()) {
        ctx_.work = preferred;
    } else {
        const std::string base = "/var/tmp";
        if (const std::string also = unenterable_folder(base, uid, gid); !also.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + blocked + " nor " + also +
                             ": give --out a folder under one that others may enter (chmod o+x)");
        std::string tmpl = base + "/cudalabs-grading-XXXXXX";
        if (!mkdtemp(&tmpl[0])) throw std::runtime_error("cannot create a work folder in " + base + ": " + std::strerror(errno));
        ctx_.work = tmpl;
        std::fprintf(stderr, "grade: the sandbox's user cannot enter %s, so submissions are built and run in %s\n", blocked.c_str(),
                     ctx_.work.c_str());
    }
    make_dirs(ctx_.work);
    chmod(ctx_.work.c_str(), 0711);  // its user enters, nobody lists
    // The trace library comes from the trusted tree, which may lie past a private folder too.
    if (!ctx_.info.trace_lib.empty()) {
        const std::string copy = ctx_.work + "/.trusted/" + basename_of(ctx_.info.trace_lib);
        make_dirs(ctx_.work + "/.trusted");
        chmod((ctx_.work + "/.trusted").c_str(), 0755);
        write_file(copy, read_file(ctx_.info.trace_lib));
        chmod(copy.c_str(), 0755);
        ctx_.info.trace_lib = copy;
    }
    if (geteuid() == 0)
        if (const std::string cuda = unenterable_folder(ctx_.info.cuda_home, uid, gid); !cuda.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + cuda + ", on the way to the CUDA toolkit " +
                             ctx_.info.cuda_home + ": let others enter it (chmod o+rx) or install the toolkit elsewhere");
}

void Grader::choose_sandbox() {
    isolation_paths_.hidden = {ctx_.cfg.root, ctx_.out, ctx_.work};
    if (identity_.lock.held()) {
        isolation_paths_.uid = identity_.uid;
        isolation_paths_.gid = identity_.gid;
    }
    // A submission given as a single file: hide its folder, which holds the other students'.
    for (const std::string& in : ctx_.cfg.inputs) {
        const std::string abs = absolute(in);
        isolation_paths_.hidden.push_back(is_dir(abs) ? abs : abs.substr(0, abs.find_last_of('/')));
    }
    isolation_paths_.readonly = {ctx_.info.cuda_home};
    if (!ctx_.info.trace_lib.empty()) isolation_paths_.readonly.push_back(ctx_.info.trace_lib);
    isolation_paths_.probe_dir = ctx_.work + "/.probe";
    ctx_.iso = choose_isolation(ctx_.cfg.isolation, isolation_paths_);  // or one sentence saying what to do (UsageError)
}

void Grader::self_test() {
    // The reference solution must run inside the sandbox exactly as a student's program will,
    // channel and trace included, before anything is graded. The level chosen at the start is
    // kept for the whole run: a reference that will not run in it stops the run here, saying
    // why, rather than have the run go on weaker.
    const std::string work = ctx_.work + "/.selftest";
    make_dirs(work + "/bin");
    make_dirs(work + "/run");
    ctx_.reference.program = work + "/bin/reference";
    write_file(ctx_.reference.program, read_file(ctx_.info.sol));
    chmod(ctx_.reference.program.c_str(), 0755);
    ctx_.reference.run_dir = work + "/run";
    std::string variant, small;
    std::tie(variant, small) = reference_case();
    ctx_.reference.args = {"--variant", variant, "--size", small, "--reps", "1"};
    ctx_.trace_ok = !ctx_.cfg.no_trace && !ctx_.info.trace_lib.empty();
    // One trusted run first, outside the sandbox: it tells "no GPU" from "no sandbox", names the
    // GPU (for the reports and its machine-wide lock), and creates the GPU's device nodes where
    // the driver makes them on first use (the sandbox cannot: it runs without the privileges
    // nvidia-modprobe needs).
    std::vector<std::string> pinned;
    if (!ctx_.cuda_visible_devices.empty()) pinned.push_back("CUDA_VISIBLE_DEVICES=" + ctx_.cuda_visible_devices);
    const std::string device_json = ctx_.priv + "/device.json";
    HeldLock gpu = lock_gpu_of(ctx_, "the GPU");
    RunResult plain;
    for (size_t attempt = 0; attempt < ctx_.retry.attempts(); ++attempt) {
        pause_before(ctx_.retry, attempt);
        plain = run_trusted({ctx_.info.sol, "--variant", variant, "--size", small, "--reps", "1", "--json", device_json}, ctx_.priv, 120,
                            ctx_.priv, pinned);
        if (plain.ok()) break;
    }
    if (plain.exit_code == cudalabs::kExitNoGpu) {
        have_gpu_ = false;
        return;
    }
    if (!plain.ok())
        throw std::runtime_error("the reference solution fails outside the sandbox (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500));
    read_device(ctx_, device_json);
    std::vector<std::string> steps;
    SandboxCheck check = run_reference_in_sandbox(ctx_);
    if (!check.failure.empty() && ctx_.run_limits.mem_mb > 0) {
        steps.push_back("memory limit dropped: the reference would not run under RLIMIT_DATA=" + std::to_string(ctx_.run_limits.mem_mb) + " MiB");
        ctx_.run_limits.mem_mb = 0;
        check = run_reference_in_sandbox(ctx_);
    }
    if (check.failure.empty()) {
        const std::string tools = check_sanitizers();
        if (!tools.empty()) steps.push_back(tools);
    }
    gpu.release();
    if (!check.failure.empty())
        throw std::runtime_error("the reference solution does not run in the sandbox (" + ctx_.iso.describe() + "): " + check.failure +
                                 "\n(the isolation is chosen once and never weakened during a run: fix the cause, or choose a level "
                                 "with --isolation)");
    if (ctx_.trace_ok) {
        // The trace must see the reference's own kernels, or every student would fail the kernel
        // check: then it is turned off, loudly.
        if (!reference_kernels_seen(check.run)) {
            ctx_.trace_ok = false;
            steps.push_back(std::string("WARNING: the CUPTI kernel trace recorded no kernel of the reference (trace ") +
                            (check.run.trace_ready ? "loaded" : "not loaded") +
                            "), so it is off: results computed without kernels are not detected and performance is not timed");
            std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
            notes_.push_back("The grader ran without its kernel trace: whether your kernels ran was not checked and "
                             "performance was not timed.");
        }
    }
    ctx_.foreign_kernel_rule = ctx_.trace_ok && reference_repetitions_own(check.run);
    if (ctx_.trace_ok && !ctx_.foreign_kernel_rule) {
        steps.push_back("WARNING: the reference's timed repetitions showed no kernel, or a kernel not of its file, so kernels "
                        "foreign to a submission's file are not looked for");
        std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
    }
    if (ctx_.iso.level != IsolationLevel::Bwrap)
        notes_.push_back("Graded with isolation '" + std::string(isolation_level_name(ctx_.iso.level)) + "': " + ctx_.iso.describe());
    std::ostringstream d;
    d << ctx_.iso.describe() << "; own process group killed at the time limit; rlimits: core 0, file " << ctx_.run_limits.file_mb
      << " MiB, open files " << ctx_.run_limits.open_files << ", data "
      << (ctx_.run_limits.mem_mb ? std::to_string(ctx_.run_limits.mem_mb) + " MiB" : "unlimited") << ", processes "
      << (ctx_.run_limits.processes
              ? std::to_string(ctx_.run_limits.processes) + " (this run's own user; under a sanitizer, one more per CPU for its threads)"
              : "unlimited")
      << "; scrubbed environment; results through a channel the grader owns; kernel trace: " << (ctx_.trace_ok ? "CUPTI" : "off");
    for (const std::string& s : steps) d << "; " << s;
    ctx_.isolation_text = d.str();
}

// Every sanitizer tool of the rubric must run the reference in the sandbox, the very way its test
// runs a student's program (sanitizer_request): a tool that cannot -- missing, or stopped by a
// limit of the sandbox -- is found here, once, and not as a grader error for every correct
// submission. Returns the step for the isolation's description ("" without sanitizer tests).
std::string Grader::check_sanitizers() {
    std::vector<const TestSpec*> tools;  // one test for each distinct tool and options
    for (const TestSpec& t : ctx_.rubric.tests)
        if (t.kind == TestKind::Sanitizer && std::none_of(tools.begin(), tools.end(), [&](const TestSpec* u) {
                return u->tool == t.tool && u->tool_options == t.tool_options;
            }))
            tools.push_back(&t);
    if (tools.empty()) return "";
    const std::string sanitizer = ctx_.info.cuda_home + "/bin/compute-sanitizer";
    if (!exists(sanitizer)) throw std::runtime_error("the rubric has sanitizer tests but " + sanitizer + " does not exist");
    const RunResult help = run_trusted({sanitizer, "--help"}, ctx_.priv, 60, ctx_.priv);
    ctx_.racecheck_workers_option = help.out.find("--racecheck-num-workers") != std::string::npos;
    auto limit = [](long v) { return v > 0 ? std::to_string(v) : std::string("unlimited"); };
    std::vector<std::string> names;
    for (const TestSpec* t : tools) {
        const RunRequest like = sanitizer_request(ctx_, *t);
        const SandboxCheck check = run_reference_in_sandbox(ctx_, &like);
        if (!check.failure.empty())
            throw std::runtime_error("the sanitizer test '" + t->id + "' cannot run in the sandbox (" + ctx_.iso.describe() + "): " +
                                     check.failure + "\n(the sandbox's limits come from the rubric: process_limit " +
                                     limit(ctx_.run_limits.processes) + " (RLIMIT_NPROC), mem_limit_mb " + limit(ctx_.run_limits.mem_mb) +
                                     " (RLIMIT_DATA); raise the one the tool ran into)");
        names.push_back(t->tool);
    }
    return "compute-sanitizer " + join(names, ", ") + " checked on the reference in the sandbox";
}

// Whether the kernel trace saw a kernel of the reference's own in its run.
bool Grader::reference_kernels_seen(const ProgramRun& run) const {
    for (const CaseEvidence& c : run.cases)
        for (const KernelSpan& k : c.kernels)
            if (is_one_of(k, ctx_.sol_kernels)) return true;
    return false;
}

// Whether the reference's timed repetitions ran kernels, all of them its own (so that a kernel
// foreign to a submission's file, in its repetitions, is the submission's doing).
bool Grader::reference_repetitions_own(const ProgramRun& run) const {
    bool any = false;
    for (const CaseEvidence& c : run.cases) {
        if (foreign_kernel(c, ctx_.sol_kernels)) return false;
        for (const RepetitionEvidence& rep : c.reps) any = any || !rep.kernels.empty();
    }
    return any;
}

// The GPU's lock (machine_locks.h), held while a submission's tests run on it: one graded
// submission at a time per GPU, across every grading run on this machine.
HeldLock Grader::lock_gpu_of(const GradingContext& ctx, const std::string& label) {
    const std::string name = !ctx.gpu_uuid.empty() ? ctx.gpu_uuid : "visible-" + (ctx.cuda_visible_devices.empty() ? std::string("default") : ctx.cuda_visible_devices);
    return lock_gpu(name, lock_dir_, [&] {
        std::fprintf(stderr, "grade: %s (%s) is in use by another grading run on this machine: waiting for it\n", label.c_str(), name.c_str());
    });
}

// A variant and size of the rubric's first correctness test (not a yardstick, which checks
// nothing and so exits 1): what the reference runs to test the sandbox and each GPU.
std::pair<std::string, std::string> Grader::reference_case() const {
    for (const TestSpec& t : ctx_.rubric.tests)
        if (!t.sizes.empty() && t.kind == TestKind::Correctness) return {t.variants[0], t.sizes[0]};
    return {ctx_.variants.front(), "1"};
}

// How many GPUs CUDA shows the grader (within CUDA_VISIBLE_DEVICES when it is set), asked of the
// trusted reference (a --device that no machine has: the harness names the count), so that the
// grader itself needs no CUDA; nvidia-smi -L where the answer cannot be read. 0: no usable GPU.
int Grader::count_gpus() {
    const auto [variant, small] = reference_case();
    RunResult r = run_trusted({ctx_.info.sol, "--device", "1023", "--variant", variant, "--size", small, "--reps", "1"}, ctx_.priv, 120,
                              ctx_.priv);
    if (r.exit_code == cudalabs::kExitNoGpu) return 0;
    const int n = parse_device_count(r.out + "\n" + r.err);
    gpu_uuids_ = parse_device_uuids(r.out + "\n" + r.err);
    if (gpu_uuids_.size() != static_cast<size_t>(std::max(n, 0))) gpu_uuids_.clear();
    if (n >= 0) return n;
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) return static_cast<int>(visible_device_entries(visible).size());
    RunResult smi = run_trusted({"nvidia-smi", "-L"}, ctx_.priv, 60, ctx_.priv);
    if (smi.ok()) return count_nvidia_smi_gpus(smi.out);
    throw std::runtime_error("cannot count the GPUs: " + ctx_.info.sol + " --device 1023 (" + r.describe() + ") named no count (" +
                             clip(r.out + r.err, 300) + ") and nvidia-smi -L failed (" + smi.describe() + ")");
}

// The GPUs --gpus names, checked against those CUDA shows (empty: no usable GPU at all).
std::vector<int> Grader::choose_gpus() {
    const int count = count_gpus();
    if (count == 0) return {};
    return resolve_gpus(ctx_.cfg.gpus, count, std::getenv("CUDA_VISIBLE_DEVICES"));
}

std::string Grader::gpu_label(const Worker& w) const {
    std::string label = worker_name(w);
    if (w.ctx.cuda_visible_devices != std::to_string(w.gpu)) label += " (CUDA_VISIBLE_DEVICES=" + w.ctx.cuda_visible_devices + ")";
    return label;
}

// "GPU 2", or where workers share a GPU (GRADING_SHARED_GPUS) "GPU 0 worker 1" (its place in the list).
std::string Grader::worker_name(const Worker& w) const {
    std::string name = "GPU " + std::to_string(w.gpu);
    if (ctx_.cfg.gpus.shared) name += " worker " + std::to_string(w.slot);
    return name;
}

// One worker per GPU, each with its own context: its GPU (CUDA_VISIBLE_DEVICES in every run's
// environment, the reference's and the verifier's too), its own private folder (outputs,
// verdicts, the reference's timing runs), its own sandbox user where the sandbox changes user
// (from the machine's pool of identities: runs under way at once cannot reach each other's
// processes or run folders, nor share a process limit) and its own device name. Without --gpus,
// one worker with the context as it is.
void Grader::set_up_workers(const std::vector<int>& gpus) {
    workers_.clear();
    if (gpus.empty()) {
        Worker w;
        w.ctx = ctx_;
        workers_.push_back(std::move(w));
        return;
    }
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    for (size_t k = 0; k < gpus.size(); ++k) {
        Worker w;
        w.slot = k;
        w.gpu = gpus[k];
        w.ctx = ctx_;
        w.ctx.cuda_visible_devices = pinned_device(gpus[k], visible);
        w.ctx.gpu_uuid = static_cast<size_t>(gpus[k]) < gpu_uuids_.size() ? gpu_uuids_[static_cast<size_t>(gpus[k])] : "";
        w.ctx.priv = ctx_.priv + "/worker" + std::to_string(k);
        make_dirs(w.ctx.priv);
        chmod(w.ctx.priv.c_str(), 0700);
        if (w.ctx.iso.changes_user() && k > 0) {
            // A user of its own, from the machine's pool: runs under way at once cannot reach
            // each other, nor share a process limit (the first worker has the run's).
            w.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);
            w.ctx.iso.uid = w.identity.uid;
            w.ctx.iso.gid = w.identity.gid;
        }
        workers_.push_back(std::move(w));
    }
    for (Worker& w : workers_) check_gpu(w);
}

// Before grading, each GPU runs the reference: outside the sandbox (its name and driver, for the
// reports), and in the sandbox as a student's program will run there (the first GPU's was the
// self-test). A GPU that fails is named, and grading does not start.
void Grader::check_gpu(Worker& w) {
    const auto [variant, small] = reference_case();
    const std::string label = gpu_label(w), device_json = w.ctx.priv + "/device.json";
    const std::string leave_out = ": check it (nvidia-smi), or leave it out of --gpus";
    unlink(device_json.c_str());
    HeldLock gpu = lock_gpu_of(w.ctx, label);
    RunResult plain;
    for (size_t attempt = 0; attempt < ctx_.retry.attempts(); ++attempt) {
        pause_before(ctx_.retry, attempt);
        plain = run_trusted({ctx_.info.sol, "--variant", variant, "--size", small, "--reps", "1", "--json", device_json}, w.ctx.priv, 120,
                            w.ctx.priv, {"CUDA_VISIBLE_DEVICES=" + w.ctx.cuda_visible_devices});
        if (plain.ok()) break;
    }
    if (plain.exit_code == cudalabs::kExitNoGpu)
        throw std::runtime_error(label + ": CUDA cannot use it (" + clip(plain.err, 500) + ")" + leave_out);
    if (!plain.ok())
        throw std::runtime_error(label + ": the reference solution fails on it (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500) +
                                 leave_out);
    try {
        read_device(w.ctx, device_json);
        w.name = json::parse(read_file(device_json)).at("device").at("name").get<std::string>();
    } catch (const std::exception& e) {
        throw std::runtime_error(label + ": " + e.what());
    }
    // Each worker's own reference run in the sandbox (as its user, on its GPU): the self-test's
    // for the first, and what decides a failure that persists (runs.h, reference_runs_in_sandbox).
    const std::string work = ctx_.work + "/.selftest-worker" + std::to_string(w.slot);
    make_dirs(work + "/bin");
    make_dirs(work + "/run");
    w.ctx.reference.program = work + "/bin/reference";
    write_file(w.ctx.reference.program, read_file(ctx_.info.sol));
    chmod(w.ctx.reference.program.c_str(), 0755);
    w.ctx.reference.run_dir = work + "/run";
    w.ctx.reference.args = {"--variant", variant, "--size", small, "--reps", "1"};
    if (w.slot > 0) {
        const SandboxCheck check = run_reference_in_sandbox(w.ctx);
        if (!check.failure.empty())
            throw std::runtime_error(label + " (" + w.name + "): " + check.failure + " (" + w.ctx.iso.describe() + ")\n" + leave_out.substr(2));
        if (w.ctx.trace_ok && !reference_kernels_seen(check.run))
            throw std::runtime_error(label + " (" + w.name + "): the kernel trace recorded no kernel of the reference there, as it did on GPU " +
                                     std::to_string(workers_[0].gpu) + leave_out);
    }
    std::fprintf(stderr, "grade: %s: %s: the reference runs there%s\n", label.c_str(), w.ctx.device.c_str(),
                 w.slot > 0 ? " in the sandbox" : "");
}

// The device of the summary and of shard.json: the one GPU's, or each GPU's where they differ.
std::string Grader::device_summary() const {
    std::set<std::string> distinct;
    for (const Worker& w : workers_) distinct.insert(w.ctx.device);
    if (distinct.size() == 1) return *distinct.begin();
    std::vector<std::string> each;
    for (const Worker& w : workers_) each.push_back(worker_name(w) + ": " + w.ctx.device);
    return join(each, "; ");
}

// With --gpus: one line per GPU for the summary (and shard.json): which, as whom, how many.
std::vector<std::string> Grader::gpu_lines() const {
    std::vector<std::string> lines;
    if (workers_.empty() || workers_[0].gpu < 0) return lines;
    for (const Worker& w : workers_) {
        std::string line = gpu_label(w) + ": " + w.ctx.device;
        if (w.ctx.iso.changes_user()) line += ", sandbox uid " + std::to_string(w.ctx.iso.uid);
        line += ": " + std::to_string(w.graded) + " submission" + (w.graded == 1 ? "" : "s") + " graded";
        lines.push_back(line);
    }
    return lines;
}

void Grader::grade_tests(Worker& w, Submission& s, size_t index, size_t count) {
    GradingContext& ctx = w.ctx;
    const std::string on = w.gpu >= 0 ? worker_name(w) + ": " : "";
    std::map<std::string, TestResult> done;
    for (const TestSpec& t : ctx.rubric.tests) {
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
        else {
            try {
                if (t.kind == TestKind::Correctness) r = run_correctness(ctx, s.graded, t);
                else if (t.kind == TestKind::Sanitizer) r = run_sanitizer(ctx, s.graded, t);
                else r = run_performance(ctx, s.graded, t);
            } catch (const std::exception& e) {
                throw GraderError("in test '" + t.id + "': " + e.what());  // which of its runs the grader could not make
            }
        }
        done[t.id] = r;
        s.result.tests.push_back(r);
    }
}

int Grader::run() {
    become_subreaper();
    Config& cfg = ctx_.cfg;
    cfg.root = absolute(cfg.root);
    if (cfg.rubric_path.empty()) cfg.rubric_path = cfg.root + "/grading/rubrics/" + cfg.lab + ".rubric";
    ctx_.rubric = load_rubric(cfg.rubric_path);
    ctx_.rubric_sha = sha256_hex(read_file(cfg.rubric_path));
    // A roster is read before anything is built: a bad one stops the run at once (exit 2).
    Roster roster;
    RosterMatch roster_match;
    if (ctx_.rubric.lab != cfg.lab) throw UsageError(cfg.rubric_path + " is the rubric of lab " + ctx_.rubric.lab + ", not " + cfg.lab);

    // A regrade reuses the earlier seed (unless one is given) and compares.
    RegradeBaseline baseline;
    const bool regrade = !cfg.regrade.empty();
    if (regrade) {
        baseline = parse_regrade_baseline(read_file(cfg.regrade), cfg.regrade);
        if (!cfg.seed) cfg.seed = baseline.seed;
        if (cfg.roster.empty()) cfg.roster = roster_of_run(read_file(cfg.regrade));  // the roster it was graded with
    }
    if (!cfg.roster.empty()) {
        if (!exists(cfg.roster) || is_dir(cfg.roster)) throw UsageError("no such roster file: " + cfg.roster + " (--roster FILE)");
        roster = parse_roster(read_file(cfg.roster), cfg.roster);
        roster.path = absolute(cfg.roster);
    }
    if (!cfg.seed) {
        std::random_device rd;
        cfg.seed = 1 + (static_cast<unsigned long long>(rd()) << 16 ^ rd()) % 2147483646ull;
    }
    if (cfg.out_dir.empty()) {
        char stamp[32];
        std::time_t now = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
        cfg.out_dir = cfg.root + "/build/grading/lab" + cfg.lab + "-" + stamp;
    }
    make_dirs(cfg.out_dir);
    ctx_.out = absolute(cfg.out_dir);
    ctx_.priv = ctx_.out + "/.private";
    make_dirs(ctx_.priv);
    chmod(ctx_.priv.c_str(), 0700);
    for (const char* d : {"feedback", "results"}) make_dirs(ctx_.out + "/" + d);
    // This run's own sandbox user (root only): no other grading run on the machine shares it,
    // its processes, or its process limit.
    lock_dir_ = lock_folder();
    if (geteuid() == 0) identity_ = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, lock_dir_);

    std::fprintf(stderr, "grade: lab %s, rubric %s, seed %llu, results in %s\n", cfg.lab.c_str(), cfg.rubric_path.c_str(), cfg.seed,
                 ctx_.out.c_str());
    std::fprintf(stderr, "grade: building the trusted tree (make grading-info LAB=%s)...\n", cfg.lab.c_str());
    load_lab();

    ctx_.run_limits.mem_mb = ctx_.rubric.mem_limit_mb;
    ctx_.run_limits.file_mb = ctx_.rubric.file_limit_mb;
    // RLIMIT_NPROC counts every process of a user: it is this run's own only where the programs
    // run as this run's own user (the grader is root); as the grader's user it would count the
    // user's other processes too, so it is not set there.
    ctx_.run_limits.processes = geteuid() == 0 ? ctx_.rubric.process_limit : 0;
    ctx_.run_limits.keep_output = 16 << 10;
    choose_work_folder();
    choose_sandbox();

    std::vector<int> gpus;  // with --gpus: the GPUs to grade on (CUDA's indices in the grader)
    if (!cfg.compile_only) {
        // The GPUs and their UUIDs first (no context is made): a GPU is locked by its UUID
        // before anything of this run uses it.
        if (cfg.gpus.given) {
            gpus = choose_gpus();
            if (gpus.empty()) have_gpu_ = false;
            else ctx_.cuda_visible_devices = pinned_device(gpus[0], std::getenv("CUDA_VISIBLE_DEVICES"));
            if (!gpus.empty() && static_cast<size_t>(gpus[0]) < gpu_uuids_.size()) ctx_.gpu_uuid = gpu_uuids_[static_cast<size_t>(gpus[0])];
        } else if (count_gpus() > 0 && !gpu_uuids_.empty()) {
            ctx_.gpu_uuid = gpu_uuids_[0];  // the one CUDA picks
        }
        if (have_gpu_) {
            std::fprintf(stderr, "grade: checking the sandbox with the reference solution...\n");
            self_test();
        }
        if (!have_gpu_) {
            std::fprintf(stderr, "grade: no usable CUDA GPU: grading needs one to run the programs (--compile-only builds and audits without)\n");
            return cudalabs::kExitNoGpu;
        }
    } else {
        ctx_.isolation_text = ctx_.iso.describe() + " (compile only)";
        if (cfg.gpus.given) std::fprintf(stderr, "grade: --compile-only runs nothing on a GPU: --gpus %s is not used\n", cfg.gpus.text.c_str());
    }
    std::fprintf(stderr, "grade: isolation: %s\n", ctx_.isolation_text.c_str());
    if (!gpus.empty() && cfg.gpus.shared)
        std::fprintf(stderr, "grade: %s=1: %zu workers on the GPUs of --gpus %s, some sharing one: their timings disturb each other, "
                             "so the performance scores are not fair (for testing the grader, not for grading a class)\n",
                     kSharedGpusVariable, gpus.size(), cfg.gpus.text.c_str());
    else if (!gpus.empty())
        std::fprintf(stderr, "grade: grading on %zu GPU%s (--gpus %s), one worker each; checking each GPU with the reference...\n",
                     gpus.size(), gpus.size() == 1 ? "" : "s", cfg.gpus.text.c_str());
    set_up_workers(gpus);

    std::vector<Submission> subs;
    for (const SubmissionSource& src : collect_submissions(cfg.inputs, ctx_.info.topic_file, ctx_.out)) {
        Submission s;
        s.source = src;
        s.result.student = src.id;
        s.result.file = src.file;
        s.result.rejected = src.rejected;
        s.result.notes = notes_;
        subs.push_back(s);
    }
    if (subs.empty()) throw UsageError("no submissions found");
    // With a roster: the whole class is matched (every shard finds the same), before the slice.
    if (!cfg.roster.empty()) {
        std::vector<SubmissionSource> sources;
        for (const Submission& s : subs) sources.push_back(s.source);
        roster_match = match_roster(roster, submission_names(sources));
        LmsAssignment assignment{cfg.lms_assignment.empty() ? "Lab " + cfg.lab : cfg.lms_assignment,
                                 cfg.lms_points > 0 ? cfg.lms_points : ctx_.rubric.total_points(), ctx_.rubric.total_points()};
        write_file(ctx_.out + "/roster.json", roster_record_json(roster, roster_match, assignment));
        std::fprintf(stderr, "grade: roster %s: %zu students, %zu of the %zu submissions matched\n", cfg.roster.c_str(), roster.entries.size(),
                     roster_match.students.size(), subs.size());
    } else {
        for (const char* f : {"roster.json", "lms-canvas.csv", "lms-moodle.csv", "roster.txt"}) unlink((ctx_.out + "/" + f).c_str());  // an earlier run's
    }
    // A shard grades its slice of the class; the slices depend on the sorted ids alone, so every
    // node finds the same ones. Its shard.json says so from the start (unfinished until the end).
    std::vector<std::string> class_ids;
    for (const Submission& s : subs) class_ids.push_back(s.source.id);
    ShardRecord shard;
    if (cfg.shard.active()) {
        const std::vector<std::string> mine = shard_members(class_ids, cfg.shard.k, cfg.shard.n);
        subs.erase(std::remove_if(subs.begin(), subs.end(),
                                  [&](const Submission& s) { return std::find(mine.begin(), mine.end(), s.source.id) == mine.end(); }),
                   subs.end());
        shard.k = cfg.shard.k;
        shard.n = cfg.shard.n;
        shard.seed = cfg.seed;
        shard.lab = cfg.lab;
        shard.rubric = cfg.rubric_path;
        shard.rubric_sha256 = ctx_.rubric_sha;
        shard.tree = ctx_.tree;
        shard.tools = ctx_.tools;
        shard.isolation = ctx_.isolation_text;
        shard.compile_only = cfg.compile_only;
        shard.regrade_of = cfg.regrade;
        shard.class_ids = class_ids;
        shard.assigned = mine;
        shard.summary_head = summary_head(ctx_.rubric);
        write_file(ctx_.out + "/shard.json", shard_record_json(shard));
        std::fprintf(stderr, "grade: shard %s: %zu of the class's %zu submissions\n", cfg.shard.text().c_str(), subs.size(), class_ids.size());
    }
    if (!cfg.gradescope.empty() && subs.size() != 1) throw UsageError("--gradescope needs exactly one submission");

    // Compile in parallel: no student code runs in this phase and timing is not involved.
    std::atomic<size_t> next{0}, finished{0};
    std::mutex progress;
    const int jobs = cfg.jobs > 0 ? cfg.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < subs.size();) {
                try {
                    prepare(subs[i]);
                } catch (const std::exception& e) {
                    subs[i].result.grader_error = std::string("while building: ") + e.what();
                }
                std::lock_guard<std::mutex> lock(progress);
                const std::string why = !subs[i].result.grader_error.empty() ? "grader error " + subs[i].result.grader_error : subs[i].result.rejected;
                std::fprintf(stderr, "[%zu/%zu] built %s: %s (elapsed %s)\n", ++finished, subs.size(), subs[i].source.id.c_str(),
                             subs[i].ready ? "ok" : why.substr(0, 100).c_str(), elapsed_text(elapsed()).c_str());
            }
        });
    for (std::thread& t : pool) t.join();

    // Results are written as each submission finishes, so that a run cut short keeps them. With
    // several GPUs they finish in any order: the files are put in class order as they are
    // written (the gradebook) or at the end (the audit log), as one GPU would have written them.
    json run_line = {{"event", "run"}, {"lab", cfg.lab}, {"seed", cfg.seed}, {"rubric", cfg.rubric_path}, {"rubric_sha256", ctx_.rubric_sha},
                     {"isolation", ctx_.isolation_text}, {"tools", ctx_.tools}, {"compile_only", cfg.compile_only}, {"submissions", subs.size()}};
    if (regrade) run_line["regrade_of"] = cfg.regrade;
    if (!cfg.roster.empty()) run_line["roster"] = roster.path;
    if (!ctx_.tree.empty()) run_line["tree"] = ctx_.tree;
    if (cfg.shard.active()) run_line["shard"] = {{"k", cfg.shard.k}, {"n", cfg.shard.n}};
    if (workers_[0].gpu >= 0) {
        run_line["gpus"] = json::array();
        for (const Worker& w : workers_)
            run_line["gpus"].push_back({{"index", w.gpu}, {"worker", w.slot}, {"name", w.name}, {"device", w.ctx.device},
                                        {"cuda_visible_devices", w.ctx.cuda_visible_devices}, {"uid", w.ctx.iso.changes_user() ? static_cast<long>(w.ctx.iso.uid) : -1L}});
    }
    const std::string title = "Lab " + cfg.lab + (ctx_.rubric.title.empty() ? "" : " -- " + ctx_.rubric.title);
    std::vector<std::string> ids;
    for (const Submission& s : subs) ids.push_back(s.source.id);
    ClassResults book(ctx_.out, ctx_.rubric, title, ids);
    if (!cfg.roster.empty()) book.use_roster(&roster, &roster_match);
    book.begin(run_line.dump());
    std::vector<std::string> regrade_note(subs.size());  // by class order
    std::mutex finishing;  // the progress lines, the counts, shard.json's rows
    size_t graded = 0;
    distribute(subs.size(), workers_.size(), [&](size_t worker, size_t i) {
        Worker& w = workers_[worker];
        Submission& s = subs[i];
        auto t0 = std::chrono::steady_clock::now();
        const bool runs = s.ready && !cfg.compile_only;
        if (runs) {
            try {
                // One graded submission at a time on this GPU, across every grading run here.
                HeldLock gpu = lock_gpu_of(w.ctx, w.gpu >= 0 ? worker_name(w) : "the GPU");
                w.ctx.program_failures.clear();
                prepare_run_folder(s.graded.run_dir, w.ctx.iso);
                grade_tests(w, s, i, subs.size());
            } catch (const std::exception& e) {
                // The grader's own failure (the environment's, or a bug): this student is not
                // graded -- no score anywhere -- and the class goes on.
                s.result.grader_error = e.what();
                s.result.tests.clear();
            }
            release_run_folder(s.graded.run_dir);
            remove_tree(w.ctx.priv + "/outputs");
        } else if (s.result.grader_error.empty()) {
            for (const TestSpec& t : ctx_.rubric.tests) {
                TestResult r{t.id, t.name, 0, t.points, t.visibility, s.ready ? "not run (--compile-only)" : "not run: " + s.result.rejected};
                r.not_run = s.ready;
                s.result.tests.push_back(r);
            }
        }
        s.result.execution_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(finishing);
        if (runs) ++w.graded;
        ++graded;
        const double remaining = elapsed() / static_cast<double>(graded) * static_cast<double>(subs.size() - graded);
        const std::string on = w.gpu >= 0 ? worker_name(w) + ": " : "";
        std::fprintf(stderr, "[%zu/%zu] %s%s: %s (elapsed %s, about %s left)\n", graded, subs.size(), on.c_str(), s.source.id.c_str(),
                     total_text(s.result, ctx_.rubric.total_points()).c_str(), elapsed_text(elapsed()).c_str(), elapsed_text(remaining).c_str());
        json line = json::parse(audit_json(s.result, cfg.lab, cfg.seed, w.ctx.device, isolation_level_name(w.ctx.iso.level), ctx_.tools, ctx_.rubric_sha));
        line["event"] = "submission";
        // Which GPU graded whom (a submission that ran nothing was graded on none).
        if (w.gpu >= 0 && runs) line["gpu"] = {{"index", w.gpu}, {"name", w.name}, {"worker", w.slot}};
        // The leaderboard's figures (where a performance test was timed): the grader's own.
        if (const json figures = leaderboard_audit(s.result, ctx_.rubric); !figures.is_null()) line["leaderboard"] = figures;
        if (regrade) {
            const std::string note = regrade_difference(s.result, baseline);
            line["same_as_before"] = note.empty();
            regrade_note[i] = note;
            shard.regrade_notes[s.source.id] = note;
        }
        shard.summary_rows[s.source.id] = summary_row(s.result, ctx_.rubric);
        book.finish(i, s.result, line.dump());
    });
    book.end();
    std::vector<std::string> regrade_notes;
    size_t same = 0;
    for (const std::string& note : regrade_note) {
        if (note.empty()) ++same;
        else regrade_notes.push_back(note);
    }
    const std::vector<StudentResult> all = book.results();
    if (!cfg.gradescope.empty()) write_file(cfg.gradescope, with_gradescope_leaderboard(gradescope_json(subs[0].result), subs[0].result, ctx_.rubric));
    const std::string roster_text = write_roster_outputs(ctx_.out);  // with --roster: the LMS files and what did not match
    std::string summary = summary_table(all, ctx_.rubric);
    std::ostringstream tail;
    const std::string device = device_summary();
    tail << summary_tail(cfg.lab, subs.size(), cfg.seed, device, ctx_.isolation_text, ctx_.tools, cfg.regrade, same, regrade_notes);
    const std::vector<std::string> gpu_text = gpu_lines();
    if (!gpu_text.empty())
        tail << gpu_summary(gpu_text, "--gpus " + cfg.gpus.text + (cfg.gpus.shared ? std::string(", shared through ") + kSharedGpusVariable + "=1: timings not fair" : ""));
    if (cfg.shard.active()) {
        tail << "shard " << cfg.shard.text() << ": " << subs.size() << " of the class's " << class_ids.size()
             << " submissions (grading/grade merge OUT SHARD_DIR... assembles the class)\n";
        shard.device = device;
        shard.gpus = gpu_text;
        shard.finished = true;
        write_file(ctx_.out + "/shard.json", shard_record_json(shard));
    }
    // Submissions the grader could not grade have no score: they are named, with the command
    // that grades them again, and the run exits 1.
    std::vector<const Submission*> failed;
    for (const Submission& s : subs)
        if (!s.result.grader_error.empty()) failed.push_back(&s);
    if (!failed.empty())
        tail << failed.size() << " submission" << (failed.size() == 1 ? "" : "s") << " not graded (grader error: no score); grade "
             << (failed.size() == 1 ? "it" : "them") << " again with:\n  " << regrade_command(failed) << "\n";
    write_file(ctx_.out + "/summary.txt", summary + "\n" + tail.str());
    std::cout << summary << "\n" << tail.str() << roster_text << "results: " << ctx_.out << "\n";
    if (ctx_.work != ctx_.out + "/work") remove_tree(ctx_.work);  // a folder of this run's own, outside OUT
    return failed.empty() ? 0 : cudalabs::kExitFail;
}

// The command that grades `failed` again with this run's seed and rubric, into a folder of its own.
std::string Grader::regrade_command(const std::vector<const Submission*>& failed) const {
    auto quoted = [](const std::string& s) {
        if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=,:") == std::string::npos) return s;
        std::string q = "'";
        for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    std::string cmd = "grading/grade --lab " + ctx_.cfg.lab + " --seed " + std::to_string(ctx_.cfg.seed) + " --rubric " +
                      quoted(ctx_.cfg.rubric_path) + " --out " + quoted(ctx_.out + "-regrade");
    if (ctx_.cfg.isolation != "auto") cmd += " --isolation " + ctx_.cfg.isolation;
    if (ctx_.cfg.gpus.given) cmd += " --gpus " + quoted(ctx_.cfg.gpus.text);
    if (!ctx_.cfg.roster.empty()) cmd += " --roster " + quoted(ctx_.cfg.roster);
    for (const Submission* s : failed) cmd += " " + quoted(s->source.path);
    return cmd;
}

Config parse_command_line(int argc, char** argv) {
    Config c;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string& text) { return static_cast<unsigned long long>(cudalabs::parse_positive(text, a)); };
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            std::exit(0);
        } else if (a == "--lab") c.lab = value();
        else if (a == "--rubric") c.rubric_path = value();
        else if (a == "--out") c.out_dir = value();
        else if (a == "--seed") c.seed = number(value());
        else if (a == "--regrade") c.regrade = value();
        else if (a == "--isolation") c.isolation = value();
        else if (a == "--jobs") c.jobs = static_cast<int>(std::min(256ull, number(value())));
        else if (a == "--compile-only") c.compile_only = true;
        else if (a == "--no-trace") c.no_trace = true;
        else if (a == "--gradescope") c.gradescope = value();
        else if (a == "--roster") c.roster = value();
        else if (a == "--lms-assignment") c.lms_assignment = value();
        else if (a == "--lms-points") {
            const std::string v = value();
            char* end = nullptr;
            c.lms_points = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(c.lms_points > 0) || !std::isfinite(c.lms_points))
                throw UsageError("--lms-points needs a positive number of points, like 10 or 12.5 (not '" + v + "')");
        }
        else if (a == "--root") c.root = value();
        else if (a == "--shard") c.shard = parse_shard(value());
        else if (a == "--gpus") {
            const char* shared = std::getenv(kSharedGpusVariable);
            c.gpus = parse_gpu_list(value(), shared && std::string(shared) == "1");
        }
        else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' (see --help)");
        else c.inputs.push_back(a);
    }
    if (c.lab.size() == 1 && std::isdigit(static_cast<unsigned char>(c.lab[0]))) c.lab = "0" + c.lab;
    if (c.lab.size() != 2 || !std::isdigit(static_cast<unsigned char>(c.lab[0])) || !std::isdigit(static_cast<unsigned char>(c.lab[1])))
        throw UsageError("--lab NN is required (two digits, like 01)");
    if (c.isolation != "auto" && !isolation_level_named(c.isolation)) throw UsageError("--isolation must be auto, bwrap, uid or unsafe");
    if (c.inputs.empty()) throw UsageError("no submissions given");
    if (c.shard.active() && !c.seed && c.regrade.empty())
        throw UsageError("--shard " + c.shard.text() + " needs --seed N, the same for every shard of the class (any number, e.g. --seed " +
                         std::to_string(1 + static_cast<unsigned>(std::time(nullptr)) % 2147483646u) +
                         "), so that every shard grades with the same hidden inputs");
    return c;
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

int main(int argc, char** argv) {
    const int first = argc > 2 && std::string(argv[1]) == "--root" ? 3 : 1;
    if (argc > first && std::string(argv[first]) == "leaderboard") {
        try {
            const std::vector<std::string> args(argv + first + 1, argv + argc);
            if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
                std::cout << kUsage;
                return 0;
            }
            std::cout << leaderboard_command(args);
            return 0;
        } catch (const UsageError& e) {
            std::cerr << "grade leaderboard: error: " << e.what() << "\n";
            return cudalabs::kExitUsage;
        } catch (const std::exception& e) {
            std::cerr << "grade leaderboard: error: " << e.what() << "\n";
            return cudalabs::kExitFail;
        }
    }
    if (argc > first && std::string(argv[first]) == "merge") {
        try {
            return merge_main(std::vector<std::string>(argv + first + 1, argv + argc));
        } catch (const UsageError& e) {
            std::cerr << "grade merge: error: " << e.what() << "\n";
            return cudalabs::kExitUsage;
        } catch (const std::exception& e) {
            std::cerr << "grade merge: error: " << e.what() << "\n";
            return cudalabs::kExitFail;
        }
    }
    Config cfg;
    try {
        cfg = parse_command_line(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    }
    try {
        return Grader(cfg).run();
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const RubricError& e) {
        std::cerr << "grade: rubric error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitFail;
    }
}
