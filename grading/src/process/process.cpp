#include "process/process.h"

#include "util/files.h"
#include "util/text.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <type_traits>

#ifndef SYS_close_range
#define SYS_close_range 436  // the same number on every architecture (Linux 5.9)
#endif

namespace grading {


std::string RunResult::describe() const {
    char buf[64];
    if (!started) return "could not start: " + error;
    if (timed_out) {
        std::snprintf(buf, sizeof buf, "timed out after %.1f s and was killed", wall_s);
        return buf;
    }
    if (signal) {
        const char* name = sigabbrev_np(signal);
        return std::string("killed by SIG") + (name ? name : std::to_string(signal).c_str());
    }
    return "exit " + std::to_string(exit_code);
}

namespace {

constexpr size_t kMaxInherited = 32;
constexpr int kMaxTargetFd = 1000;

// ---- runs in flight ----------------------------------------------------------------------------
// Several runs may be under way at once (compile jobs; one grading worker per GPU): each run's
// first process is registered here from its start until it has been waited for, so that the
// stray sweep of one run never kills or reaps another's. The lock is held across the start, so
// that a sweep never sees a run's process before it is registered.
std::mutex& runs_mutex() {
    static std::mutex m;
    return m;
}
std::set<pid_t>& runs_in_flight() {
    static std::set<pid_t> runs;
    return runs;
}

// ---- what the child does between its start and exec --------------------------------------------
// The child is started as posix_spawn starts one: clone(CLONE_VM | CLONE_VFORK), on a stack of
// its own, sharing the grader's memory until it execs while the grader's thread that started it
// waits. A fork would copy the grader's page tables first, which takes longer the more memory the
// grader holds, one start at a time: with many lanes and compile jobs, every start waited for the
// others' copies. So everything is prepared before the start; the child copies the plan onto its
// own stack, makes only system calls (async-signal-safe: the grader has other threads, whose
// locks may be held), and writes nothing of the grader's; the grader's signals stay blocked until
// the child has set every handler back to the default.

enum Step : int { kStepFds = 1, kStepIds, kStepNoNewPrivs, kStepParent, kStepChdir, kStepExec };

struct ChildReport {
    int step, err;
};

struct ChildPlan {
    char* const* argv = nullptr;
    char* const* envp = nullptr;
    const char* cwd = nullptr;
    int null_fd = -1, out_fd = -1, err_fd = -1, report_fd = -1;
    std::pair<int, int> inherit[kMaxInherited];
    size_t inherit_count = 0;
    Limits limits;
    pid_t grader = 0;
    bool drop_ids = false;
    uid_t uid = 0;
    gid_t gid = 0;
};

[[noreturn]] void child_fail(const ChildPlan& p, int step) {
    ChildReport r{step, errno};
    (void)!write(p.report_fd, &r, sizeof r);
    _exit(step == kStepExec ? 127 : 126);
}

void set_limit(int resource, rlim_t value) {
    struct rlimit rl = {value, value};
    setrlimit(resource, &rl);
}

void reset_signals() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP) sigaction(s, &sa, nullptr);  // the C library's own refuse: fine
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Closes every descriptor but the sorted `keep` ones.
void close_all_but(const int* keep, int n) {
    unsigned lo = 0;  // the first descriptor not yet dealt with
    bool have_close_range = true;
    for (int i = 0; i <= n && have_close_range; ++i) {
        if (i < n && static_cast<unsigned>(keep[i]) < lo) continue;
        unsigned last = i < n ? static_cast<unsigned>(keep[i]) - 1 : ~0u;
        if ((i == n || static_cast<unsigned>(keep[i]) > lo) && syscall(SYS_close_range, lo, last, 0) != 0) have_close_range = false;
        if (i < n) lo = static_cast<unsigned>(keep[i]) + 1;
    }
    if (have_close_range) return;
    // Before Linux 5.9: the descriptors listed in /proc/self/fd, read with the raw system call.
    auto kept = [&](long fd) {
        for (int i = 0; i < n; ++i)
            if (keep[i] == fd) return true;
        return false;
    };
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        for (long fd = 0; fd < 65536; ++fd)
            if (!kept(fd)) close(static_cast<int>(fd));
        return;
    }
    char buf[4096];
    long got;
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            // struct linux_dirent64: u64 inode, s64 offset, u16 record length, u8 type, name
            unsigned short reclen;
            std::memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char* name = buf + off + 19;
            long fd = 0;
            bool number = *name != '\0';
            for (const char* c = name; *c; ++c) {
                if (*c < '0' || *c > '9') number = false;
                else fd = fd * 10 + (*c - '0');
            }
            if (number && fd != dir && !kept(fd)) close(static_cast<int>(fd));
            off += reclen;
        }
    }
    close(dir);
}

