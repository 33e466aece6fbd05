// The grader's process runner (grading/src/isolation/isolation.h), with CPU-only stand-ins for student
// programs: exit codes and signals, time limits that kill the whole process group, strays that
// escape the group, output and file-size limits, the scrubbed environment, inherited
// descriptors; and the isolation levels, each attacked by shell stand-ins that try what a
// hostile submission would (signal the grader, read the trusted tree, write outside their run
// folder, stay alive). Tests that need root or bubblewrap say so and stop where the machine
// lacks them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/args.h"
#include "grading/src/gpu/gpu_nodes.h"
#include "grading/src/gpu/gpus.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"

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

TEST_CASE("inherited descriptors arrive at their numbers, and no other descriptor of the grader does") {
    int one[2], two[2];
    REQUIRE(pipe2(one, O_CLOEXEC) == 0);
    REQUIRE(pipe2(two, O_CLOEXEC) == 0);
    // Sources at each other's target numbers: neither may overwrite the other on the way. (Under
    // make, its jobserver may hold low numbers: any two free ones will do; the shell writes to
    // them by their /proc/self/fd names, since it takes single-digit numbers only.)
    std::vector<int> free_fds;
    for (int fd = 60; fd >= 3 && free_fds.size() < 2; --fd)
        if (fcntl(fd, F_GETFD) < 0) free_fds.push_back(fd);
    REQUIRE(free_fds.size() == 2);
    const int a = free_fds[0], b = free_fds[1];
    REQUIRE(dup3(one[1], a, O_CLOEXEC) == a);
    REQUIRE(dup3(two[1], b, O_CLOEXEC) == b);
    int leak = open("/dev/null", O_RDONLY);  // not close-on-exec, as a careless library's would be
    REQUIRE(leak >= 0);
    RunSpec s;
    s.argv = {"/bin/sh", "-c", "echo one > /proc/self/fd/" + std::to_string(b) + "; echo two > /proc/self/fd/" + std::to_string(a) +
                                   "; [ -e /proc/self/fd/" + std::to_string(leak) + " ] && echo LEAKED; exit 0"};
    s.cwd = scratch() + "/run";
    s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
    s.inherit_fds = {{a, b}, {b, a}};
    RunResult r = run_process(s);
    for (int fd : {one[1], two[1], a, b, leak}) close(fd);
    char buf[64] = {};
    CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
    CHECK(read(one[0], buf, sizeof buf - 1) == 4);
    CHECK(std::string(buf) == "one\n");
    std::fill(buf, buf + sizeof buf, 0);
    CHECK(read(two[0], buf, sizeof buf - 1) == 4);
    CHECK(std::string(buf) == "two\n");
    CHECK(r.out.find("LEAKED") == std::string::npos);
    close(one[0]);
    close(two[0]);

    RunSpec bad = s;
    bad.inherit_fds = {{0, 1}};  // the program's own stdout
    CHECK_FALSE(run_process(bad).started);
}

TEST_CASE("starts from several threads leave the grader's descriptors and signal mask as they were") {
    // The child shares the grader's memory until it execs: it must work on copies of its own.
    // A child that wrote the grader's plan would make the grader close a descriptor of its own
    // or never see a failed start end; one whose start left signals blocked would deafen the
    // grader's thread.
    std::vector<int> mine;
    std::vector<ino_t> inodes;
    for (int i = 0; i < 6; ++i) {
        int p[2];
        REQUIRE(pipe2(p, O_CLOEXEC) == 0);
        for (int fd : p) {
            struct stat st;
            REQUIRE(fstat(fd, &st) == 0);
            mine.push_back(fd);
            inodes.push_back(st.st_ino);
        }
    }
    sigset_t mask_before;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_before);
    std::vector<std::string> wrong(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < wrong.size(); ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 12; ++i) {
                RunSpec s;
                s.cwd = scratch() + "/starts-" + std::to_string(t);
                s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
                const bool missing = i % 3 == 0;
                s.argv = {missing ? "/nonexistent/program" : "/bin/sh", "-c", "exit " + std::to_string(i)};
                if (i % 2) s.inherit_fds = {{mine[2 * t + 1], 9}};
                const RunResult r = run_process(s);
                if (missing && (r.started || r.error.find("cannot run /nonexistent/program") == std::string::npos))
                    wrong[t] = "a missing program: " + r.describe();
                else if (!missing && r.exit_code != i)
                    wrong[t] = "exit " + std::to_string(i) + " came back as " + r.describe();
            }
        });
    for (std::thread& t : threads) t.join();
    for (size_t t = 0; t < wrong.size(); ++t) CHECK_MESSAGE(wrong[t].empty(), "thread " << t << ": " << wrong[t]);
    for (size_t i = 0; i < mine.size(); ++i) {
        struct stat st;
        CHECK(fstat(mine[i], &st) == 0);
        CHECK(st.st_ino == inodes[i]);
        close(mine[i]);
    }
    sigset_t mask_after;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_after);
    for (int sig = 1; sig < NSIG; ++sig) CHECK(sigismember(&mask_after, sig) == sigismember(&mask_before, sig));
}

// ---- isolation levels, attacked ----------------------------------------------------------------

