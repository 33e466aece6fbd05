// Running a program: its own session and process group, resource limits, a wall-clock limit that
// kills the whole group, only the descriptors it is given, output captured to bounded files and
// made valid UTF-8; the grader as a child subreaper that sweeps what a run leaves behind; trusted
// tools run with the grader's environment. How a run is kept apart from the grader is the
// isolation's (isolation/isolation.h). Host-only: unit-tested with stand-ins.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

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

// Sets NAME=value in an environment list ("NAME=value" entries), replacing an entry of that name.
void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value);

}  // namespace grading