// stdin from /dev/null, stdout and stderr to their files, the inherited descriptors at their
// numbers; nothing else of the grader's stays open.
void arrange_fds(ChildPlan& p) {
    int floor = 3;
    for (size_t i = 0; i < p.inherit_count; ++i) floor = std::max(floor, p.inherit[i].second + 1);
    // Lifted above every target first, so that no dup2 overwrites a source still needed.
    auto lift = [&](int fd) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
        if (high < 0) child_fail(p, kStepFds);
        return high;
    };
    p.report_fd = lift(p.report_fd);
    int null_fd = lift(p.null_fd), out_fd = lift(p.out_fd), err_fd = lift(p.err_fd);
    int lifted[kMaxInherited];
    for (size_t i = 0; i < p.inherit_count; ++i) lifted[i] = lift(p.inherit[i].first);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) child_fail(p, kStepFds);
    for (size_t i = 0; i < p.inherit_count; ++i)
        if (dup2(lifted[i], p.inherit[i].second) < 0) child_fail(p, kStepFds);
    int keep[kMaxInherited + 4];
    int n = 0;
    for (int fd : {0, 1, 2}) keep[n++] = fd;
    for (size_t i = 0; i < p.inherit_count; ++i) keep[n++] = p.inherit[i].second;
    keep[n++] = p.report_fd;
    for (int i = 1; i < n; ++i)  // insertion sort: no library call needed
        for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) std::swap(keep[j - 1], keep[j]);
    close_all_but(keep, n);
}

void apply_limits(const Limits& lim) {
    set_limit(RLIMIT_CORE, 0);
    if (lim.cpu_s > 0) set_limit(RLIMIT_CPU, static_cast<rlim_t>(lim.cpu_s));
    if (lim.mem_mb > 0) set_limit(RLIMIT_DATA, static_cast<rlim_t>(lim.mem_mb) << 20);
    if (lim.file_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(lim.file_mb) << 20);
    if (lim.processes > 0) set_limit(RLIMIT_NPROC, static_cast<rlim_t>(lim.processes));
    if (lim.open_files > 0) set_limit(RLIMIT_NOFILE, static_cast<rlim_t>(lim.open_files));
}

[[noreturn]] void exec_program(const ChildPlan& p) {
    if (p.drop_ids) {
        // Raw system calls: the C library's wrappers would try to change every thread of the
        // grader, whose copies do not exist here.
        if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, p.gid, p.gid, p.gid) != 0 ||
            syscall(SYS_setresuid, p.uid, p.uid, p.uid) != 0)
            child_fail(p, kStepIds);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(p, kStepNoNewPrivs);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // (again: a change of identity clears it)
    if (getppid() != p.grader) {
        errno = ESRCH;
        child_fail(p, kStepParent);
    }
    if (chdir(p.cwd) != 0) child_fail(p, kStepChdir);
    // A bare name ("readelf") is looked up on PATH only, never in the working folder, which
    // may hold a submission's files.
    if (std::strchr(p.argv[0], '/')) execve(p.argv[0], p.argv, p.envp);
    else execvpe(p.argv[0], p.argv, p.envp);
    child_fail(p, kStepExec);
}

// The plan is the grader's: the child works on its own copy (a plain struct: no allocation).
static_assert(std::is_trivially_copy_constructible_v<ChildPlan>, "the child copies its plan without allocating");
[[noreturn]] void child_main(const ChildPlan& grader_plan) {
    ChildPlan p = grader_plan;
    reset_signals();  // the grader's handlers and mask are not the program's
    setsid();         // its own session and group: no terminal to type into, one group to kill
    arrange_fds(p);
    apply_limits(p.limits);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the grader dies: so does the run
    if (getppid() != p.grader) _exit(126);
    exec_program(p);
}

// ---- the grader's side of a run ----------------------------------------------------------------

