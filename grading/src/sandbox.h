// Running an untrusted program: its own process group, resource limits, a wall-clock limit that
// kills the whole group, a scrubbed environment, a private working directory, output captured
// to bounded files; and, where the machine allows it, bubblewrap (no network, only the system,
// the CUDA toolkit and the working directory visible). Host-only: unit-tested with stand-ins.
#pragma once
#include <string>
#include <vector>

namespace grading {

struct Limits {
    double wall_s = 60;          // then SIGKILL to the whole process group
    long cpu_s = 0;              // RLIMIT_CPU; 0: none
    long mem_mb = 0;             // RLIMIT_DATA (writable private memory); 0: none
    long file_mb = 1024;         // RLIMIT_FSIZE; 0: none
    long processes = 0;          // RLIMIT_NPROC; 0: none (not enforced for root)
    long open_files = 1024;      // RLIMIT_NOFILE
    size_t keep_output = 64 << 10;  // bytes of stdout and of stderr kept for the feedback
};

struct RunSpec {
    std::vector<std::string> argv;
    std::string cwd;                 // created if missing
    std::vector<std::string> env;    // the whole environment, "NAME=value"
    Limits limits;
    std::string stdout_path, stderr_path;  // where the output goes ("" -> cwd/.stdout, .stderr)
};

struct RunResult {
    bool started = false;
    int exit_code = -1;     // when it exited
    int signal = 0;         // when a signal ended it
    bool timed_out = false;
    double wall_s = 0;
    std::string out, err;   // the first keep_output bytes
    bool out_truncated = false, err_truncated = false;
    std::string error;      // why it could not start

    bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
    std::string describe() const;  // "exit 0", "killed by SIGSEGV", "timed out after 5.0 s"
};

RunResult run_process(const RunSpec& spec);

// Kills every process this one still has as a child (orphans of a run are re-parented to the
// grader, a child subreaper) and reaps them. Called after each run of the serial phase (never while other runs are in flight).
void reap_strays();
// Makes the grader a child subreaper so that grandchildren that escape their process group
// still come back to it.
void become_subreaper();

// Bubblewrap: the command line prefix that runs a program with `workdir` writable, `readonly`
// paths visible read-only, the network and other processes hidden. Empty `bwrap`: none.
struct Isolation {
    std::string level = "rlimits";  // "bwrap" or "rlimits"
    std::string bwrap;               // path of bwrap when level == "bwrap"
    std::vector<std::string> readonly;  // extra paths bound read-only (CUDA, the trace library)
    // `inner_env` ("NAME=value") is set inside the sandbox only (bwrap --setenv), so that
    // LD_PRELOAD and the trace's variables reach the program, not bwrap itself.
    std::vector<std::string> wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                  const std::vector<std::string>& extra_rw = {},
                                  const std::vector<std::string>& inner_env = {}) const;
};

// The scrubbed environment of a run: PATH with the CUDA toolkit, HOME and TMPDIR in the
// working directory, CUDA_VISIBLE_DEVICES passed through; nothing else of the grader's.
std::vector<std::string> scrubbed_env(const std::string& workdir, const std::string& cuda_bin);

}  // namespace grading