namespace {

// A grader-like layout outside /tmp (bubblewrap gives the program a /tmp of its own, which would
// hide everything there and so prove nothing about the hidden paths):
//   trusted/         hidden: a world-readable and a private file, a world-writable folder,
//                    the program in trusted/bin/prog
//   others/bob-run/  hidden: another submission's run folder
//   open/            not hidden, world-writable: only the read-only file system protects it
//   run/             the submission's own run folder
struct Layout {
    std::string base, trusted, others, open, run, program;
    Layout() {
        char tmpl[] = "/var/tmp/grading-iso-XXXXXX";
        char fallback[] = "/tmp/grading-iso-XXXXXX";  // (then the /tmp checks prove less)
        const char* made = mkdtemp(tmpl);
        base = made ? made : mkdtemp(fallback);
        chmod(base.c_str(), 0755);  // passable for the sandbox's user, as the grader's out folder
        trusted = base + "/trusted";
        others = base + "/others";
        open = base + "/open";
        run = base + "/run";
        program = trusted + "/bin/prog";
        for (const std::string& d : {trusted, trusted + "/bin", trusted + "/open", others, others + "/bob-run", open})
            mkdir(d.c_str(), 0755);
        chmod((trusted + "/open").c_str(), 0777);
        chmod(open.c_str(), 0777);
        write(trusted + "/public.txt", "public solution\n", 0644);
        write(trusted + "/private.txt", "private key\n", 0600);
        write(others + "/bob-run/answer.txt", "bob's answer\n", 0644);
        // The program: reports that it ran, then tries to replace itself (as a submission replaced
        // the trusted ./sol08 once).
        write(program, "#!/bin/sh\necho PROGRAM_RAN\necho 'echo evil' >> \"$0\" && echo WROTE_PROGRAM\nexit 0\n", 0755);
    }
    ~Layout() {
        if (base.size() > 20) std::system(("rm -rf '" + base + "'").c_str());
    }
    static void write(const std::string& path, const std::string& text, mode_t mode) {
        std::ofstream(path) << text;
        chmod(path.c_str(), mode);
    }
};

Layout& layout() {
    static Layout l;
    return l;
}

std::string real(const std::string& p) {
    char buf[PATH_MAX];
    return realpath(p.c_str(), buf) ? buf : p;
}

bool exists_path(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
}

std::string slurp(const std::string& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// bubblewrap's path when it runs here as the sandbox's user (as root) or as us.
std::string usable_bwrap() {
    std::string bw;
    for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"})
        if (access(p, X_OK) == 0) { bw = p; break; }
    if (bw.empty()) return "";
    pid_t c = fork();
    if (c == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        if (geteuid() == 0 && (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, kSandboxGid, kSandboxGid, kSandboxGid) != 0 ||
                               syscall(SYS_setresuid, kSandboxUid, kSandboxUid, kSandboxUid) != 0))
            _exit(1);
        execl(bw.c_str(), bw.c_str(), "--unshare-all", "--ro-bind", "/", "/", "/bin/true", nullptr);
        _exit(1);
    }
    int st = 0;
    waitpid(c, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? bw : "";
}

// The levels this machine can test, each with the layout's hidden paths.
std::vector<Isolation> testable_levels() {
    static std::vector<Isolation> levels;
    static bool done = false;
    if (done) return levels;
    done = true;
    Layout& l = layout();
    auto make = [&](IsolationLevel level) {
        Isolation iso;
        iso.level = level;
        iso.hidden = {l.trusted, l.others};
        return iso;
    };
    if (std::string bw = usable_bwrap(); !bw.empty()) {
        Isolation iso = make(IsolationLevel::Bwrap);
        iso.bwrap = bw;
        levels.push_back(iso);
    } else {
        MESSAGE("bubblewrap not installed or not usable here: its isolation is not tested");
    }
    if (geteuid() == 0) levels.push_back(make(IsolationLevel::Uid));
    else MESSAGE("not root: the uid level is not tested");
    return levels;
}

bool hides(const Isolation& iso) { return iso.level == IsolationLevel::Bwrap; }

RunResult run_in(const Isolation& iso, const std::string& script, double wall_s = 10,
                 const std::vector<std::pair<int, int>>& fds = {}, const std::vector<std::string>& argv_in = {}) {
    Layout& l = layout();
    prepare_run_folder(l.run, iso);
    RunSpec s;
    s.env = scrubbed_env(l.run, "/usr/local/cuda/bin");
    std::vector<std::string> argv = argv_in.empty() ? std::vector<std::string>{"/bin/sh", "-c", script} : argv_in;
    iso.apply(s, argv, l.run);
    s.stdout_path = l.base + "/stdout";  // as the grader's: outside the run folder
    s.stderr_path = l.base + "/stderr";
    s.inherit_fds = fds;
    s.limits.wall_s = wall_s;
    return run_process(s);
}

// A word no other process has on its command line (other test runs may share the machine and
// the sandbox's user): `sleep` takes it as a number of seconds.
std::string unique_seconds() {
    static int n = 0;
    return "97." + std::to_string(getpid()) + std::to_string(n++);
}

bool process_with_argument(const std::string& word) {
    DIR* proc = opendir("/proc");
    bool found = false;
    while (dirent* d = proc ? readdir(proc) : nullptr) {
        char* end = nullptr;
        long pid = std::strtol(d->d_name, &end, 10);
        if (pid <= 0 || *end) continue;
        std::string cmdline = slurp(std::string("/proc/") + d->d_name + "/cmdline");
        for (char& c : cmdline) if (c == '\0') c = ' ';
        if ((" " + cmdline).find(" " + word + " ") != std::string::npos && alive(pid)) found = true;
    }
    if (proc) closedir(proc);
    return found;
}

bool gone_within(const std::string& word, double seconds) {
    for (int i = 0; i < seconds * 100 && process_with_argument(word); ++i) usleep(10000);
    return !process_with_argument(word);
}

// A process as the grader's user, or (as root) as the sandbox's.
pid_t spawn_sleeper(bool as_sandbox_user) {
    pid_t c = fork();
    if (c == 0) {
        if (as_sandbox_user && geteuid() == 0 && (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, kSandboxGid, kSandboxGid, kSandboxGid) != 0 ||
                                syscall(SYS_setresuid, kSandboxUid, kSandboxUid, kSandboxUid) != 0))
            _exit(1);
        execl("/bin/sleep", "sleep", "30", nullptr);
        _exit(1);
    }
    return c;
}

void end_sleeper(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

}  // namespace

TEST_CASE("bubblewrap command lines hide everything but the system and the run folder") {
    Isolation none;
    CHECK(none.wrap({"prog", "--x"}, "/w") == std::vector<std::string>{"prog", "--x"});
    const std::string base = real(layout().base), run = base + "/run", prog = run + "/prog", cuda = base + "/cuda";
    mkdir(cuda.c_str(), 0755);
    mkdir(run.c_str(), 0700);
    std::ofstream(prog) << "";
    Isolation bw;
    bw.level = IsolationLevel::Bwrap;
    bw.bwrap = "/usr/bin/bwrap";
    bw.readonly = {cuda, "/usr/lib", "/usr/bin/env", base + "/no-such-library.so"};
    bw.hidden = {"/usr/bin", base + "/trusted"};  // one inside the system folders bound, one outside
    RunSpec spec;
    bw.apply(spec, {prog, "--x"}, run, {base + "/trace.txt"}, {"LD_PRELOAD=/t.so"});
    unlink(prog.c_str());
    auto joined = std::string();
    for (auto& a : spec.argv) joined += a + " ";
    CHECK(spec.argv.front() == "/usr/bin/bwrap");
    CHECK(spec.cwd == run);
    CHECK(spec.wrapper_exit_is_signal);
    CHECK(joined.find("--unshare-all") != std::string::npos);  // network, PIDs, IPC
    CHECK(joined.find("--die-with-parent") != std::string::npos);
    CHECK(joined.find("--tmpfs /dev/shm") != std::string::npos);  // /dev comes whole for the GPU
    CHECK(joined.find("--tmpfs /usr/bin") != std::string::npos);
    CHECK(joined.find("--ro-bind-try /usr/bin/env /usr/bin/env") > joined.find("--tmpfs /usr/bin"));  // shown again
    CHECK(joined.find("/usr/lib /usr/lib") == std::string::npos);  // visible already
    CHECK(joined.find("trusted") == std::string::npos);           // not visible anyway
    CHECK(joined.find("no-such-library") == std::string::npos);
    CHECK(joined.find("--ro-bind-try " + cuda + " " + cuda) != std::string::npos);
    CHECK(joined.find("--bind " + base + "/trace.txt " + base + "/trace.txt") != std::string::npos);
    CHECK(joined.find("--setenv LD_PRELOAD /t.so") != std::string::npos);
    // The run folder first, then the program inside it read-only (a later bind would cover it).
    CHECK(joined.find("--bind " + run + " " + run) < joined.find("--ro-bind-try " + prog + " " + prog));
    CHECK(joined.find("--remount-ro / --chdir " + run + " -- " + prog + " --x") != std::string::npos);
    CHECK(joined.find("--bind / ") == std::string::npos);
    // As root, bubblewrap itself is started as the sandbox's user (by root it would keep root).
    if (geteuid() == 0) {
        CHECK(spec.confine.drop_ids);
        CHECK(spec.confine.uid == kSandboxUid);
        CHECK(joined.find("--uid 64000 --gid 64000 --cap-drop ALL") != std::string::npos);
    } else {
        CHECK_FALSE(spec.confine.drop_ids);
        CHECK(joined.find("--uid") == std::string::npos);
    }
}

TEST_CASE("a GPU's device nodes: the driver's own and that GPU's, found by its UUID in the driver's folder") {
    char tmpl[] = "/tmp/grading-gpu-nodes-XXXXXX";
    const std::string dir = mkdtemp(tmpl), driver = dir + "/gpus", dev = dir + "/dev";
    mkdir(driver.c_str(), 0755);
    mkdir(dev.c_str(), 0755);
    auto gpu = [&](const std::string& bus, const std::string& uuid, const std::string& minor) {
        mkdir((driver + "/" + bus).c_str(), 0755);
        std::ofstream(driver + "/" + bus + "/information") << "Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\nGPU UUID: \t " << uuid
                                                           << "\nBus Location: \t " << bus << "\nDevice Minor: \t " << minor << "\nGPU Excluded:\t No\n";
    };
    gpu("0000:18:00.0", "GPU-aaaa-1111", "0");
    gpu("0000:2a:00.0", "GPU-bbbb-2222", "1");
    gpu("0000:3b:00.0", "GPU-cccc-3333", "2");  // its node is missing
    gpu("0000:4c:00.0", "GPU-dddd-4444", "x");  // a minor that is not a number
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-nvswitch0", "null", "nvidia12"})
        std::ofstream(dev + "/" + node) << "";
    mkdir((dev + "/nvidia-caps").c_str(), 0755);

    CHECK(gpu_minor_number("GPU-aaaa-1111", driver) == 0);
    CHECK(gpu_minor_number("GPU-bbbb-2222", driver) == 1);
    CHECK(gpu_minor_number("GPU-bbbb", driver) == -1);  // the whole UUID, not a prefix
    CHECK(gpu_minor_number("GPU-dddd-4444", driver) == -1);
    CHECK(gpu_minor_number("", driver) == -1);
    CHECK(gpu_minor_number("GPU-aaaa-1111", dir + "/no-such-folder") == -1);
    const std::vector<std::string> second = {dev + "/nvidia-caps", dev + "/nvidia-nvswitch0", dev + "/nvidia-uvm",
                                             dev + "/nvidia-uvm-tools", dev + "/nvidia1", dev + "/nvidiactl"};
    CHECK(gpu_device_nodes("GPU-bbbb-2222", driver, dev) == second);  // not nvidia0, nvidia12, null
    const std::vector<std::string> first = gpu_device_nodes("GPU-aaaa-1111", driver, dev);
    CHECK(std::count(first.begin(), first.end(), dev + "/nvidia0") == 1);
    CHECK(std::count(first.begin(), first.end(), dev + "/nvidia1") == 0);
    // Unknown: the whole /dev, as without the rule.
    CHECK(gpu_device_nodes("GPU-cccc-3333", driver, dev).empty());
    CHECK(gpu_device_nodes("MIG-aaaa-1111", driver, dev).empty());
    CHECK(gpu_device_nodes("", driver, dev).empty());
    remove_tree(dir);
}

TEST_CASE("bubblewrap command lines: /dev whole, or its basic nodes and the GPU's alone") {
    Isolation bw;
    bw.level = IsolationLevel::Bwrap;
    bw.bwrap = "/usr/bin/bwrap";
    auto joined = [](const std::vector<std::string>& argv) {
        std::string j;
        for (const std::string& a : argv) j += a + " ";
        return j;
    };
    const std::string whole = joined(bw.wrap({"prog"}, "/w"));
    CHECK(whole.find("--dev-bind /dev /dev") != std::string::npos);
    CHECK(whole.find("--dev /dev") == std::string::npos);
    CHECK(bw.describe().find("/sys, /dev, the CUDA toolkit") != std::string::npos);
    bw.devices = {"/dev/nvidia-uvm", "/dev/nvidia1", "/dev/nvidiactl"};
    const std::string own = joined(bw.wrap({"prog"}, "/w"));
    CHECK(own.find("--dev-bind /dev /dev") == std::string::npos);
    CHECK(own.find("--dev /dev --dev-bind /dev/nvidia-uvm /dev/nvidia-uvm --dev-bind /dev/nvidia1 /dev/nvidia1 --dev-bind /dev/nvidiactl /dev/nvidiactl") !=
          std::string::npos);
    CHECK(own.find("--dev /dev") < own.find("--tmpfs /dev/shm"));  // its private shm on the new /dev
    CHECK(bw.describe().find("/dev's basic nodes and its own GPU's") != std::string::npos);
}

TEST_CASE("isolation: a run shown its GPU's nodes alone sees no other node of the machine's /dev") {
    const std::string bw = usable_bwrap();
    if (bw.empty()) {
        MESSAGE("bubblewrap not usable here: the device nodes are not tested");
        return;
    }
    // Two nodes of this machine that bubblewrap's own /dev lacks stand for two GPUs' nodes.
    std::vector<std::string> extra;
    for (const std::string& name : list_dir("/dev")) {
        struct stat st;
        const std::string path = "/dev/" + name;
        if (stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && name.rfind("tty", 0) != 0 &&
            std::string(" null zero full random urandom ptmx console ").find(" " + name + " ") == std::string::npos)
            extra.push_back(path);
    }
    if (extra.size() < 2) {
        MESSAGE("fewer than two other character devices in /dev here: the device nodes are not tested");
        return;
    }
    Isolation iso = testable_levels().front();
    REQUIRE(iso.level == IsolationLevel::Bwrap);
    iso.devices = {extra[0]};
    RunResult r = run_in(iso, "for n in " + extra[0] + " " + extra[1] + " /dev/null; do [ -e $n ] && echo SEEN $n; done; exit 0");
    CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
    CHECK(r.out.find("SEEN " + extra[0] + "\n") != std::string::npos);
    CHECK(r.out.find("SEEN " + extra[1] + "\n") == std::string::npos);
    CHECK(r.out.find("SEEN /dev/null\n") != std::string::npos);
    iso.devices.clear();  // the whole /dev
    r = run_in(iso, "[ -e " + extra[1] + " ] && echo SEEN; exit 0");
    CHECK(r.out.find("SEEN") != std::string::npos);
}

TEST_CASE("isolation: a normal program runs as the sandbox's user, gets its descriptor and writes its run folder") {
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        int channel[2];
        REQUIRE(pipe2(channel, O_CLOEXEC) == 0);
        int leak = open("/dev/null", O_RDONLY);
        RunResult r = run_in(iso, "id -u; echo channel >&3; echo home > \"$HOME/home.txt\"; echo tmp > \"$TMPDIR/t.txt\"; "
                                  "[ -e /proc/self/fd/" + std::to_string(leak) + " ] && echo LEAKED; exit 0",
                             10, {{channel[1], 3}});
        close(channel[1]);
        close(leak);
        char buf[64] = {};
        ssize_t n = read(channel[0], buf, sizeof buf - 1);
        close(channel[0]);
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        const uid_t expected = geteuid() == 0 ? kSandboxUid : geteuid();  // bubblewrap as the grader's user
        CHECK(r.out.rfind(std::to_string(expected) + "\n", 0) == 0);
        CHECK(r.out.find("LEAKED") == std::string::npos);
        CHECK(n == 8);
        CHECK(std::string(buf) == "channel\n");
        struct stat st;
        REQUIRE(stat((layout().run + "/home.txt").c_str(), &st) == 0);
        CHECK(st.st_uid == expected);
        CHECK(slurp(layout().run + "/home.txt") == "home\n");  // the grader reads what it wrote
        CHECK(exists_path(layout().run + "/tmp/t.txt"));
    }
}

