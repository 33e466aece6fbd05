#include "runs/runs.h"

#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <thread>

#include "run_options.h"
#include "sealed_memory.h"
#include "runs/channel.h"
#include "runs/failures.h"
#include "runs/kept_verifier.h"
#include "exit_codes.h"
#include "gpu/gpus.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

// " under compute-sanitizer --tool racecheck": what runs in front of a program, for messages.
std::string tool_in_front(const std::vector<std::string>& prefix) {
    if (prefix.empty()) return "";
    std::string what = " under " + basename_of(prefix[0]);
    const auto tool = std::find(prefix.begin(), prefix.end(), "--tool");
    if (tool != prefix.end() && tool + 1 != prefix.end()) what += " --tool " + *(tool + 1);
    return what;
}

// The descriptor the program finds its results channel at (--channel).
constexpr int kChannelFd = 3;
}  // namespace

std::vector<std::string> run_args(const std::string& variants, const std::string& sizes, unsigned long long seed, int reps,
                                  bool guard_buffers) {
    std::vector<std::string> args = {"--variant", variants, "--size", sizes, "--seed", std::to_string(seed), "--reps", std::to_string(reps)};
    if (guard_buffers) args.push_back("--guard-buffers");
    return args;
}

const CaseEvidence* ProgramRun::find(const std::string& variant, const std::string& size) const {
    for (const CaseEvidence& c : cases)
        if (c.variant == variant && c.size == size) return &c;
    return nullptr;
}

bool is_one_of(const KernelSpan& k, const std::set<std::string>& kernels) {
    if (!k.truncated) return kernels.count(k.name) > 0;
    int matches = 0;
    for (const std::string& name : kernels)
        if (name.size() > k.name.size() && name.compare(0, k.name.size(), k.name) == 0) ++matches;
    return matches == 1;
}

const KernelSpan* foreign_kernel(const CaseEvidence& c, const std::set<std::string>& kernels) {
    for (const RepetitionEvidence& rep : c.reps)
        for (const KernelSpan& k : rep.kernels)
            if (!is_one_of(k, kernels)) return &k;
    return nullptr;
}

std::string program_fate(const RunResult& r) {
    if (r.ok()) return "";
    if (!r.started) return "your program could not start: " + r.error;
    if (r.timed_out) return "your program " + r.describe() + " (an endless loop or a hang?)";
    if (r.signal == SIGXFSZ)
        return "your program was stopped for writing more than the grader's file size limit (what it "
               "prints counts: do not print inside loops)";
    if (r.signal == SIGSEGV && r.err.find(cudalabs::kSealedReadMessage) != std::string::npos)
        return "your program was " + r.describe() + ": " + cudalabs::kSealedReadMessage;
    if (r.signal) return "your program was " + r.describe() + " (a crash in host code?)";
    if (r.exit_code == cudalabs::kExitFail) return "";  // "a check failed": the verdict below is what counts
    // (run_process has already turned a wrapper's "exit 128 + N" back into signal N.)
    return "your program ended with " + r.describe();
}

namespace {

HostTransfer to_transfer(const TransferRec& t) {
    return {t.api, cudalabs::channel::direction_name(t.direction), t.bytes};
}

KernelSpan to_span(const KernelRec& k) {
    return {k.name, k.truncated, static_cast<double>(k.end_ns - k.start_ns)};
}

// The channel's log, as evidence the judges read.
void take_log(const RunLog& log, ProgramRun& pr) {
    pr.began = log.records > 0;  // the first record is RUN_BEGIN, or the log is not complete
    pr.device_ready = log.device_ready;
    pr.grader_fault = log.grader_fault;
    pr.channel_complete = log.complete;
    pr.channel_problem = log.error;
    pr.trace_ready = log.trace_ready;
    pr.trace_lost = log.trace_lost;
    if (pr.channel_complete && !log.faults_outside_cases.empty()) {
        pr.channel_complete = false;
        pr.channel_problem = log.faults_outside_cases.front();
    }
    for (const CaseLog& c : log.cases) {
        CaseEvidence e;
        e.variant = c.variant;
        e.size = c.size;
        for (const KernelRec& k : c.kernels) e.kernels.push_back(to_span(k));
        for (const RepLog& r : c.reps) {
            RepetitionEvidence rep;
            rep.warmup = r.warmup;
            for (const KernelRec& k : r.kernels) {
                rep.kernels.push_back(to_span(k));
                e.kernels.push_back(rep.kernels.back());
            }
            for (const TransferRec& t : c.transfers)
                if (t.rep == static_cast<int>(r.rep) && t.direction == cudalabs::channel::Direction::DeviceToScratch)
                    rep.staged_bytes += static_cast<double>(t.bytes);
            e.reps.push_back(rep);
        }
        // Copies made outside any case (by static initialisers) count against every case.
        for (const TransferRec& t : log.transfers_outside_cases) e.transfers.push_back(to_transfer(t));
        for (const TransferRec& t : c.transfers) e.transfers.push_back(to_transfer(t));
        e.faults = c.faults;
        pr.cases.push_back(e);
    }
}

// Reads a pipe's text into `out` (at most `cap` bytes kept) until every writer has closed it,
// or `stop` is set (something the run left behind still holds it open).
void read_text(int fd, std::string* out, size_t cap, const std::atomic<bool>* stop) {
    char buf[1 << 14];
    for (;;) {
        pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, 100);
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) {
            if (stop->load()) break;
            continue;
        }
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) break;
        if (out->size() < cap) out->append(buf, static_cast<size_t>(std::min<size_t>(static_cast<size_t>(n), cap - out->size())));
    }
    close(fd);
}

}  // namespace

