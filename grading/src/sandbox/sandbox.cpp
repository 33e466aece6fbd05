#include "sandbox/sandbox.h"

#include "args.h"
#include "sandbox/gpus.h"
#include "util/files.h"
#include "util/text.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
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

using cudalabs::UsageError;

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

// ---- isolation levels -------------------------------------------------------------------------

namespace {

bool is_under(const std::string& path, const std::string& dir) {  // `path` is `dir` or inside it
    if (dir == "/") return true;
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

const char* const kSystemDirs[] = {"/usr", "/etc", "/sys", "/dev", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

bool under_system_dir(const std::string& path) {
    for (const char* d : kSystemDirs)
        if (is_under(path, d)) return true;
    return false;
}

bool under_any(const std::string& path, const std::vector<std::string>& dirs) {
    for (const std::string& d : dirs) {
        std::string r = real_path(d);
        if (is_under(path, r.empty() ? d : r)) return true;
    }
    return false;
}

std::vector<std::string> bwrap_argv(const Isolation& iso, const std::vector<std::string>& argv, const std::string& workdir,
                                    const std::vector<std::string>& extra_rw, const std::vector<std::string>& inner_env,
                                    const std::vector<std::string>& extra_ro, bool as_sandbox_ids) {
    std::vector<std::string> w = {iso.bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                                  "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"};
    // /dev: bubblewrap's basic nodes and the GPU's own where they are known, else the whole
    // /dev; its shared-memory folder would be the host's, so a private one either way.
    if (iso.devices.empty()) {
        w.insert(w.end(), {"--dev-bind", "/dev", "/dev"});
    } else {
        w.insert(w.end(), {"--dev", "/dev"});
        for (const std::string& node : iso.devices) w.insert(w.end(), {"--dev-bind", node, node});
    }
    w.insert(w.end(), {"--proc", "/proc", "--ro-bind", "/sys", "/sys", "--tmpfs", "/tmp"});
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) w.insert(w.end(), {"--tmpfs", "/dev/shm"});
    // /bin, /lib... are links into /usr on merged-/usr systems, directories elsewhere.
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        if (lstat(top, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlink(top, target, sizeof target - 1);
            if (n <= 0) continue;
            target[n] = '\0';
            w.insert(w.end(), {"--symlink", target, top});
        } else {
            w.insert(w.end(), {"--ro-bind", top, top});
        }
    }
    // Hidden paths inside the system folders bound above (elsewhere nothing is visible anyway).
    for (const std::string& h : iso.hidden) {
        std::string r = real_path(h);
        if (!r.empty() && under_system_dir(r) && !is_under("/dev", r)) w.insert(w.end(), {"--tmpfs", r});
    }
    // Binds in order, parents first: bubblewrap mounts in the order given, so a later bind of a
    // parent would cover an earlier one inside it (the program inside its run folder).
    std::vector<std::pair<std::string, bool>> binds = {{workdir, true}};  // {path, writable}
    for (const std::string& p : extra_rw) binds.push_back({p, true});
    for (const std::string& p : iso.readonly) binds.push_back({p, false});
    for (const std::string& p : extra_ro) binds.push_back({p, false});
    if (!argv.empty() && !argv[0].empty() && argv[0][0] == '/' && !under_system_dir(argv[0])) binds.push_back({argv[0], false});
    // By their real paths (a link inside a folder bound read-only cannot become a mount point);
    // read-only ones in the system folders are visible already, unless hidden there.
    for (auto& [path, writable] : binds) {
        std::string r = real_path(path);
        if (!r.empty()) path = r;
        else if (!writable) path.clear();  // nothing there to show
        if (!writable && under_system_dir(path) && !under_any(path, iso.hidden)) path.clear();
    }
    binds.erase(std::remove_if(binds.begin(), binds.end(), [](const auto& b) { return b.first.empty(); }), binds.end());
    std::stable_sort(binds.begin(), binds.end(), [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
    for (const auto& [path, writable] : binds) w.insert(w.end(), {writable ? "--bind" : "--ro-bind-try", path, path});
    for (const std::string& e : inner_env) {
        size_t eq = e.find('=');
        if (eq != std::string::npos) w.insert(w.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
    }
    if (as_sandbox_ids)
        w.insert(w.end(), {"--uid", std::to_string(iso.uid), "--gid", std::to_string(iso.gid), "--cap-drop", "ALL"});
    // Its own root (a tmpfs holding the mount points) read-only: a folder bubblewrap made on the
    // way to a bind is not a place to write.
    w.insert(w.end(), {"--remount-ro", "/", "--chdir", workdir, "--"});
    w.insert(w.end(), argv.begin(), argv.end());
    return w;
}

std::string find_bwrap(const std::string& wanted) {
    if (wanted == "none") return "";
    auto executable = [](const std::string& p) { return access(p.c_str(), X_OK) == 0; };
    if (!wanted.empty()) return executable(wanted) ? wanted : "";
    for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"})
        if (executable(p)) return p;
    if (const char* path = std::getenv("PATH")) {
        std::string dirs = path;
        size_t pos = 0;
        while (pos <= dirs.size()) {
            size_t end = dirs.find(':', pos);
            if (end == std::string::npos) end = dirs.size();
            std::string d = dirs.substr(pos, end - pos);
            if (!d.empty() && d[0] == '/' && executable(d + "/bwrap")) return d + "/bwrap";
            pos = end + 1;
        }
    }
    return "";
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    ::remove(path);
    return 0;  // go on with the rest
}

void remove_folder(const std::string& path) {
    if (path.size() > 8) nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string first_lines(const std::string& s, size_t max) {
    std::string t = s;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    for (char& c : t) if (c == '\n') c = ' ';
    return t.size() > max ? t.substr(0, max) + "..." : t;
}

// bubblewrap runs as the grader's user where that is not root; the uid level needs root
// (run_process refuses it otherwise).
bool runs_as_sandbox_ids(const Isolation& iso) {
    return iso.level == IsolationLevel::Uid || (iso.level == IsolationLevel::Bwrap && geteuid() == 0);
}

// The level at `level` for these paths, not yet probed.
Isolation isolation_at(IsolationLevel level, const IsolationPaths& paths) {
    Isolation iso;
    iso.level = level;
    iso.hidden = paths.hidden;
    iso.readonly = paths.readonly;
    iso.uid = paths.uid;
    iso.gid = paths.gid;
    return iso;
}

// Why `iso` does not work here, "" when it does: its probe, in paths.probe_dir or a fresh folder
// in /tmp. A probe that fails is made again after each pause: a passing refusal (a process limit,
// a moment of load) must not stop the run.
std::string probe_with_retries(const Isolation& iso, const IsolationPaths& paths) {
    std::string dir = paths.probe_dir;
    if (dir.empty()) {
        char tmpl[] = "/tmp/cudalabs-probe-XXXXXX";
        if (!mkdtemp(tmpl)) throw UsageError(std::string("cannot create a probe folder in /tmp: ") + std::strerror(errno));
        dir = tmpl;
    }
    std::string why = probe_isolation(iso, dir);
    for (size_t k = 0; k < paths.probe_pauses_s.size() && !why.empty(); ++k) {
        std::this_thread::sleep_for(std::chrono::duration<double>(paths.probe_pauses_s[k]));
        why = probe_isolation(iso, dir);
    }
    remove_folder(dir);
    return why;
}

// The choices left where bubblewrap does not work, with what each gives up.
std::string without_bubblewrap() {
    const std::string uid = "--isolation uid (each submission then runs only as a user of its own: it can read what any user "
                            "may read, see other processes and use the network)";
    if (geteuid() == 0) return "or choose " + uid;
    return "run the grader as root and choose " + uid +
           ", or choose --isolation unsafe (submissions run as your own user with resource limits only)";
}

// The first sentence of a tool's message (bubblewrap's own run on into a second).
std::string first_sentence(const std::string& text) {
    std::string s = text.substr(0, text.find(". "));
    while (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// The one sentence that stops the grader where bubblewrap does not work: what failed, and the fix.
std::string bubblewrap_refusal(const IsolationPaths& paths, const std::string& bwrap, const std::string& why) {
    if (bwrap.empty()) {
        const bool named = !paths.bwrap.empty() && paths.bwrap != "none";
        return "bubblewrap, the sandbox, is not installed (" +
               (named ? paths.bwrap + " is not an executable" : std::string("no bwrap in /usr/bin, /bin, /usr/local/bin or on PATH")) +
               "): install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap), " + without_bubblewrap();
    }
    return "bubblewrap (" + bwrap + ") cannot run a program here (" + first_sentence(why) +
           "): where the kernel refuses user namespaces to ordinary users (bubblewrap needs them, as root too), allow them "
           "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces above 0, or on Ubuntu "
           "sysctl kernel.apparmor_restrict_unprivileged_userns=0), " + without_bubblewrap();
}

}  // namespace

bool Isolation::changes_user() const { return runs_as_sandbox_ids(*this); }

std::string Isolation::describe() const {
    // Not the uid itself: each grading run takes its own, and runs of one class (shards, a
    // regrade) must report the same isolation. The audit log's GPU lines name each worker's.
    const std::string who = runs_as_sandbox_ids(*this)
                                ? "a user of its own (uid " + std::to_string(kSandboxUid) + " to " +
                                      std::to_string(kSandboxUid + kSandboxIdentities - 1) + ", one per grading run)"
                                : "the grader's own user";
    std::string account;
    if (runs_as_sandbox_ids(*this))
        if (const passwd* pw = getpwuid(uid)) account = " (WARNING: the account '" + std::string(pw->pw_name) + "' has this id: its files are the program's)";
    switch (level) {
        case IsolationLevel::Bwrap:
            return "bubblewrap (" + bwrap + ") as " + who + account +
                   ": own user, PID, mount, IPC, UTS and network namespaces, no capabilities; it sees only /usr, /etc, /sys, " +
                   (devices.empty() ? std::string("/dev") : std::string("/dev's basic nodes and its own GPU's")) +
                   ", the CUDA toolkit and its run folder, read-only but for the run folder and a private /tmp; the trusted tree, "
                   "the results and other submissions are not visible";
        case IsolationLevel::Uid:
            return "user " + who + account + " only (the kernel refused namespaces): it cannot signal the grader or write its files, "
                   "but it can read every file that any user may read (world-readable parts of the trusted tree included), see "
                   "other processes and use the network";
        case IsolationLevel::Unsafe: break;
    }
    return "UNSAFE: resource limits only, as " + who + " (uid " + std::to_string(geteuid()) +
           "): the submission can read, write and signal whatever the grader can, and use the network";
}

std::vector<std::string> Isolation::wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                         const std::vector<std::string>& extra_rw,
                                         const std::vector<std::string>& inner_env) const {
    if (level != IsolationLevel::Bwrap) return argv;
    return bwrap_argv(*this, argv, workdir, extra_rw, inner_env, {}, false);
}

void Isolation::apply(RunSpec& spec, const std::vector<std::string>& argv, const std::string& workdir,
                      const std::vector<std::string>& extra_rw, const std::vector<std::string>& inner_env,
                      const std::vector<std::string>& extra_ro) const {
    spec.cwd = workdir;
    spec.confine = Confinement{};
    if (runs_as_sandbox_ids(*this)) {
        spec.confine.drop_ids = true;
        spec.confine.uid = uid;
        spec.confine.gid = gid;
    }
    if (level == IsolationLevel::Bwrap) {
        // Started as the sandbox's user, bubblewrap needs no privilege and gives the program none.
        spec.argv = bwrap_argv(*this, argv, workdir, extra_rw, inner_env, extra_ro, spec.confine.drop_ids);
        spec.wrapper_exit_is_signal = true;
        return;
    }
    spec.argv = argv;
    spec.env.insert(spec.env.end(), inner_env.begin(), inner_env.end());
}

std::string probe_isolation(const Isolation& iso, const std::string& dir) {
    try {
        prepare_run_folder(dir, iso);
    } catch (const std::exception& e) {
        return e.what();
    }
    RunSpec spec;
    spec.env = scrubbed_env(dir, "/usr/bin");
    spec.limits.wall_s = 30;
    spec.limits.keep_output = 4096;
    // The read-only paths must be readable in there (the CUDA toolkit, the trace library): a
    // folder only the grader may enter on the way makes them unreachable for another user.
    std::vector<std::string> argv = {"/bin/sh", "-c",
                                     "for p in \"$@\"; do [ -r \"$p\" ] || { echo \"cannot read $p\" >&2; exit 3; }; done; "
                                     "echo ok > \"$HOME/probe\"",
                                     "probe"};
    for (const std::string& p : iso.readonly)
        if (!real_path(p).empty()) argv.push_back(p);
    iso.apply(spec, argv, dir);
    RunResult r = run_process(spec);
    const std::string probe = dir + "/probe";
    struct stat st;
    bool wrote = lstat(probe.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    std::string why;
    if (!r.ok()) why = (r.started ? r.describe() : r.error) + (r.err.empty() ? "" : ": " + first_lines(r.err, 300));
    else if (!wrote) why = "the probe could not write its run folder";
    else if (runs_as_sandbox_ids(iso) && st.st_uid != iso.uid) why = "the probe did not run as uid " + std::to_string(iso.uid);
    for (const char* f : {"/probe", "/.stdout", "/.stderr"}) unlink((dir + f).c_str());
    return why;
}

std::string unenterable_folder(const std::string& path, uid_t uid, gid_t gid) {
    if (uid == 0) return "";
    std::string walked;
    size_t pos = 0;
    while (pos < path.size()) {
        size_t next = path.find('/', pos + 1);
        if (next == std::string::npos) next = path.size();
        walked = path.substr(0, next);
        pos = next;
        struct stat st;
        if (stat(walked.c_str(), &st) != 0) return "";  // what does not exist yet is made later
        if (!S_ISDIR(st.st_mode)) continue;
        const mode_t bit = st.st_uid == uid ? S_IXUSR : st.st_gid == gid ? S_IXGRP : S_IXOTH;
        if (!(st.st_mode & bit)) return walked;
    }
    return "";
}

Isolation choose_isolation(const std::string& requested, const IsolationPaths& paths) {
    const std::optional<IsolationLevel> level = requested == "auto" ? IsolationLevel::Bwrap : isolation_level_named(requested);
    if (!level) throw UsageError("unknown isolation level '" + requested + "' (auto, bwrap, uid or unsafe)");
    Isolation iso = isolation_at(*level, paths);
    if (*level == IsolationLevel::Unsafe) return iso;
    if (*level == IsolationLevel::Uid) {
        if (geteuid() != 0) throw UsageError("--isolation uid needs the grader to run as root");
        if (std::string why = probe_with_retries(iso, paths); !why.empty())
            throw UsageError("--isolation uid cannot run a program here: " + why);
        return iso;
    }
    iso.bwrap = find_bwrap(paths.bwrap);
    std::string why = iso.bwrap.empty() ? "not installed" : probe_with_retries(iso, paths);
    if (!why.empty()) throw UsageError(bubblewrap_refusal(paths, iso.bwrap, why));
    return iso;
}

void prepare_run_folder(const std::string& path, const Isolation& iso) {
    // mkdir -p for the parents (as the grader), then the folder and its tmp/ as the program's.
    for (size_t i = 1; i < path.size(); ++i)
        if (path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
    const bool chown_them = runs_as_sandbox_ids(iso);
    for (const std::string& p : {path, path + "/tmp"}) {
        struct stat st;
        // A previous run may have left a link or a file where the folder goes: only a real folder.
        if (lstat(p.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) unlink(p.c_str());
        mkdir(p.c_str(), 0700);
        int fd = open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        bool ok = fd >= 0 && (!chown_them || fchown(fd, iso.uid, iso.gid) == 0) && fchmod(fd, 0700) == 0;
        int err = errno;
        if (fd >= 0) close(fd);
        if (!ok) throw std::runtime_error("cannot prepare the run folder " + p + ": " + std::strerror(err));
    }
}

void release_run_folder(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    bool ok = fchown(fd, geteuid(), getegid()) == 0 && fchmod(fd, 0700) == 0;
    int err = errno;
    close(fd);
    if (!ok) throw std::runtime_error("cannot take back the run folder " + path + ": " + std::strerror(err));
}

std::vector<std::string> scrubbed_env(const std::string& workdir, const std::string& cuda_bin) {
    std::vector<std::string> env = {"PATH=" + cuda_bin + ":/usr/local/bin:/usr/bin:/bin",
                                    "HOME=" + workdir, "TMPDIR=" + workdir + "/tmp", "LANG=C", "LC_ALL=C"};
    mkdir((workdir + "/tmp").c_str(), 0700);
    for (const char* keep : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
        if (const char* v = std::getenv(keep)) env.push_back(std::string(keep) + "=" + v);
    return env;
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