TEST_CASE("isolation: the program in a hidden folder runs but cannot be replaced") {
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        const std::string before = slurp(layout().program);
        RunResult r = run_in(iso, "", 10, {}, {layout().program});
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        CHECK(r.out.find("PROGRAM_RAN") != std::string::npos);
        CHECK(r.out.find("WROTE_PROGRAM") == std::string::npos);
        CHECK(slurp(layout().program) == before);
    }
}

TEST_CASE("isolation: the program cannot signal the grader or another run") {
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        pid_t grader_like = spawn_sleeper(false);  // root, as the grader
        pid_t other_run = spawn_sleeper(true);     // the sandbox's user, as another run's program
        usleep(50000);                              // let it change its user
        const std::string script = "kill -0 " + std::to_string(getpid()) + " 2>/dev/null && echo SEES_GRADER; " +
                                   "kill -KILL " + std::to_string(grader_like) + " 2>/dev/null && echo KILLED_GRADER; " +
                                   "kill -KILL " + std::to_string(other_run) + " 2>/dev/null && echo KILLED_OTHER; exit 0";
        RunResult r = run_in(iso, script);
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        CHECK(r.out.find("SEES_GRADER") == std::string::npos);
        CHECK(r.out.find("KILLED_GRADER") == std::string::npos);
        CHECK(alive(grader_like));
        if (hides(iso)) {  // the uid level shares its user with other runs: it says so
            CHECK(r.out.find("KILLED_OTHER") == std::string::npos);
            CHECK(alive(other_run));
        }
        end_sleeper(grader_like);
        end_sleeper(other_run);
    }
}

