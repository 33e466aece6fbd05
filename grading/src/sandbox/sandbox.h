// Running an untrusted program: its own session and process group, resource limits, a
// wall-clock limit that kills the whole group, a scrubbed environment, only the descriptors it is
// given, output captured to bounded files; and an isolation level (see Isolation) that keeps it
// from the grader, the trusted tree and other submissions. Host-only: unit-tested with stand-ins.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "intake/command_line.h"  // IsolationLevel

namespace grading {

// A wall limit can be reached because the machine was busy (other grade runs on the GPU, builds,
// sanitizer runs): a run or a build step that timed out is made once more with this many times
// its limit before the timeout counts (runs.cpp, build.cpp).
constexpr double kTimeoutStretch = 4;

struct Limits {
    double wall_s = 60;          // then SIGKILL to the whole process group
    long cpu_s = 0;              // RLIMIT_CPU; 0: none
    long mem_mb = 0;             // RLIMIT_DATA (writable private memory); 0: none
    long file_mb = 1024;         // RLIMIT_FSIZE; 0: none (also sizes a sandbox's private /tmp)
    long processes = 0;          // RLIMIT_NPROC; 0: none (not enforced for root)
    long open_files = 1024;      // RLIMIT_NOFILE
    size_t keep_output = 64 << 10;  // bytes of stdout and of stderr kept for the feedback
};

// What the child sets up for itself between its start and exec (Isolation::apply fills it in).
struct Confinement {
    bool drop_ids = false;   // run as uid/gid with no supplementary groups (the grader is root)
    uid_t uid = 0;
    gid_t gid = 0;
};

struct RunSpec {
    std::vector<std::string> argv;
    std::string cwd;                 // created if missing
    std::vector<std::string> env;    // the whole environment, "NAME=value"
    Limits limits;
    std::string stdout_path, stderr_path;  // where the output goes ("" -> cwd/.stdout, .stderr)
    // {descriptor of the grader, number it gets in the program}: open there, not close-on-exec.
    // Every other descriptor of the grader but 0, 1 and 2 is closed in the program.
    std::vector<std::pair<int, int>> inherit_fds;
    Confinement confine;
    // The program runs under a wrapper that reports its death by signal N as exit 128+N
    // (bubblewrap): such exit codes are reported as the signal.
    bool wrapper_exit_is_signal = false;
    // The program's waits on the grader (a timed run's wait for the GPU alone): not counted
    // against limits.wall_s.
    const class GraderWait* grader_wait = nullptr;
};

// Time a running program spends waiting on the grader, told from another thread as it happens.
class GraderWait {
public:
    void begin();
    void end();
    double seconds() const;  // so far, with a wait under way
private:
    std::atomic<double> total_{0}, since_{-1};
};

struct RunResult {
    bool started = false;
    int exit_code = -1;     // when it exited
    int signal = 0;         // when a signal ended it
    bool timed_out = false;
    double wall_s = 0;
    std::string out, err;   // the first keep_output bytes, made valid UTF-8 (invalid bytes as \xNN)
    bool out_truncated = false, err_truncated = false;
    std::string error;      // why it could not start

    bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
    std::string describe() const;  // "exit 0", "killed by SIGSEGV", "timed out after 5.0 s"
};

// A program started and not yet waited for: it runs beside the grader (a kept verifier answers
// many requests in one run) until wait() or stop(). Never copied; one not waited for is stopped
// when it is destroyed.
class RunningProcess {
public:
    explicit RunningProcess(const RunSpec& spec);  // starts it
    RunningProcess(const RunningProcess&) = delete;
    RunningProcess& operator=(const RunningProcess&) = delete;
    ~RunningProcess();
    bool running() const { return pid_ > 0; }  // started and not yet waited for
    const std::string& error() const { return error_; }  // why it could not start ("": it did)
    // Waits until it ends, killing it (its group with it) once it has run spec.limits.wall_s, not
    // counting its waits on the grader: how it ended (`started` false, and `error`, where it
    // never started).
    RunResult wait();
    // Kills it and its group, and waits for it.
    RunResult stop();

private:
    RunResult end(bool kill_first);
    pid_t pid_ = -1;
    std::string error_;
    double wall_s_;
    size_t keep_output_;
    bool wrapper_exit_is_signal_;
    const GraderWait* grader_wait_;
    std::string out_path_, err_path_;
    std::chrono::steady_clock::time_point t0_;
};

// Runs `spec` to its end (RunningProcess, waited for).
RunResult run_process(const RunSpec& spec);

// Runs a trusted tool (make, nm, nvcc --version) with the grader's environment (`env_override`:
// "NAME=value" entries that replace or add to it) and returns what it printed.
RunResult run_trusted(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s,
                      const std::string& scratch_dir, const std::vector<std::string>& env_override = {});

// Kills every process this one still has as a child (orphans of a run are re-parented to the
// grader, a child subreaper) and reaps them, but for the runs of run_process still in flight on
// other threads and the processes of their sessions. Called after each run.
void reap_strays();
// Makes the grader a child subreaper so that grandchildren that escape their process group
// still come back to it.
void become_subreaper();

// The unprivileged identity submissions run as when the grader is root: a fixed id outside the
// ranges of user and system accounts, needing no account (nobody, 65534, would share its
// processes and files with daemons). describe() names an account that has it after all.
constexpr uid_t kSandboxUid = 64000;
constexpr gid_t kSandboxGid = 64000;
// Each grading run on the machine, and each of its --gpus workers, takes one of the identities
// kSandboxUid .. kSandboxUid + kSandboxIdentities - 1 (gids alike) under a lock (machine_locks.h).
constexpr int kSandboxIdentities = 256;

struct Isolation {
    IsolationLevel level = IsolationLevel::Unsafe;
    std::string bwrap;               // path of bwrap at the Bwrap level
    uid_t uid = kSandboxUid;         // who the program runs as, when the grader is root
    gid_t gid = kSandboxGid;
    std::vector<std::string> readonly;  // visible read-only (the CUDA toolkit, the trace library)
    std::vector<std::string> hidden;    // not visible (the trusted tree, results, submissions)
    // At the Bwrap level, the device nodes a run sees beside /dev's basic ones (null, zero,
    // random, a tty, shm): its own GPU's and the driver's (gpu_nodes.h). Empty: the whole /dev.
    std::vector<std::string> devices;

