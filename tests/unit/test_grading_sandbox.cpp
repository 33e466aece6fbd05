// The grader's process runner (grading/src/sandbox.h), with CPU-only stand-ins for student
// programs: exit codes and signals, time limits that kill the whole process group, strays that
// escape the group, output and file-size limits, the scrubbed environment.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "grading/src/sandbox.h"

using namespace grading;

namespace {
std::string scratch() {
    static std::string dir;
    if (dir.empty()) {
        char tmpl[] = "/tmp/grading-test-XXXXXX";
        dir = mkdtemp(tmpl);
    }
    return dir;
}

RunResult sh(const std::string& script, double wall_s = 10, Limits lim = {}) {
    RunSpec s;
    s.argv = {"/bin/sh", "-c", script};
    s.cwd = scratch() + "/run";
    s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
    s.limits = lim;
    s.limits.wall_s = wall_s;
    return run_process(s);
}

bool alive(long pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    size_t paren = line.rfind(')');
    return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] != 'Z';
}

long read_pid(const std::string& name) {
    std::ifstream f(scratch() + "/run/" + name);
    long pid = 0;
    f >> pid;
    return pid;
}
}  // namespace

TEST_CASE("exit codes, signals and output are reported") {
    RunResult ok = sh("echo hello; echo oops >&2; exit 0");
    CHECK(ok.started);
    CHECK(ok.ok());
    CHECK(ok.out == "hello\n");
    CHECK(ok.err == "oops\n");
    CHECK(ok.describe() == "exit 0");

    RunResult three = sh("exit 3");
    CHECK_FALSE(three.ok());
    CHECK(three.exit_code == 3);

    RunResult segv = sh("kill -SEGV $$");
    CHECK(segv.signal == SIGSEGV);
    CHECK(segv.describe() == "killed by SIGSEGV");

    RunSpec missing;
    missing.argv = {scratch() + "/no-such-program"};
    missing.cwd = scratch() + "/run";
    RunResult r = run_process(missing);
    CHECK_FALSE(r.started);
    CHECK(r.describe().find("could not start") == 0);
    CHECK(r.error.find("No such file") != std::string::npos);
}

TEST_CASE("the time limit kills the program and everything in its process group") {
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = sh("sleep 30 & echo $! > child.pid; sleep 30", 0.5);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.timed_out);
    CHECK_FALSE(r.ok());
    CHECK(took < 5);
    CHECK(r.describe().find("timed out after") == 0);
    long child = read_pid("child.pid");
    REQUIRE(child > 0);
    reap_strays();
    for (int i = 0; i < 100 && alive(child); ++i) usleep(10000);
    CHECK_FALSE(alive(child));
}

TEST_CASE("a background process left behind by a finished run is killed too") {
    become_subreaper();  // as the grader does: orphans come back to us
    RunResult r = sh("setsid sleep 30 > /dev/null 2>&1 & echo $! > escaped.pid; exit 0");
    CHECK(r.ok());
    long escaped = read_pid("escaped.pid");
    REQUIRE(escaped > 0);
    usleep(100000);  // let setsid move it out of the group
    reap_strays();
    for (int i = 0; i < 100 && alive(escaped); ++i) usleep(10000);
    CHECK_FALSE(alive(escaped));
}

TEST_CASE("output is kept up to the limit, and files cannot grow past theirs") {
    Limits lim;
    lim.keep_output = 1000;
    RunResult big = sh("head -c 200000 /dev/zero | tr '\\0' x", 10, lim);
    CHECK(big.ok());
    CHECK(big.out.size() == 1000);
    CHECK(big.out_truncated);

    Limits small;
    small.file_mb = 1;
    RunResult file = sh("head -c 3000000 /dev/zero > big.bin", 10, small);
    CHECK_FALSE(file.ok());  // SIGXFSZ or a write error
    struct stat st;
    REQUIRE(stat((scratch() + "/run/big.bin").c_str(), &st) == 0);
    CHECK(st.st_size <= (1 << 20));
}

TEST_CASE("the environment is scrubbed") {
    setenv("GRADER_SECRET", "do-not-leak", 1);
    RunResult r = sh("env");
    CHECK(r.ok());
    CHECK(r.out.find("GRADER_SECRET") == std::string::npos);
    CHECK(r.out.find("HOME=" + scratch() + "/run") != std::string::npos);
    CHECK(r.out.find("PATH=/usr/local/cuda/bin:") != std::string::npos);
    unsetenv("GRADER_SECRET");
}

TEST_CASE("bubblewrap command lines hide everything but the system and the working folder") {
    Isolation none;
    CHECK(none.wrap({"prog", "--x"}, "/w") == std::vector<std::string>{"prog", "--x"});
    Isolation bw;
    bw.level = "bwrap";
    bw.bwrap = "/usr/bin/bwrap";
    bw.readonly = {"/opt/cuda"};
    auto argv = bw.wrap({"/w/prog", "--x"}, "/w", {"/private/trace.txt"});
    auto joined = std::string();
    for (auto& a : argv) joined += a + " ";
    CHECK(argv.front() == "/usr/bin/bwrap");
    CHECK(joined.find("--unshare-all") != std::string::npos);  // network, PIDs, IPC
    CHECK(joined.find("--die-with-parent") != std::string::npos);
    CHECK(joined.find("--ro-bind-try /opt/cuda /opt/cuda") != std::string::npos);
    CHECK(joined.find("--bind /private/trace.txt /private/trace.txt") != std::string::npos);
    CHECK(joined.find("--bind /w /w --chdir /w -- /w/prog --x") != std::string::npos);
    CHECK(joined.find("--bind / ") == std::string::npos);
}