namespace {

// A new --fresh-inputs key: random, positive, below 2^62 (what the harness accepts).
unsigned long long fresh_inputs_key() {
    const unsigned long long bits = std::stoull(random_hex(8), nullptr, 16);
    return (bits & ((1ull << 62) - 1)) | 1;
}

// A pipe holding `options`, each followed by a NUL, with its write end closed: its read end, for
// the program to inherit (run_options.h). The options of a run are a few hundred bytes, far below
// what a pipe holds, so the write never waits for a reader.
int hand_over_options(const std::vector<std::string>& options) {
    std::string bytes;
    for (const std::string& o : options) bytes += o + '\0';
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the options pipe");
    const bool fits = bytes.size() <= static_cast<size_t>(fcntl(fds[1], F_GETPIPE_SZ));
    const bool written = fits && write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fds[1]);
    if (!written) {
        close(fds[0]);
        throw std::runtime_error("cannot hand a run its options (" + std::to_string(bytes.size()) + " bytes)");
    }
    return fds[0];
}

}  // namespace

Launch launch_of(const GradingContext& ctx, const RunRequest& req, unsigned long long fresh_key) {
    Launch l;
    l.argv = req.prefix;
    l.argv.insert(l.argv.end(), {req.program, cudalabs::run_options::kFlag, std::to_string(cudalabs::run_options::kFd)});
    l.env = scrubbed_env(req.workdir, ctx.setup.info.cuda_home + "/bin");
    if (!ctx.worker.cuda_visible_devices.empty()) set_env(l.env, "CUDA_VISIBLE_DEVICES", ctx.worker.cuda_visible_devices);
    if (req.trace && ctx.setup.trace_ok)
        l.trace_env = {"LD_PRELOAD=" + ctx.setup.info.trace_lib, "CUDA_INJECTION64_PATH=" + ctx.setup.info.trace_lib};
    l.options = req.args;
    l.options.insert(l.options.end(), {"--channel", std::to_string(kChannelFd), "--fresh-inputs", std::to_string(fresh_key)});
    return l;
}