    // One line for the reports: what is hidden, who the program runs as.
    std::string describe() const;
    // Whether programs run as `uid`:`gid` (else as the grader's own user).
    bool changes_user() const;
    // Fills `spec` to run `argv` in this isolation: argv (bwrap's prefix where used), cwd =
    // `workdir`, the child-side confinement. `workdir` and `extra_rw` are writable, argv[0]
    // (when absolute) and `extra_ro` read-only (the program may live in a hidden folder);
    // `inner_env` ("NAME=value") is set for the program only (under bwrap, not for bwrap itself,
    // so that LD_PRELOAD reaches the program). spec.env, limits, output paths and inherit_fds
    // are left as set. The run folder must come from prepare_run_folder.
    void apply(RunSpec& spec, const std::vector<std::string>& argv, const std::string& workdir,
               const std::vector<std::string>& extra_rw = {}, const std::vector<std::string>& inner_env = {},
               const std::vector<std::string>& extra_ro = {}) const;
    // bubblewrap's command line alone (no uid change): apply() is the whole of a run.
    std::vector<std::string> wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                  const std::vector<std::string>& extra_rw = {},
                                  const std::vector<std::string>& inner_env = {}) const;
};

struct IsolationPaths {
    std::vector<std::string> hidden;    // the trusted tree, the results folder, submissions
    std::vector<std::string> readonly;  // the CUDA toolkit, the trace library
    // Where the probe runs (a folder like the real run folders, e.g. OUT/work/.probe; created
    // and removed). Empty: a fresh folder in /tmp.
    std::string probe_dir;
    // bwrap to use; empty: /usr/bin/bwrap, /bin/bwrap, /usr/local/bin/bwrap, then $PATH;
    // "none": as if bubblewrap were not installed.
    std::string bwrap;
    // Who the programs run as when the grader is root (this run's own identity).
    uid_t uid = kSandboxUid;
    gid_t gid = kSandboxGid;
    // Pauses between attempts of a probe that failed (seconds): a level is refused only when its
    // probe fails every time, never for a passing refusal (a process limit, a busy moment).
    std::vector<double> probe_pauses_s = {0.5, 2};
};

// The first folder on the way to `path` (or `path` itself) that uid:gid may not enter, "" when it
// may enter all of them: a bubblewrap started as that user cannot bind what lies past such a
// folder (a private home folder, a 0700 parent).
std::string unenterable_folder(const std::string& path, uid_t uid, gid_t gid);

// The isolation to grade with, chosen once per grading run and never changed during it.
// `requested`: "auto" or "bwrap" (bubblewrap), or "uid" or "unsafe" (only ever by name: nothing
// falls back to them). The level is probed (a small program run in it), again after each pause
// when it fails. Where it does not work, throws cudalabs::UsageError: one sentence saying what
// failed and what to do (for bubblewrap: install it, allow unprivileged user namespaces, or
// choose --isolation uid, and what that gives up).
Isolation choose_isolation(const std::string& requested, const IsolationPaths& paths);

// Runs a small program in `iso` with `dir` as its run folder: "" when it works, else why not.
std::string probe_isolation(const Isolation& iso, const std::string& dir);

// Creates a run folder (and its tmp/, the program's TMPDIR) owned by the identity the program
// runs as, mode 0700: the program writes there, the grader (root) still reads it. Only these
// two are changed (never anything a previous run left inside them).
void prepare_run_folder(const std::string& path, const Isolation& iso);
// Gives a run folder back to the grader (owner, mode 0700), so that later runs under the same
// identity (the "uid" level hides nothing) cannot reach it.
void release_run_folder(const std::string& path);

// The scrubbed environment of a run: PATH with the CUDA toolkit, HOME and TMPDIR in the
// working directory, CUDA_VISIBLE_DEVICES passed through; nothing else of the grader's.
std::vector<std::string> scrubbed_env(const std::string& workdir, const std::string& cuda_bin);

}  // namespace grading