TEST_CASE("isolation: the trusted tree and other submissions cannot be read or written") {
    Layout& l = layout();
    if (geteuid() == 0) {
        Isolation uid_only;
        uid_only.level = IsolationLevel::Uid;
        prepare_run_folder(l.others + "/bob-run", uid_only);  // used by bob's runs...
        release_run_folder(l.others + "/bob-run");            // ...and taken back after them
    }
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        const std::string t = l.trusted, o = l.others + "/bob-run";
        RunResult r = run_in(iso, "cat " + t + "/public.txt && echo READ_PUBLIC; cat " + t + "/private.txt && echo READ_PRIVATE; " +
                                      "echo x > " + t + "/open/new && echo WROTE_OPEN; echo x > " + t + "/new && echo WROTE_TREE; " +
                                      "ls " + o + " && echo LISTED_OTHER; cat " + o + "/answer.txt && echo READ_OTHER; " +
                                      "echo x > " + o + "/x && echo WROTE_OTHER; exit 0");
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        for (const char* never : {"READ_PRIVATE", "WROTE_TREE", "LISTED_OTHER", "READ_OTHER", "WROTE_OTHER"})
            CHECK_MESSAGE(r.out.find(never) == std::string::npos, never);
        CHECK_FALSE(exists_path(t + "/new"));
        CHECK_FALSE(exists_path(o + "/x"));
        if (hides(iso)) {  // the uid level reads what any user may read: it says so
            CHECK(r.out.find("READ_PUBLIC") == std::string::npos);
            CHECK(r.out.find("WROTE_OPEN") == std::string::npos);
            CHECK_FALSE(exists_path(t + "/open/new"));
        }
        unlink((t + "/open/new").c_str());
    }
}