namespace {
// Before each run that is not a timed process: a turn kept alone after one is shared again, and a
// turn waiting to be alone (a timed process) goes first (GpuTurn::share_again, make_way); the
// wait is the test's.
void make_way_for_timed_run(const GradingContext& ctx) {
    if (!ctx.submission.gpu_turn) return;
    const double asked = steady_now();
    ctx.submission.gpu_turn->share_again();
    ctx.submission.gpu_turn->make_way();
    if (ctx.submission.timing) ctx.submission.timing->add_wait(seconds_since(asked));
}

// The descriptor a timed run waits for the grader's go at (--timing-gate): 3 is the channel's,
// 4 a sanitizer's log, 5 the options pipe.
constexpr int kTimingGateFd = 6;

// The grader's end of a timed run's gate (TimingGate): a socket pair (a go sent after the
// program died fails quietly, where a pipe would raise SIGPIPE), one byte for the go. The gate is
// opened only where no timed repetition began before the program asked; the go is sent either way
// (the run goes on, and `opened` stays false). The wait is the program's wait on the grader.
class GateEnd {
public:
    explicit GateEnd(TimingGate* gate) : gate_(gate) {
        if (!gate_) return;
        gate_->opened = gate_->timed_out = false;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_) != 0) throw std::runtime_error("cannot create a timed run's gate");
    }
    ~GateEnd() {
        for (int fd : fds_)
            if (fd >= 0) close(fd);
    }
    GateEnd(const GateEnd&) = delete;
    GateEnd& operator=(const GateEnd&) = delete;

    void add_to(Launch& launch, RunSpec& spec) {
        if (!gate_) return;
        launch.options.insert(launch.options.end(), {"--timing-gate", std::to_string(kTimingGateFd)});
        spec.inherit_fds.push_back({fds_[1], kTimingGateFd});
        spec.grader_wait = &wait_;
    }
    // On the channel reader's thread, the program waiting.
    void on_timing_ready(const RunLog& so_far) {
        if (!gate_) return;
        wait_.begin();
        try {
            if (so_far.reps_before_timing_ready == 0) {
                gate_->open();
                opened_ = true;
            }
        } catch (...) {
            failure_ = std::current_exception();
        }
        wait_.end();
        const char go = 'g';
        (void)!send(fds_[0], &go, 1, MSG_NOSIGNAL);
    }
    double waited_s() const { return wait_.seconds(); }
    // After the run (the reader joined): the gate's outcome, or the grader's failure to open it.
    void finish(const RunResult& run) {
        if (!gate_) return;
        if (failure_) std::rethrow_exception(failure_);
        gate_->opened = opened_;
        gate_->timed_out = run.timed_out;
    }

private:
    TimingGate* gate_;
    int fds_[2] = {-1, -1};
    GraderWait wait_;
    bool opened_ = false;
    std::exception_ptr failure_;
};

// A run's time in its submission's breakdown: `ran_s` without its wait for the GPU alone (the
// timed test's), `cuda_start_s` to its GPU open (< 0: not known).
void note_run(const GradingContext& ctx, const RunRequest& req, double ran_s, double cuda_start_s) {
    if (!ctx.submission.timing) return;
    const RunKind kind = !req.sandboxed ? RunKind::Reference : req.prefix.empty() ? RunKind::Program : RunKind::Sanitizer;
    ctx.submission.timing->add_run(kind, ran_s, cuda_start_s);
}

}  // namespace