// Why `spec` cannot be run as given ("" when it can).
std::string spec_error(const RunSpec& spec) {
    if (spec.argv.empty()) return "empty command";
    if (spec.inherit_fds.size() > kMaxInherited) return "too many inherited descriptors";
    for (size_t i = 0; i < spec.inherit_fds.size(); ++i) {
        const auto& [from, to] = spec.inherit_fds[i];
        bool clash = to < 3 || to > kMaxTargetFd || fcntl(from, F_GETFD) < 0;
        for (size_t j = 0; j < i; ++j) clash |= spec.inherit_fds[j].second == to;
        if (clash) return "bad inherited descriptor " + std::to_string(from) + " -> " + std::to_string(to);
    }
    return "";
}

// Everything the child needs, prepared before its start: only async-signal-safe calls after. The
// plan points into the vectors here, so a PreparedChild stays where it was made.
struct PreparedChild {
    ChildPlan plan;
    std::vector<char*> argv, envp;
    std::string out_path, err_path;
    int report_read = -1;  // setup and exec failures come back through a close-on-exec pipe

    PreparedChild() = default;
    PreparedChild(const PreparedChild&) = delete;
    PreparedChild& operator=(const PreparedChild&) = delete;
};

// Fills `child` to run `spec`: "" when ready, else why not (nothing left open then).
std::string prepare_child(const RunSpec& spec, PreparedChild& child) {
    ChildPlan& plan = child.plan;
    const Confinement& c = spec.confine;
    plan.drop_ids = c.drop_ids;
    plan.uid = c.uid;
    plan.gid = c.gid;
    if (c.drop_ids && geteuid() != 0) return "cannot set up the sandbox: running as another user needs the grader to be root";
    for (const std::string& a : spec.argv) child.argv.push_back(const_cast<char*>(a.c_str()));
    child.argv.push_back(nullptr);
    for (const std::string& e : spec.env) child.envp.push_back(const_cast<char*>(e.c_str()));
    child.envp.push_back(nullptr);
    plan.argv = child.argv.data();
    plan.envp = child.envp.data();
    plan.cwd = spec.cwd.c_str();
    plan.limits = spec.limits;
    plan.grader = getpid();
    plan.inherit_count = spec.inherit_fds.size();
    std::copy(spec.inherit_fds.begin(), spec.inherit_fds.end(), plan.inherit);
    child.out_path = spec.stdout_path.empty() ? spec.cwd + "/.stdout" : spec.stdout_path;
    child.err_path = spec.stderr_path.empty() ? spec.cwd + "/.stderr" : spec.stderr_path;
    // O_NOFOLLOW: an output file in a folder the program could write must not lead elsewhere.
    plan.out_fd = open(child.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    plan.err_fd = open(child.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    plan.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int report[2];
    if (plan.out_fd < 0 || plan.err_fd < 0 || plan.null_fd < 0 || pipe2(report, O_CLOEXEC) != 0) {
        const std::string why = std::string("cannot prepare the run: ") + std::strerror(errno);
        for (int fd : {plan.out_fd, plan.err_fd, plan.null_fd}) if (fd >= 0) close(fd);
        return why;
    }
    plan.report_fd = report[1];
    child.report_read = report[0];
    return "";
}

int child_entry(void* plan) { child_main(*static_cast<const ChildPlan*>(plan)); }

// The stack the child runs on until it execs, below a guard page; unmapped once it has.
class ChildStack {
public:
    static constexpr size_t kBytes = 256 << 10;  // execvpe's path buffers and close_all_but's are what it needs
    ChildStack() {
        void* p = mmap(nullptr, kGuard + kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (p == MAP_FAILED) return;
        base_ = static_cast<char*>(p);
        mprotect(base_, kGuard, PROT_NONE);
    }
    ~ChildStack() {
        if (base_) munmap(base_, kGuard + kBytes);
    }
    ChildStack(const ChildStack&) = delete;
    ChildStack& operator=(const ChildStack&) = delete;
    char* top() const { return base_ ? base_ + kGuard + kBytes : nullptr; }

private:
    static constexpr size_t kGuard = 4096;
    char* base_ = nullptr;
};

// Starts the child, registered as a run in flight from the start (-1: it could not start, errno
// set). Returns once the child has exec'd or ended.
pid_t start_child(const ChildPlan& plan) {
    ChildStack stack;
    if (!stack.top()) return -1;
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);  // no handler of the grader's runs in the child
    pid_t pid;
    int start_errno;
    {
        std::lock_guard<std::mutex> lock(runs_mutex());
        pid = clone(child_entry, stack.top(), CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<ChildPlan*>(&plan));
        start_errno = errno;
        if (pid > 0) runs_in_flight().insert(pid);
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    errno = start_errno;
    return pid;
}

// Unregistered once waited for (its process group killed first): what is left of it then is a
// stray that any sweep may kill.
void no_longer_in_flight(pid_t pid) {
    if (pid <= 0) return;
    std::lock_guard<std::mutex> lock(runs_mutex());
    runs_in_flight().erase(pid);
}

// The parent's copies of the child's descriptors, closed once it has its own.
void close_child_ends(const ChildPlan& plan) {
    for (int fd : {plan.report_fd, plan.out_fd, plan.err_fd, plan.null_fd}) close(fd);
}

// Whether the child reported a failure before exec (read to the end of the pipe, then closed).
bool child_failed(int report_read, ChildReport* failure) {
    size_t got = 0;
    while (got < sizeof *failure) {
        ssize_t n = read(report_read, reinterpret_cast<char*>(failure) + got, sizeof *failure - got);
        if (n > 0) got += static_cast<size_t>(n);
        else if (n < 0 && errno == EINTR) continue;
        else break;
    }
    close(report_read);
    return got == sizeof *failure;
}

const char* step_text(int step) {
    switch (step) {
        case kStepFds: return "arrange the file descriptors";
        case kStepIds: return "switch to the sandbox's user";
        case kStepNoNewPrivs: return "forbid new privileges";
        case kStepParent: return "stay the grader's child";
        case kStepChdir: return "enter the working folder";
        default: return "start";
    }
}

std::string failure_text(const ChildReport& failure, const RunSpec& spec) {
    if (failure.step == kStepExec) return std::string("cannot run ") + spec.argv[0] + ": " + std::strerror(failure.err);
    std::string text = std::string("cannot set up the sandbox: ") + step_text(failure.step);
    if (failure.step == kStepIds) text += " (uid " + std::to_string(spec.confine.uid) + ")";
    return text + ": " + std::strerror(failure.err);
}

// Waits for `pid` until `wall_s` after `t0`, not counting what it waited on the grader; past it,
// kills its group and it. True when it timed out.
bool wait_within(pid_t pid, double wall_s, std::chrono::steady_clock::time_point t0, const GraderWait* waited_on_grader,
                 int* status) {
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (waited_on_grader) elapsed -= waited_on_grader->seconds();
        if (w == pid) return false;
        if (elapsed > wall_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(elapsed < 1 ? 2 : 20));
    }
}

// How the program ended, from its wait status (a wrapper's exit 128+N is signal N).
void record_end(int status, bool wrapper_exit_is_signal, RunResult& res) {
    if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
    if (wrapper_exit_is_signal && res.exit_code > 128 && res.exit_code < 128 + NSIG) {
        res.signal = res.exit_code - 128;
        res.exit_code = -1;
    }
}

std::string read_head(const std::string& path, size_t keep, bool* truncated) {
    std::ifstream f(path, std::ios::binary);
    std::string data(keep + 1, '\0');
    f.read(&data[0], static_cast<std::streamsize>(keep + 1));
    data.resize(static_cast<size_t>(f.gcount()));
    *truncated = data.size() > keep;
    if (*truncated) data.resize(keep);
    return data;
}

}  // namespace

namespace {
double steady_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void GraderWait::begin() { since_ = steady_seconds(); }

void GraderWait::end() {
    const double since = since_.exchange(-1);
    if (since >= 0) total_ = total_ + (steady_seconds() - since);
}

double GraderWait::seconds() const {
    const double since = since_.load();
    return total_.load() + (since >= 0 ? steady_seconds() - since : 0);
}

RunningProcess::RunningProcess(const RunSpec& spec)
    : wall_s_(spec.limits.wall_s), keep_output_(spec.limits.keep_output), wrapper_exit_is_signal_(spec.wrapper_exit_is_signal),
      grader_wait_(spec.grader_wait) {
    error_ = spec_error(spec);
    if (!error_.empty()) return;
    mkdir(spec.cwd.c_str(), 0700);
    PreparedChild child;
    error_ = prepare_child(spec, child);
    if (!error_.empty()) return;
    out_path_ = child.out_path;
    err_path_ = child.err_path;
    t0_ = std::chrono::steady_clock::now();
    const pid_t pid = start_child(child.plan);
    close_child_ends(child.plan);
    if (pid < 0) {
        close(child.report_read);
        error_ = std::string("cannot start a process: ") + std::strerror(errno);
        return;
    }
    if (ChildReport failure{}; child_failed(child.report_read, &failure)) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        no_longer_in_flight(pid);
        error_ = failure_text(failure, spec);
        return;
    }
    pid_ = pid;
}

RunningProcess::~RunningProcess() {
    if (pid_ > 0) stop();
}

RunResult RunningProcess::wait() { return end(false); }

RunResult RunningProcess::stop() { return end(true); }

RunResult RunningProcess::end(bool kill_first) {
    RunResult res;
    res.error = error_;
    if (pid_ <= 0) return res;
    res.started = true;
    int status = 0;
    if (kill_first) {
        kill(-pid_, SIGKILL);
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
    } else {
        res.timed_out = wait_within(pid_, wall_s_, t0_, grader_wait_, &status);
    }
    kill(-pid_, SIGKILL);  // whatever it left behind in its group
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (!res.timed_out) record_end(status, wrapper_exit_is_signal_, res);
    // What it printed enters the grader here, as valid UTF-8 (text.h): nothing after can fail on it.
    res.out = valid_utf8(read_head(out_path_, keep_output_, &res.out_truncated));
    res.err = valid_utf8(read_head(err_path_, keep_output_, &res.err_truncated));
    no_longer_in_flight(pid_);
    pid_ = -1;
    return res;
}

RunResult run_process(const RunSpec& spec) { return RunningProcess(spec).wait(); }

void become_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

void reap_strays() {
    // Children of ours are strays of a finished run (orphans come back to the grader, a child
    // subreaper) unless they are a run in flight or belong to one (its session: every run starts
    // its own). Several runs may be under way on other threads: only strays are killed and
    // reaped, each by its pid (never waitpid(-1), which could take another run's exit status).
    const pid_t self = getpid();
    std::lock_guard<std::mutex> lock(runs_mutex());
    const std::set<pid_t>& runs = runs_in_flight();
    std::vector<pid_t> strays;
    DIR* proc = opendir("/proc");
    if (proc) {
        while (dirent* d = readdir(proc)) {
            char* end = nullptr;
            long pid = std::strtol(d->d_name, &end, 10);
            if (pid <= 0 || *end) continue;
            std::ifstream stat(std::string("/proc/") + d->d_name + "/stat");
            std::string line;
            std::getline(stat, line);
            size_t close_paren = line.rfind(')');
            if (close_paren == std::string::npos) continue;
            char state = 0;
            long ppid = 0, group = 0, session = 0;
            if (std::sscanf(line.c_str() + close_paren + 1, " %c %ld %ld %ld", &state, &ppid, &group, &session) != 4 || ppid != self)
                continue;
            if (runs.count(static_cast<pid_t>(pid)) || runs.count(static_cast<pid_t>(session))) continue;
            if (state != 'Z') kill(static_cast<pid_t>(pid), SIGKILL);
            strays.push_back(static_cast<pid_t>(pid));
        }
        closedir(proc);
    }
    // A stray killed just now may not have ended yet: the next sweep reaps it.
    for (pid_t pid : strays) waitpid(pid, nullptr, WNOHANG);
}

void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value) {
    const std::string prefix = name + "=";
    env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; }),
              env.end());
    env.push_back(prefix + value);
}

RunResult run_trusted(const std::vector<std::string>& argv, const std::string& cwd, double timeout,
                      const std::string& scratch, const std::vector<std::string>& env_override) {
    RunSpec s;
    s.argv = argv;
    s.cwd = cwd;
    for (char** e = environ; *e; ++e) s.env.push_back(*e);
    for (const std::string& e : env_override) {
        const size_t eq = e.find('=');
        if (eq != std::string::npos) set_env(s.env, e.substr(0, eq), e.substr(eq + 1));
    }
    s.limits.wall_s = timeout;
    s.limits.file_mb = 0;
    s.limits.open_files = 0;
    s.limits.keep_output = 16 << 20;
    static std::atomic<int> counter{0};
    int n = counter++;
    s.stdout_path = scratch + "/trusted" + std::to_string(n) + ".out";
    s.stderr_path = scratch + "/trusted" + std::to_string(n) + ".err";
    RunResult r = run_process(s);
    unlink(s.stdout_path.c_str());
    unlink(s.stderr_path.c_str());
    return r;
}

}  // namespace grading