TEST_CASE("isolation: nothing outside the run folder is writable, and /tmp and /dev/shm are private") {
    Layout& l = layout();
    const std::string mark = "grading-iso-mark-" + std::to_string(getpid());
    for (const Isolation& iso : testable_levels()) {
        if (!hides(iso)) continue;  // the uid level writes where any user may: it says so
        INFO("level " << isolation_level_name(iso.level));
        RunResult r = run_in(iso, "echo x > " + l.open + "/new && echo WROTE_OPEN; echo x > /var/tmp/" + mark + " && echo WROTE_VARTMP; " +
                                      "echo x > /tmp/" + mark + " && echo WROTE_TMP; echo x > /dev/shm/" + mark + " && echo WROTE_SHM; " +
                                      "echo x > " + l.run + "/mine && echo WROTE_RUN; exit 0");
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        CHECK(r.out.find("WROTE_OPEN") == std::string::npos);
        CHECK(r.out.find("WROTE_VARTMP") == std::string::npos);
        CHECK(r.out.find("WROTE_TMP") != std::string::npos);  // its own /tmp...
        CHECK(r.out.find("WROTE_RUN") != std::string::npos);
        CHECK_FALSE(exists_path(l.open + "/new"));
        CHECK_FALSE(exists_path("/var/tmp/" + mark));
        CHECK_FALSE(exists_path("/tmp/" + mark));  // ...that is not the grader's
        CHECK_FALSE(exists_path("/dev/shm/" + mark));
        for (const std::string& p : {l.open + "/new", "/var/tmp/" + mark, "/tmp/" + mark, "/dev/shm/" + mark}) unlink(p.c_str());
    }
}