ProgramRun run_program(const GradingContext& ctx, const RunRequest& req, std::string* log) {
    ProgramRun pr;
    make_dirs(req.workdir);
    if (!req.outputs_dir.empty()) {
        remove_tree(req.outputs_dir);
        make_dirs(req.outputs_dir);
    }
    int channel[2] = {-1, -1}, log_pipe[2] = {-1, -1};
    if (pipe2(channel, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the results channel (pipe)");
    if (req.log_fd_target >= 0) {
        if (pipe2(log_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a log pipe");
        // The tool opens it by name (/proc/self/fd/N), which checks the pipe's owner: as the
        // sandbox's user it must own the write end (no one else can reach the pipe anyway).
        if (req.sandboxed && geteuid() == 0 && ctx.worker.iso.level != IsolationLevel::Unsafe) (void)!fchown(log_pipe[1], ctx.worker.iso.uid, ctx.worker.iso.gid);
    }

    pr.fresh_key = fresh_inputs_key();
    Launch launch = launch_of(ctx, req, pr.fresh_key);
    RunSpec spec;
    GateEnd gate(req.gate);
    gate.add_to(launch, spec);
    const int options_read_end = hand_over_options(launch.options);

    spec.cwd = req.workdir;
    spec.env = launch.env;
    spec.limits = ctx.setup.run_limits;
    spec.limits.wall_s = req.timeout_s;
    if (spec.limits.processes > 0) spec.limits.processes += req.tool_threads;
    static std::atomic<int> counter{0};  // (several workers run programs at once)
    const std::string tag = std::to_string(counter++);
    spec.stdout_path = ctx.worker.priv + "/run" + tag + ".out";
    spec.stderr_path = ctx.worker.priv + "/run" + tag + ".err";
    spec.inherit_fds.push_back({channel[1], kChannelFd});
    spec.inherit_fds.push_back({options_read_end, cudalabs::run_options::kFd});
    if (req.log_fd_target >= 0) spec.inherit_fds.push_back({log_pipe[1], req.log_fd_target});
    pr.trace_wanted = !launch.trace_env.empty();
    if (!req.sandboxed) {
        spec.limits.mem_mb = 0;
        spec.argv = launch.argv;
        spec.env.insert(spec.env.end(), launch.trace_env.begin(), launch.trace_env.end());
    } else {
        ctx.worker.iso.apply(spec, launch.argv, req.workdir, {}, launch.trace_env, {req.program});
    }

    // The grader reads the channel while the program runs: a full pipe would stop it otherwise.
    double device_ready_at = 0;
    ChannelEvents events;
    events.device_ready = [&] { device_ready_at = steady_now(); };
    events.timing_ready = [&](const RunLog& so_far) { gate.on_timing_ready(so_far); };
    ChannelReader reader(channel[0], req.outputs_dir, {}, events);
    std::string log_text;
    std::atomic<bool> stop_log{false};
    std::thread log_reader;
    if (req.log_fd_target >= 0) log_reader = std::thread([&] { read_text(log_pipe[0], &log_text, 1 << 20, &stop_log); });
    make_way_for_timed_run(ctx);
    const double started = steady_now();
    pr.run = run_process(spec);
    const double ran_s = seconds_since(started);
    close(options_read_end);
    close(channel[1]);
    if (log_pipe[1] >= 0) close(log_pipe[1]);
    reap_strays();  // anything left holding the pipes open is killed: the readers then see EOF
    RunLog channel_log = reader.finish();
    if (log_reader.joinable()) {
        // Whatever still holds the log open after the channel has ended cannot add to it.
        stop_log = true;
        log_reader.join();
    }
    // The reader may take DEVICE_READY in only after the run ended (a busy machine): never later than that.
    note_run(ctx, req, ran_s - gate.waited_s(), device_ready_at > 0 ? std::min(device_ready_at - started, ran_s) : -1);
    gate.finish(pr.run);
    unlink(spec.stdout_path.c_str());
    unlink(spec.stderr_path.c_str());
    take_log(channel_log, pr);
    if (log) *log = log_text;
    return pr;
}

namespace {

// A run that timed out is made once more with kTimeoutStretch times its limit (sandbox.h) before
// the timeout counts. Once one has counted, the submission's later timeouts count at once (a
// program that hangs costs one long run, not one per test).
const char* const kTimedOut = "timed out with a longer limit";

// pr timed out: the run again with the longer limit, or pr itself where a timeout counts already.
ProgramRun after_timeout(GradingContext& ctx, const RunRequest& req, ProgramRun pr, std::string* log,
                         std::vector<std::string>& reasons) {
    if (!pr.run.timed_out || ctx.submission.program_failures.count(kTimedOut)) return pr;
    RunRequest longer = req;
    longer.timeout_s = req.timeout_s * kTimeoutStretch;
    ProgramRun again = run_program(ctx, longer, log);
    if (again.run.timed_out) {
        ctx.submission.program_failures.insert(kTimedOut);
        again.retry_note = "it timed out after " + number_text(req.timeout_s) + " s, and again when run with " +
                           number_text(longer.timeout_s) + " s: this is your program's doing";
        return again;
    }
    reasons.push_back("it timed out after " + number_text(req.timeout_s) + " s (a busy machine can do that)");
    return again;
}

// A run that ended cleanly with all its results: one made while the GPU was shared counts as it is.
bool clean_run(const ProgramRun& pr) {
    return pr.run.ok() && pr.channel_complete && failure_origin(pr).blame == Blame::Program;
}

// run_student with the GPU as the submission's turn has it (alone, or not shared).
ProgramRun run_student_settled(GradingContext& ctx, const RunRequest& req, std::string* log);

}  // namespace

// While the GPU is shared with other lanes, a run that did not end cleanly is made again with the
// GPU alone, and that run decides (a time-out, an out-of-memory error or a crash that a busy GPU
// caused never counts): the verdict is the one of the submission graded alone.
ProgramRun run_student(GradingContext& ctx, const RunRequest& req, std::string* log) {
    return shared_or_alone<ProgramRun>(
        ctx.submission.gpu_turn, [&] { return run_program(ctx, req, log); }, [&] { return run_student_settled(ctx, req, log); }, clean_run);
}

namespace {

ProgramRun run_student_settled(GradingContext& ctx, const RunRequest& req, std::string* log) {
    std::vector<std::string> reasons;
    ProgramRun pr;
    for (size_t attempt = 0; attempt < ctx.setup.retry.attempts(); ++attempt) {
        pause_before(ctx.setup.retry, attempt);
        pr = after_timeout(ctx, req, run_program(ctx, req, log), log, reasons);
        if (pr.run.timed_out) return pr;
        const FailureOrigin origin = failure_origin(pr);
        if (origin.blame == Blame::Program) {
            if (!reasons.empty())
                pr.retry_note = "run again after: " + join(reasons, "; ") + " (the environment's failure, not yours)";
            return pr;
        }
        if (origin.blame == Blame::Unclear && ctx.submission.program_failures.count(origin.reason)) return pr;
        reasons.push_back(origin.reason);
    }
    const FailureOrigin last = failure_origin(pr);
    const std::string tries = std::to_string(ctx.setup.retry.attempts()) + " attempts";
    if (last.blame == Blame::Environment) throw GraderError(last.reason + " (" + tries + ")");
    // Unclear every time: the reference, run in the same sandbox now and the same way (a
    // sanitizer's run by the same sanitizer), decides.
    const std::string reference = reference_runs_in_sandbox(ctx, &req);
    if (!reference.empty())
        throw GraderError(last.reason + " (" + tries + "), and the reference solution fails in the sandbox too: " + reference);
    ctx.submission.program_failures.insert(last.reason);
    pr.retry_note = last.reason + " in all " + tries + ", while the reference solution ran in the same sandbox: this is your program's doing";
    return pr;
}

}  // namespace

ProgramRun run_reference(const GradingContext& ctx, const RunRequest& req, const std::string& what) {
    ProgramRun pr;
    for (size_t attempt = 0; attempt < ctx.setup.retry.attempts(); ++attempt) {
        pause_before(ctx.setup.retry, attempt);
        pr = run_program(ctx, req);
        if (pr.run.ok() && pr.channel_complete) return pr;
    }
    throw GraderError(what + " failed in all " + std::to_string(ctx.setup.retry.attempts()) + " attempts (" + pr.run.describe() +
                      (pr.channel_complete ? "" : "; its results: " + pr.channel_problem) + "): " + clip(pr.run.out + pr.run.err, 600));
}

SandboxCheck run_reference_in_sandbox(const GradingContext& ctx, const RunRequest* like) {
    RunRequest req = like ? *like : RunRequest{};  // made as `like` is, but for what it runs, and where
    req.program = ctx.worker.reference.program;
    req.args = ctx.worker.reference.args;
    req.workdir = ctx.worker.reference.run_dir;
    req.outputs_dir = ctx.worker.priv + "/reference-check";
    req.timeout_s = like ? std::max(120.0, like->timeout_s) : 120;
    SandboxCheck check;
    try {
        prepare_run_folder(req.workdir, ctx.worker.iso);
        check.run = run_reference(ctx, req, "the reference solution in the sandbox" + tool_in_front(req.prefix));
    } catch (const std::exception& e) {
        check.failure = e.what();
    }
    release_run_folder(req.workdir);
    remove_tree(req.outputs_dir);
    return check;
}

std::string reference_runs_in_sandbox(const GradingContext& ctx, const RunRequest* like) {
    return ctx.worker.reference.program.empty() ? "" : run_reference_in_sandbox(ctx, like).failure;
}

namespace {

// The verifier of run `pr`'s outputs, as a process of its own: the reference with the run's
// variants, sizes, seed, repetitions and fresh-input key, judging the stored outputs.
RunSpec verifier_spec(const GradingContext& ctx, const RunRequest& request, const ProgramRun& pr, const std::string& variants,
                      const std::string& sizes, unsigned long long seed, const std::string& verdict) {
    RunSpec spec;
    std::string reps = "1";
    for (size_t i = 0; i + 1 < request.args.size(); ++i)
        if (request.args[i] == "--reps") reps = request.args[i + 1];
    spec.argv = {ctx.setup.info.sol, "--variant", variants, "--size", sizes, "--seed", std::to_string(seed), "--reps", reps,
                 "--fresh-inputs", std::to_string(pr.fresh_key), "--verify-outputs", request.outputs_dir, "--json", verdict};
    spec.cwd = ctx.worker.priv + "/verifier";
    make_dirs(spec.cwd);
    spec.env = scrubbed_env(spec.cwd, ctx.setup.info.cuda_home + "/bin");
    if (!ctx.worker.cuda_visible_devices.empty()) set_env(spec.env, "CUDA_VISIBLE_DEVICES", ctx.worker.cuda_visible_devices);
    // One hardware work queue instead of CUDA's 8: the driver makes and destroys a context's
    // queues one process at a time, machine-wide, so with 8 every GPU open of every grading run
    // waits longer (bench/results/*.starts.md). Lab programs set one themselves (run_lab) but
    // for a lab whose streams run side by side (lab 06); the verifier runs only the trusted
    // reference and times nothing, and its streams keep their order in one queue in every lab.
    set_env(spec.env, "CUDA_DEVICE_MAX_CONNECTIONS", "1");
    spec.limits.wall_s = std::max(600.0, 4 * ctx.setup.rubric.run_timeout_s);
    spec.limits.file_mb = 0;
    spec.stdout_path = ctx.worker.priv + "/verifier.out";
    spec.stderr_path = ctx.worker.priv + "/verifier.err";
    return spec;
}

// The verdict the verifier wrote at `path`, its rows in `rows`; false with `problem` set where it
// cannot be read.
bool read_verdict(GradingContext& ctx, const std::string& path, std::vector<RowVerdict>& rows, std::string& problem) {
    rows.clear();
    try {
        json j = json::parse(read_file(path));
        if (ctx.worker.device == "unknown")
            ctx.worker.device = j["device"]["name"].get<std::string>() + " (driver " + j["device"]["cuda_driver"].get<std::string>() + ")";
        for (const json& row : j["results"]) rows.push_back({row["variant"], row["size"], row["status"], row["note"]});
    } catch (const std::exception& e) {
        rows.clear();
        problem = std::string("the reference checker wrote no readable verdict: ") + e.what();
        return false;
    }
    return true;
}

// The lane's kept verifier judges first (not with --separate-verifiers). Only a pass is taken
// from it, with a verdict that reads: anything else -- a failure, no answer -- is set aside, the
// kept verifier stopped, and a verifier of its own decides, as without it.
bool kept_verifier_passed(GradingContext& ctx, const RunSpec& spec, const std::string& verdict, std::vector<RowVerdict>& rows) {
    KeptVerifier* kept = ctx.submission.kept_verifier;
    if (!kept) return false;
    const size_t starts = kept->starts();
    const std::optional<int> code = kept->verify(spec);
    if (ctx.submission.timing) ctx.submission.timing->add_verifier_processes(kept->starts() - starts);
    std::string problem;
    if (code == cudalabs::kExitPass && read_verdict(ctx, verdict, rows, problem)) return true;
    kept->stop();
    unlink(verdict.c_str());
    return false;
}

// A verifier of its own, made again after ctx.setup.retry's pauses while it ends otherwise than
// "all passed" or "a check failed": the verifier is trusted, so that is the environment's doing
// (no GPU, a start refused), never the student's.
void run_verifier_alone(GradingContext& ctx, const RunSpec& spec) {
    RunResult v;
    for (size_t attempt = 0; attempt < ctx.setup.retry.attempts(); ++attempt) {
        pause_before(ctx.setup.retry, attempt);
        v = run_process(spec);
        if (ctx.submission.timing) ctx.submission.timing->add_verifier_processes(1);
        if (v.exit_code == cudalabs::kExitPass || v.exit_code == cudalabs::kExitFail) return;
    }
    throw GraderError("the reference checker failed in all " + std::to_string(ctx.setup.retry.attempts()) + " attempts (" + v.describe() +
                      "): " + clip(v.err, 500));
}

}  // namespace

bool verify_outputs(GradingContext& ctx, const RunRequest& request, const ProgramRun& pr, const std::string& variants,
                    const std::string& sizes, unsigned long long seed, std::vector<RowVerdict>& rows, std::string& problem) {
    const std::string verdict = ctx.worker.priv + "/verdict.json";
    unlink(verdict.c_str());
    const RunSpec spec = verifier_spec(ctx, request, pr, variants, sizes, seed, verdict);
    make_way_for_timed_run(ctx);
    const double started = steady_now();
    struct Timed {
        GradingContext& ctx;
        double started;
        ~Timed() {
            if (ctx.submission.timing) ctx.submission.timing->add_run(RunKind::Verifier, seconds_since(started));
        }
    } timed{ctx, started};
    if (kept_verifier_passed(ctx, spec, verdict, rows)) return true;
    run_verifier_alone(ctx, spec);
    return read_verdict(ctx, verdict, rows, problem);
}

}  // namespace grading