TEST_CASE("isolation: the program has no network (only a loopback of its own)") {
    auto interfaces = [](const std::string& proc_net_dev) {  // lines naming an interface: "  eth0: ..."
        return std::count(proc_net_dev.begin(), proc_net_dev.end(), ':');
    };
    if (interfaces(slurp("/proc/net/dev")) < 2) {
        MESSAGE("this machine has no network interface but loopback: nothing to hide");
        return;
    }
    for (const Isolation& iso : testable_levels()) {
        if (!hides(iso)) continue;  // the uid level has the network: it says so
        INFO("level " << isolation_level_name(iso.level));
        RunResult r = run_in(iso, "cat /proc/net/dev");
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        CHECK(interfaces(r.out) == 1);
        CHECK(r.out.find("lo:") != std::string::npos);
    }
}

TEST_CASE("isolation: no process of a run outlives it") {
    become_subreaper();  // as the grader does
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        const std::string run = layout().run;
        unlink((run + "/late1").c_str());
        unlink((run + "/late2").c_str());
        const std::string stray = unique_seconds();
        RunResult r = run_in(iso, "(sleep 0.3; echo late > \"$HOME/late1\") & "
                                  "setsid sh -c 'sleep 0.3; echo late > \"$HOME/late2\"' > /dev/null 2>&1 & "
                                  "setsid sleep " + stray + " > /dev/null 2>&1 & exit 0");
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        reap_strays();
        CHECK(gone_within(stray, 1));
        usleep(500000);  // past the time the strays would have written
        CHECK_FALSE(exists_path(run + "/late1"));
        CHECK_FALSE(exists_path(run + "/late2"));

        const std::string hung = unique_seconds();
        RunResult slow = run_in(iso, "sleep " + hung + " & sleep " + hung, 0.3);
        CHECK(slow.timed_out);
        CHECK(slow.wall_s < 5);
        reap_strays();
        CHECK(gone_within(hung, 2));
    }
}

TEST_CASE("isolation: exit codes and signals come through a PID namespace") {
    for (const Isolation& iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        RunResult three = run_in(iso, "exit 3");
        CHECK(three.exit_code == 3);
        RunResult segv = run_in(iso, "kill -SEGV $$");
        CHECK(segv.signal == SIGSEGV);
        RunResult missing = run_in(iso, "", 10, {}, {layout().base + "/no-such-program"});
        CHECK_FALSE(missing.ok());
    }
}

namespace {

// The sentence choose_isolation stops the grader with ("" when it chose a level).
std::string refusal(const std::string& requested, const IsolationPaths& paths) {
    try {
        choose_isolation(requested, paths);
    } catch (const cudalabs::UsageError& e) {
        return e.what();
    }
    return "";
}

bool one_sentence(const std::string& s) {
    return !s.empty() && s.find('\n') == std::string::npos && s.find(". ") == std::string::npos && s.back() != '.';
}

}  // namespace

TEST_CASE("choosing the isolation: auto is bubblewrap; uid and unsafe are taken only by name") {
    IsolationPaths paths;
    paths.hidden = {layout().trusted};
    paths.bwrap = "none";  // as on a machine without bubblewrap
    paths.probe_pauses_s = {0.01};
    Isolation unsafe = choose_isolation("unsafe", paths);
    CHECK(unsafe.level == IsolationLevel::Unsafe);
    CHECK(unsafe.describe().rfind("UNSAFE", 0) == 0);
    CHECK(refusal("sandbox", paths).find("unknown isolation level") != std::string::npos);
    CHECK(refusal("namespaces", paths).find("unknown isolation level") != std::string::npos);
    CHECK_FALSE(refusal("auto", paths).empty());  // never uid or unsafe without asking
    CHECK_FALSE(refusal("bwrap", paths).empty());
    for (IsolationLevel level : {IsolationLevel::Bwrap, IsolationLevel::Uid, IsolationLevel::Unsafe})
        CHECK(isolation_level_named(isolation_level_name(level)) == level);
    CHECK_FALSE(isolation_level_named("auto"));
    CHECK_FALSE(isolation_level_named("namespaces"));

    if (geteuid() == 0) {
        Isolation by_name = choose_isolation("uid", paths);
        CHECK(by_name.level == IsolationLevel::Uid);
        CHECK(by_name.describe().find("read every file that any user may read") != std::string::npos);
        // The identity to run as is this run's own; the report is the same whichever it is.
        paths.uid = kSandboxUid + 7;
        paths.gid = kSandboxGid + 7;
        Isolation own = choose_isolation("uid", paths);
        CHECK(own.uid == kSandboxUid + 7);
        CHECK(own.describe() == by_name.describe());
        paths.uid = kSandboxUid;
        paths.gid = kSandboxGid;
        if (std::string bw = usable_bwrap(); !bw.empty()) {
            paths.bwrap = bw;
            Isolation chosen = choose_isolation("auto", paths);
            CHECK(chosen.level == IsolationLevel::Bwrap);
            CHECK(chosen.describe().find("a user of its own (uid " + std::to_string(kSandboxUid) + " to") != std::string::npos);
            CHECK(choose_isolation("bwrap", paths).describe() == chosen.describe());
        }
    } else {
        CHECK(refusal("uid", paths).find("needs the grader to run as root") != std::string::npos);
    }
}

TEST_CASE("choosing the isolation: where bubblewrap cannot run, one sentence says what failed and what to do") {
    char tmpl[] = "/tmp/grading-nobwrap-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    chmod(dir.c_str(), 0755);  // the sandbox's user (as root) starts the stand-in
    IsolationPaths paths;
    paths.hidden = {layout().trusted};
    paths.probe_pauses_s = {0.01};
    // What else there is, and what it gives up: as root the uid level, else root or unsafe.
    auto names_the_other_choices = [](const std::string& sentence) {
        const bool uid = sentence.find("--isolation uid (each submission then runs only as a user of its own") != std::string::npos;
        return geteuid() == 0 ? uid : uid && sentence.find("run the grader as root") != std::string::npos &&
                                          sentence.find("--isolation unsafe") != std::string::npos;
    };

    paths.bwrap = dir + "/no-such-bwrap";  // not installed
    const std::string missing = refusal("auto", paths);
    INFO(missing);
    CHECK(one_sentence(missing));
    CHECK(missing.rfind("bubblewrap, the sandbox, is not installed", 0) == 0);
    CHECK(missing.find("install the bubblewrap package") != std::string::npos);
    CHECK(names_the_other_choices(missing));

    // Installed, but the kernel refuses it user namespaces: bubblewrap's own message runs on
    // into a second sentence, which is left out.
    const std::string refused = dir + "/bwrap";
    write_file(refused, "#!/bin/sh\necho \"bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
                        "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.\" >&2\n"
                        "exit 1\n");
    chmod(refused.c_str(), 0755);
    paths.bwrap = refused;
    const std::string cannot = refusal("bwrap", paths);
    INFO(cannot);
    CHECK(one_sentence(cannot));
    CHECK(cannot.rfind("bubblewrap (" + refused + ") cannot run a program here (exit 1: bwrap: No permissions to creating new namespace", 0) == 0);
    CHECK(cannot.find("On e.g. debian") == std::string::npos);
    CHECK(cannot.find("sysctl kernel.unprivileged_userns_clone=1") != std::string::npos);
    CHECK(cannot.find("kernel.apparmor_restrict_unprivileged_userns=0") != std::string::npos);
    CHECK(names_the_other_choices(cannot));
    CHECK(refusal("auto", paths) == cannot);
    remove_tree(dir);
}

TEST_CASE("choosing the isolation: a probe that fails once (a passing refusal) does not stop the run") {
    const std::string bw = usable_bwrap();
    if (bw.empty()) {
        MESSAGE("bubblewrap not usable here: the probe's retry is not tested");
        return;
    }
    // A bubblewrap that refuses its first start, as one does when the user's process limit is
    // reached for a moment, then works.
    char tmpl[] = "/tmp/grading-flaky-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    chmod(dir.c_str(), 0755);
    const std::string flaky = dir + "/bwrap", marker = dir + "/refused-once";
    write_file(flaky, "#!/bin/sh\nif [ ! -e " + marker + " ]; then : > " + marker +
                          " 2>/dev/null || true; echo 'bwrap: Creating new namespace failed: Resource temporarily unavailable' >&2; exit 1; fi\n"
                          "exec " + bw + " \"$@\"\n");
    chmod(flaky.c_str(), 0755);
    // The marker is made by whoever runs the probe (the sandbox's user, as root): its folder lets it.
    chmod(dir.c_str(), 0777);
    IsolationPaths paths;
    paths.hidden = {layout().trusted};
    paths.bwrap = flaky;
    paths.probe_pauses_s = {0.01, 0.01};
    Isolation chosen = choose_isolation("auto", paths);
    CHECK(exists(marker));  // it was refused once
    CHECK(chosen.level == IsolationLevel::Bwrap);
    // Without the retry the grader would have stopped.
    unlink(marker.c_str());
    paths.probe_pauses_s = {};
    CHECK(refusal("auto", paths).find("Resource temporarily unavailable") != std::string::npos);
    remove_tree(dir);
}

TEST_CASE("run folders: owned by the sandbox's user while used, by the grader after") {
    if (geteuid() != 0) {
        MESSAGE("not root: run folders keep the grader as their owner");
        return;
    }
    Isolation iso;
    iso.level = IsolationLevel::Uid;
    const std::string dir = layout().base + "/prepared";
    mkdir(dir.c_str(), 0755);
    REQUIRE(symlink("/etc", (dir + "/tmp").c_str()) == 0);  // left by an earlier run
    prepare_run_folder(dir, iso);
    struct stat st;
    REQUIRE(lstat(dir.c_str(), &st) == 0);
    CHECK(st.st_uid == kSandboxUid);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(lstat((dir + "/tmp").c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK(st.st_uid == kSandboxUid);
    struct stat etc;
    REQUIRE(stat("/etc", &etc) == 0);
    CHECK(etc.st_uid == 0);
    release_run_folder(dir);
    REQUIRE(lstat(dir.c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
    CHECK((st.st_mode & 0777) == 0700);
}

// ---- several GPUs: runs under way at once --------------------------------------------------------

namespace {
// sh() in a folder of its own (its output files too), for runs under way at once.
RunResult sh_in(const std::string& folder, const std::string& script, double wall_s) {
    RunSpec s;
    s.argv = {"/bin/sh", "-c", script};
    s.cwd = scratch() + "/" + folder;
    s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
    s.limits.wall_s = wall_s;
    return run_process(s);
}
}  // namespace

TEST_CASE("a stray sweep leaves the runs under way on other threads alone, and their processes") {
    become_subreaper();
    // Another worker's run: its own child (in its session) must live until the run ends, and
    // the run's exit status must reach its own thread.
    RunResult other;
    std::thread worker([&] { other = sh_in("run-other", "sleep 0.8 & wait $!; exit 3", 20); });
    for (int i = 0; i < 40; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        reap_strays();
    }
    // Meanwhile a finished run's stray is killed all the same.
    RunResult done = sh("setsid sleep 30 > /dev/null 2>&1 & echo $! > gpu-stray.pid; exit 0");
    CHECK(done.ok());
    const long stray = read_pid("gpu-stray.pid");
    REQUIRE(stray > 0);
    usleep(100000);
    reap_strays();
    for (int i = 0; i < 100 && alive(stray); ++i) usleep(10000);
    CHECK_FALSE(alive(stray));
    worker.join();
    CHECK(other.started);
    CHECK_FALSE(other.timed_out);
    CHECK(other.exit_code == 3);  // not killed (137), not reaped by the sweep (its status lost)
}

TEST_CASE("runs on several threads at once each get their own exit status") {
    std::vector<RunResult> results(6);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i)
        threads.emplace_back([&, i] {
            results[i] = sh_in("run-" + std::to_string(i), "sleep 0.2; exit " + std::to_string(10 + i), 20);
            reap_strays();  // as each worker does after each run
        });
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < results.size(); ++i) {
        CAPTURE(i);
        CHECK(results[i].exit_code == static_cast<int>(10 + i));
        CHECK_FALSE(results[i].timed_out);
    }
}

TEST_CASE("isolation: a worker's GPU (CUDA_VISIBLE_DEVICES) and its own sandbox user reach the program") {
    std::vector<Isolation> levels = testable_levels();
    Isolation unsafe;
    unsafe.level = IsolationLevel::Unsafe;
    levels.push_back(unsafe);
    const std::string run = layout().base + "/run-gpu1";
    for (Isolation iso : levels) {
        INFO("level " << isolation_level_name(iso.level));
        iso.uid = kSandboxUid + 1;  // the second GPU's worker
        iso.gid = kSandboxGid + 1;
        prepare_run_folder(run, iso);
        RunSpec s;
        s.env = scrubbed_env(run, "/usr/local/cuda/bin");
        set_env(s.env, "CUDA_VISIBLE_DEVICES", "GPU-8f6e,1");
        iso.apply(s, {"/bin/sh", "-c", "echo \"$CUDA_VISIBLE_DEVICES\"; id -u"}, run);
        s.stdout_path = layout().base + "/gpu1.out";
        s.stderr_path = layout().base + "/gpu1.err";
        s.limits.wall_s = 10;
        RunResult r = run_process(s);
        release_run_folder(run);
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        const uid_t expected = iso.changes_user() ? kSandboxUid + 1 : geteuid();
        CHECK(r.out == "GPU-8f6e,1\n" + std::to_string(expected) + "\n");
    }
}

TEST_CASE("isolation: with a user per GPU, a program cannot signal another GPU's run, even at the uid level") {
    if (geteuid() != 0) {
        MESSAGE("not root: every run is the grader's own user");
        return;
    }
    for (Isolation iso : testable_levels()) {
        INFO("level " << isolation_level_name(iso.level));
        iso.uid = kSandboxUid + 1;
        iso.gid = kSandboxGid + 1;
        pid_t other_gpu = spawn_sleeper(true);  // uid 64000: the first GPU's run
        usleep(50000);
        const std::string run = layout().base + "/run-gpu1";
        prepare_run_folder(run, iso);
        RunSpec s;
        s.env = scrubbed_env(run, "/usr/local/cuda/bin");
        iso.apply(s, {"/bin/sh", "-c", "kill -KILL " + std::to_string(other_gpu) + " 2>/dev/null && echo KILLED_OTHER; exit 0"}, run);
        s.stdout_path = layout().base + "/gpu1.out";
        s.stderr_path = layout().base + "/gpu1.err";
        RunResult r = run_process(s);
        release_run_folder(run);
        CHECK_MESSAGE(r.ok(), r.describe() << ": " << r.err);
        CHECK(r.out.find("KILLED_OTHER") == std::string::npos);
        CHECK(alive(other_gpu));
        end_sleeper(other_gpu);
    }
}
