#include "sandbox/sandbox.h"

#include "util/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

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
// first process is registered here from fork until it has been waited for, so that the stray
// sweep of one run never kills or reaps another's. The lock is held across fork, so that a sweep
// never sees a run's process before it is registered.
std::mutex& runs_mutex() {
    static std::mutex m;
    return m;
}
std::set<pid_t>& runs_in_flight() {
    static std::set<pid_t> runs;
    return runs;
}

// ---- paths (prepared in the parent) -----------------------------------------------------------

bool is_under(const std::string& path, const std::string& dir) {  // `path` is `dir` or inside it
    if (dir == "/") return true;
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

struct MountEntry {
    std::string point, fstype;
    unsigned long flags = 0;  // the per-mount flags a read-only remount must keep
};

std::string unescape_mount_field(const std::string& s) {  // "\040" for a space, and so on
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
            out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::vector<MountEntry> read_mounts() {
    std::vector<MountEntry> mounts;
    std::ifstream in("/proc/self/mountinfo");
    std::string line;
    while (std::getline(in, line)) {
        // id parent major:minor root mount-point options [optional...] - fstype source super-options
        std::vector<std::string> f;
        size_t pos = 0;
        while (pos < line.size()) {
            size_t end = line.find(' ', pos);
            if (end == std::string::npos) end = line.size();
            f.push_back(line.substr(pos, end - pos));
            pos = end + 1;
        }
        if (f.size() < 7) continue;
        MountEntry m;
        m.point = unescape_mount_field(f[4]);
        size_t opt = 0;
        while (opt < f[5].size()) {
            size_t end = f[5].find(',', opt);
            if (end == std::string::npos) end = f[5].size();
            const std::string o = f[5].substr(opt, end - opt);
            if (o == "nosuid") m.flags |= MS_NOSUID;
            else if (o == "nodev") m.flags |= MS_NODEV;
            else if (o == "noexec") m.flags |= MS_NOEXEC;
            else if (o == "noatime") m.flags |= MS_NOATIME;
            else if (o == "nodiratime") m.flags |= MS_NODIRATIME;
            else if (o == "relatime") m.flags |= MS_RELATIME;
            opt = end + 1;
        }
        for (size_t i = 6; i + 1 < f.size(); ++i)
            if (f[i] == "-") m.fstype = f[i + 1];
        mounts.push_back(m);
    }
    return mounts;
}

// ---- what the child does between fork and exec ------------------------------------------------
// Everything is prepared before fork; the child only reads this plan and makes system calls
// (async-signal-safe: the grader has other threads, whose locks the child may have copied held).

enum Step : int {
    kStepFds = 1, kStepUnshare, kStepPrivate, kStepOpen, kStepReadOnly, kStepCover, kStepMountPoint, kStepBind,
    kStepFork, kStepProc, kStepIds, kStepNoNewPrivs, kStepParent, kStepChdir, kStepExec
};

struct ChildReport {
    int step, err, index;  // index: of the path in ChildPlan::paths, or -1
};

struct RemountReadOnly {
    int path;
    unsigned long keep_flags;
    bool required;
};
struct Cover {
    int path;
    const char* tmpfs_options;
    bool writable;  // a private /tmp or /dev/shm (else an empty, read-only cover)
};
struct Expose {
    int path;
    bool writable;
    bool must_exist;
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
    bool namespaces = false;
    int unshare_flags = 0;
    std::vector<const char*> paths;  // every path below, by index
    std::vector<RemountReadOnly> read_only;
    std::vector<Cover> covers;
    std::vector<Expose> exposes;  // parents before children
};

[[noreturn]] void child_fail(const ChildPlan& p, int step, int index = -1) {
    ChildReport r{step, errno, index};
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

void close_inherited(const ChildPlan& p) {
    for (size_t i = 0; i < p.inherit_count; ++i) close(p.inherit[i].second);
}

void apply_limits(const Limits& lim) {
    set_limit(RLIMIT_CORE, 0);
    if (lim.cpu_s > 0) set_limit(RLIMIT_CPU, static_cast<rlim_t>(lim.cpu_s));
    if (lim.mem_mb > 0) set_limit(RLIMIT_DATA, static_cast<rlim_t>(lim.mem_mb) << 20);
    if (lim.file_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(lim.file_mb) << 20);
    if (lim.processes > 0) set_limit(RLIMIT_NPROC, static_cast<rlim_t>(lim.processes));
    if (lim.open_files > 0) set_limit(RLIMIT_NOFILE, static_cast<rlim_t>(lim.open_files));
}

// mkdir -p inside a fresh tmpfs (the cover of a hidden folder), then the mount point itself.
bool make_mount_point(const char* path, bool dir) {
    char buf[PATH_MAX];
    size_t n = std::strlen(path);
    if (n >= sizeof buf) return false;
    std::memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; ++i) {
        if (buf[i] != '/') continue;
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
        buf[i] = '/';
    }
    if (dir) return mkdir(path, 0755) == 0 || errno == EEXIST;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return errno == EEXIST;
    close(fd);
    return true;
}

// The calling process's own descriptor as a path: the source of a bind mount whose original
// place is covered by then.
void fd_path(int fd, char* out) {
    const char prefix[] = "/proc/self/fd/";
    std::memcpy(out, prefix, sizeof prefix);
    char digits[16];
    int n = 0;
    do digits[n++] = static_cast<char>('0' + fd % 10); while ((fd /= 10) > 0);
    char* o = out + sizeof prefix - 1;
    while (n > 0) *o++ = digits[--n];
    *o = '\0';
}

// In new mount namespace: everything read-only, covers over the hidden paths, /tmp and
// /dev/shm, then the run folder and the read-only paths bound back where they were.
void set_up_mounts(const ChildPlan& p) {
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) child_fail(p, kStepPrivate);
    umask(022);  // mount points made below must be passable for the program
    int fds[256];
    const size_t n_exposes = std::min<size_t>(p.exposes.size(), 256);
    for (size_t i = 0; i < n_exposes; ++i) {
        const Expose& e = p.exposes[i];
        fds[i] = open(p.paths[e.path], O_PATH | O_CLOEXEC);
        if (fds[i] < 0 && (e.must_exist || errno != ENOENT)) child_fail(p, kStepOpen, e.path);
    }
    for (const RemountReadOnly& r : p.read_only)
        if (mount(nullptr, p.paths[r.path], nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | r.keep_flags, nullptr) != 0 && r.required)
            child_fail(p, kStepReadOnly, r.path);
    for (const Cover& c : p.covers) {
        struct stat st;
        if (stat(p.paths[c.path], &st) != 0) continue;  // already under another cover: hidden
        int rc = S_ISDIR(st.st_mode)
                     ? mount("tmpfs", p.paths[c.path], "tmpfs", MS_NOSUID | MS_NODEV | (c.writable ? 0 : MS_NOEXEC), c.tmpfs_options)
                     : mount("/dev/null", p.paths[c.path], nullptr, MS_BIND, nullptr);
        if (rc != 0) child_fail(p, kStepCover, c.path);
    }
    for (size_t i = 0; i < n_exposes; ++i) {
        if (fds[i] < 0) continue;
        const Expose& e = p.exposes[i];
        struct stat st;
        if (fstat(fds[i], &st) != 0 || !make_mount_point(p.paths[e.path], S_ISDIR(st.st_mode)))
            child_fail(p, kStepMountPoint, e.path);
        char source[64];
        fd_path(fds[i], source);
        if (mount(source, p.paths[e.path], nullptr, MS_BIND, nullptr) != 0 ||
            mount(nullptr, p.paths[e.path], nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (e.writable ? 0 : MS_RDONLY), nullptr) != 0)
            child_fail(p, kStepBind, e.path);
        close(fds[i]);
    }
    // The covers of hidden paths hold only mount points: read-only from now on.
    for (const Cover& c : p.covers)
        if (!c.writable)
            mount(nullptr, p.paths[c.path], nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
}

[[noreturn]] void exec_program(const ChildPlan& p, pid_t expected_parent) {
    if (p.drop_ids) {
        // Raw system calls: the C library's wrappers would try to change every thread of the
        // grader, whose copies do not exist here.
        if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, p.gid, p.gid, p.gid) != 0 ||
            syscall(SYS_setresuid, p.uid, p.uid, p.uid) != 0)
            child_fail(p, kStepIds);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(p, kStepNoNewPrivs);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // (again: a change of identity clears it)
    if (getppid() != expected_parent) {
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

// Ends this process the way `status` ended the program.
[[noreturn]] void mirror_status(int status) {
    if (WIFSIGNALED(status)) {
        kill(getpid(), WTERMSIG(status));  // signals are at their defaults, core dumps off
        _exit(128 + WTERMSIG(status));
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

// `p` is the child's own copy of the parent's plan (changed here only; copying it would allocate).
[[noreturn]] void child_main(ChildPlan& p) {
    reset_signals();  // the grader's handlers and mask are not the program's
    setsid();         // its own session and group: no terminal to type into, one group to kill
    arrange_fds(p);
    apply_limits(p.limits);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the grader dies: so does the run
    if (getppid() != p.grader) _exit(126);
    if (!p.namespaces) exec_program(p, p.grader);

    if (unshare(p.unshare_flags) != 0) child_fail(p, kStepUnshare);
    set_up_mounts(p);
    // The next child is PID 1 of the new PID namespace: it mounts that namespace's /proc, starts
    // the program and reaps orphans; when it exits, the kernel kills whatever is left inside.
    // This process stays outside and ends as the program did (PID 1 cannot re-raise a signal).
    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0) child_fail(p, kStepFork);
    pid_t init = fork();
    if (init < 0) child_fail(p, kStepFork);
    if (init == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        const unsigned long proc_flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
        // hidepid=2: the program does not see this root-owned init either.
        if (mount("proc", "/proc", "proc", proc_flags, "hidepid=2") != 0 && mount("proc", "/proc", "proc", proc_flags, nullptr) != 0)
            child_fail(p, kStepProc);
        pid_t program = fork();
        if (program < 0) child_fail(p, kStepFork);
        if (program == 0) exec_program(p, 1);
        close(p.report_fd);
        close_inherited(p);
        int status = 0;
        for (;;) {
            pid_t w = waitpid(-1, &status, 0);
            if (w == program) break;
            if (w < 0 && errno != EINTR) {
                status = 126 << 8;
                break;
            }
        }
        (void)!write(status_pipe[1], &status, sizeof status);
        _exit(0);
    }
    close(status_pipe[1]);
    close(p.report_fd);
    close_inherited(p);
    int init_status = 0;
    while (waitpid(init, &init_status, 0) < 0 && errno == EINTR) {}
    int status = 0;
    if (read(status_pipe[0], &status, sizeof status) == static_cast<ssize_t>(sizeof status)) mirror_status(status);
    mirror_status(init_status);
}

// The plan's storage and the checks made before fork.
struct PlanStore {
    std::vector<std::string> paths;
    std::vector<std::string> options;
    int add(const std::string& path) {
        paths.push_back(path);
        return static_cast<int>(paths.size() - 1);
    }
};

std::string plan_confinement(const RunSpec& spec, ChildPlan& plan, PlanStore& store) {
    const Confinement& c = spec.confine;
    plan.drop_ids = c.drop_ids;
    plan.uid = c.uid;
    plan.gid = c.gid;
    if (c.drop_ids && geteuid() != 0) return "running as another user needs the grader to be root";
    if (!c.namespaces) return "";
    if (!c.drop_ids) return "namespaces without a change of user are not supported";
    plan.namespaces = true;
    plan.unshare_flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (c.network ? CLONE_NEWNET : 0);

    // Covers: a private /tmp and /dev/shm, then the hidden paths (outermost only).
    struct Planned {
        std::string path;
        bool writable;
    };
    std::vector<Planned> covers;
    for (const char* shared : {"/tmp", "/dev/shm"}) {
        struct stat st;
        if (stat(shared, &st) == 0 && S_ISDIR(st.st_mode)) covers.push_back({shared, true});
    }
    std::vector<std::string> hidden;
    for (const std::string& h : c.hidden) {
        std::string r = real_path(h);
        if (r.empty()) continue;  // nothing there to hide
        if (r == "/" || is_under(r, "/proc") || is_under(r, "/dev")) return "cannot hide " + h;
        hidden.push_back(r);
    }
    std::sort(hidden.begin(), hidden.end());
    for (const std::string& h : hidden) {
        bool inside = false;
        for (const Planned& p : covers) inside |= is_under(h, p.path);
        if (!inside) covers.push_back({h, false});
    }

    // Paths bound back: the run folder and the rest read-write, the others read-only.
    struct Bound {
        std::string path;
        bool writable, must_exist;
    };
    std::vector<Bound> bound;
    auto add_bound = [&](const std::string& path, bool writable) -> std::string {
        std::string r = real_path(path);
        if (r.empty()) return writable ? "no such folder: " + path : "";
        if (r.size() >= PATH_MAX - 1) return "path too long: " + path;
        for (const Planned& cover : covers)
            if (is_under(cover.path, r)) return "binding " + path + " would show " + cover.path + ", which is hidden";
        for (const char* system : {"/proc", "/dev"})
            if (is_under(r, system) || is_under(system, r)) return "cannot bind " + path;
        for (Bound& b : bound)
            if (b.path == r) {
                b.writable |= writable;
                return "";
            }
        bound.push_back({r, writable, writable});
        return "";
    };
    for (const std::string& w : c.writable)
        if (std::string e = add_bound(w, true); !e.empty()) return e;
    for (const std::string& r : c.readonly)
        if (std::string e = add_bound(r, false); !e.empty()) return e;
    if (bound.size() > 256) return "too many paths to bind";
    std::sort(bound.begin(), bound.end(), [](const Bound& a, const Bound& b) {
        return a.path.size() != b.path.size() ? a.path.size() < b.path.size() : a.path < b.path;
    });

    // Every mount read-only but /proc (replaced), /dev (the GPU's device nodes) and what is
    // covered anyway; automount points are left alone (touching them mounts).
    std::vector<MountEntry> mounts = read_mounts();
    bool have_root = false;
    for (const MountEntry& m : mounts) {
        if (m.fstype == "autofs" || is_under(m.point, "/proc") || is_under(m.point, "/dev")) continue;
        bool covered = false;
        for (const Planned& p : covers) covered |= is_under(m.point, p.path);
        if (covered) continue;
        bool first = true;  // a mount point stacked several times is remounted once
        for (const RemountReadOnly& r : plan.read_only) first &= store.paths[r.path] != m.point;
        if (!first) continue;
        have_root |= m.point == "/";
        plan.read_only.push_back({store.add(m.point), m.flags, m.point == "/"});
    }
    if (!have_root) return "cannot read /proc/self/mountinfo";

    const std::string tmp_size = spec.limits.file_mb > 0 ? ",size=" + std::to_string(4 * spec.limits.file_mb) + "m" : "";
    store.options = {"mode=1777" + tmp_size, "mode=755,size=1m"};
    for (const Planned& p : covers) plan.covers.push_back({store.add(p.path), nullptr, p.writable});
    for (const Bound& b : bound) plan.exposes.push_back({store.add(b.path), b.writable, b.must_exist});
    return "";
}

const char* step_text(int step) {
    switch (step) {
        case kStepFds: return "arrange the file descriptors";
        case kStepUnshare: return "create the namespaces (unshare)";
        case kStepPrivate: return "make the mounts private";
        case kStepOpen: return "open";
        case kStepReadOnly: return "remount read-only";
        case kStepCover: return "hide";
        case kStepMountPoint: return "create the mount point";
        case kStepBind: return "bind";
        case kStepFork: return "start the namespace's first process";
        case kStepProc: return "mount /proc";
        case kStepIds: return "switch to the sandbox's user";
        case kStepNoNewPrivs: return "forbid new privileges";
        case kStepParent: return "stay the grader's child";
        case kStepChdir: return "enter the working folder";
        default: return "start";
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

RunResult run_process(const RunSpec& spec) {
    RunResult res;
    if (spec.argv.empty()) {
        res.error = "empty command";
        return res;
    }
    if (spec.inherit_fds.size() > kMaxInherited) {
        res.error = "too many inherited descriptors";
        return res;
    }
    for (size_t i = 0; i < spec.inherit_fds.size(); ++i) {
        const auto& [from, to] = spec.inherit_fds[i];
        bool clash = to < 3 || to > kMaxTargetFd || fcntl(from, F_GETFD) < 0;
        for (size_t j = 0; j < i; ++j) clash |= spec.inherit_fds[j].second == to;
        if (clash) {
            res.error = "bad inherited descriptor " + std::to_string(from) + " -> " + std::to_string(to);
            return res;
        }
    }
    mkdir(spec.cwd.c_str(), 0700);
    const std::string out_path = spec.stdout_path.empty() ? spec.cwd + "/.stdout" : spec.stdout_path;
    const std::string err_path = spec.stderr_path.empty() ? spec.cwd + "/.stderr" : spec.stderr_path;

    // Everything the child needs is prepared before fork: only async-signal-safe calls after.
    ChildPlan plan;
    PlanStore store;
    if (std::string why = plan_confinement(spec, plan, store); !why.empty()) {
        res.error = "cannot set up the sandbox: " + why;
        return res;
    }
    for (const std::string& p : store.paths) plan.paths.push_back(p.c_str());
    for (Cover& c : plan.covers) c.tmpfs_options = store.options[c.writable ? 0 : 1].c_str();
    std::vector<char*> argv, envp;
    for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    plan.argv = argv.data();
    plan.envp = envp.data();
    plan.cwd = spec.cwd.c_str();
    plan.limits = spec.limits;
    plan.grader = getpid();
    plan.inherit_count = spec.inherit_fds.size();
    std::copy(spec.inherit_fds.begin(), spec.inherit_fds.end(), plan.inherit);
    // O_NOFOLLOW: an output file in a folder the program could write must not lead elsewhere.
    plan.out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    plan.err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    plan.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int report[2];  // setup and exec failures reported through a close-on-exec pipe
    if (plan.out_fd < 0 || plan.err_fd < 0 || plan.null_fd < 0 || pipe2(report, O_CLOEXEC) != 0) {
        res.error = std::string("cannot prepare the run: ") + std::strerror(errno);
        for (int fd : {plan.out_fd, plan.err_fd, plan.null_fd}) if (fd >= 0) close(fd);
        return res;
    }
    plan.report_fd = report[1];
    const Limits& lim = spec.limits;
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    {
        std::lock_guard<std::mutex> lock(runs_mutex());
        pid = fork();
        if (pid == 0) child_main(plan);  // (the child never touches the lock)
        if (pid > 0) runs_in_flight().insert(pid);
    }
    // Unregistered once waited for (its process group killed first): what is left of it then
    // is a stray that any sweep may kill.
    struct InFlight {
        pid_t pid;
        ~InFlight() {
            if (pid <= 0) return;
            std::lock_guard<std::mutex> lock(runs_mutex());
            runs_in_flight().erase(pid);
        }
    } in_flight{pid};
    close(report[1]);
    close(plan.out_fd);
    close(plan.err_fd);
    close(plan.null_fd);
    if (pid < 0) {
        close(report[0]);
        res.error = std::string("fork failed: ") + std::strerror(errno);
        return res;
    }
    ChildReport failure{};
    size_t got = 0;
    while (got < sizeof failure) {
        ssize_t n = read(report[0], reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
        if (n > 0) got += static_cast<size_t>(n);
        else if (n < 0 && errno == EINTR) continue;
        else break;
    }
    close(report[0]);
    if (got == sizeof failure) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        if (failure.step == kStepExec) {
            res.error = std::string("cannot run ") + spec.argv[0] + ": " + std::strerror(failure.err);
        } else {
            res.error = std::string("cannot set up the sandbox: ") + step_text(failure.step);
            if (failure.index >= 0 && static_cast<size_t>(failure.index) < store.paths.size())
                res.error += " " + store.paths[static_cast<size_t>(failure.index)];
            if (failure.step == kStepIds) res.error += " (uid " + std::to_string(plan.uid) + ")";
            res.error += std::string(": ") + std::strerror(failure.err);
        }
        return res;
    }
    res.started = true;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (w == pid) break;
        if (elapsed > lim.wall_s) {
            res.timed_out = true;
            kill(-pid, SIGKILL);  // with a PID namespace, its first process too: the kernel ends the rest
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(elapsed < 1 ? 2 : 20));
    }
    kill(-pid, SIGKILL);  // whatever it left behind in its group
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!res.timed_out) {
        if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
        if (spec.wrapper_exit_is_signal && res.exit_code > 128 && res.exit_code < 128 + NSIG) {
            res.signal = res.exit_code - 128;
            res.exit_code = -1;
        }
    }
    res.out = read_head(out_path, lim.keep_output, &res.out_truncated);
    res.err = read_head(err_path, lim.keep_output, &res.err_truncated);
    return res;
}

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
                                  "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
                                  "--dev-bind", "/dev", "/dev", "--proc", "/proc",
                                  "--ro-bind", "/sys", "/sys", "--tmpfs", "/tmp"};
    // /dev comes whole (the GPU's nodes): its shared-memory folder is the host's, so a private one.
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

// bubblewrap runs as the grader's user where that is not root; the namespaces and uid levels
// need root (run_process refuses them otherwise).
bool runs_as_sandbox_ids(const Isolation& iso) {
    return iso.level == "namespaces" || iso.level == "uid" || (iso.level == "bwrap" && geteuid() == 0);
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
    std::string line;
    if (level == "bwrap") {
        line = "bubblewrap (" + bwrap + ") as " + who + account +
               ": own user, PID, mount, IPC, UTS and network namespaces, no capabilities; it sees only /usr, /etc, /sys, /dev, "
               "the CUDA toolkit and its run folder, read-only but for the run folder and a private /tmp; the trusted tree, "
               "the results and other submissions are not visible";
    } else if (level == "namespaces") {
        line = "namespaces as " + who + account + " (no bubblewrap): own PID, mount, IPC, UTS" +
               (network_namespace ? " and network namespaces" : " namespaces (a network namespace was refused: the network is reachable)") +
               ", other processes invisible, no new privileges; the file system read-only with the trusted tree, the results and "
               "the submissions hidden; only its run folder and a private /tmp writable";
    } else if (level == "uid") {
        line = "user " + who + account + " only (the kernel refused namespaces): it cannot signal the grader or write its files, "
               "but it can read every file that any user may read (world-readable parts of the trusted tree included), see "
               "other processes and use the network";
    } else {
        line = "UNSAFE: resource limits only, as " + who + " (uid " + std::to_string(geteuid()) +
               "): the submission can read, write and signal whatever the grader can, and use the network";
    }
    if (!note.empty()) line += " [stronger levels not used: " + note + "]";
    return line;
}

std::vector<std::string> Isolation::wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                         const std::vector<std::string>& extra_rw,
                                         const std::vector<std::string>& inner_env) const {
    if (level != "bwrap") return argv;
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
    if (level == "bwrap") {
        // Started as the sandbox's user, bubblewrap needs no privilege and gives the program none.
        spec.argv = bwrap_argv(*this, argv, workdir, extra_rw, inner_env, extra_ro, spec.confine.drop_ids);
        spec.wrapper_exit_is_signal = true;
        return;
    }
    spec.argv = argv;
    spec.env.insert(spec.env.end(), inner_env.begin(), inner_env.end());
    if (level != "namespaces") return;
    spec.confine.namespaces = true;
    spec.confine.network = network_namespace;
    spec.confine.hidden = hidden;
    spec.confine.writable = {workdir};
    spec.confine.writable.insert(spec.confine.writable.end(), extra_rw.begin(), extra_rw.end());
    spec.confine.readonly = readonly;
    spec.confine.readonly.insert(spec.confine.readonly.end(), extra_ro.begin(), extra_ro.end());
    if (!argv.empty() && !argv[0].empty() && argv[0][0] == '/' && under_any(real_path(argv[0]), hidden))
        spec.confine.readonly.push_back(argv[0]);  // the program itself, where it lives in a hidden folder
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

Isolation choose_isolation(const std::string& requested, const IsolationPaths& paths, std::string* why_not) {
    // uid alone is weaker than a user should get without asking: it is never picked by auto.
    const std::vector<std::string> levels = {"bwrap", "namespaces"};
    std::string notes;
    auto add_note = [&](const std::string& n) { notes += (notes.empty() ? "" : "; ") + n; };
    Isolation none;
    none.level = "";
    auto finish = [&](Isolation iso) {
        if (why_not) *why_not = notes;
        return iso;
    };
    if (requested == "unsafe") {
        Isolation u;
        u.level = "unsafe";
        u.hidden = paths.hidden;
        u.readonly = paths.readonly;
        return finish(u);
    }
    std::vector<std::string> candidates;
    if (requested == "auto") {
        candidates = levels;
    } else if (requested == "uid" || std::find(levels.begin(), levels.end(), requested) != levels.end()) {
        candidates = {requested};
    } else {
        add_note("unknown isolation level '" + requested + "' (auto, bwrap, namespaces, uid or unsafe)");
        return finish(none);
    }

    std::string dir = paths.probe_dir;
    bool own_dir = dir.empty();
    if (own_dir) {
        char tmpl[] = "/tmp/cudalabs-probe-XXXXXX";
        if (!mkdtemp(tmpl)) {
            add_note(std::string("cannot create a probe folder in /tmp: ") + std::strerror(errno));
            return finish(none);
        }
        dir = tmpl;
    }
    Isolation chosen = none;
    // A probe that fails is made again after a pause: a passing refusal (a process limit, a
    // moment of load) must not make the run take a weaker level.
    auto probe = [&](const Isolation& iso) {
        std::string why = probe_isolation(iso, dir);
        for (size_t k = 0; k < paths.probe_pauses_s.size() && !why.empty(); ++k) {
            std::this_thread::sleep_for(std::chrono::duration<double>(paths.probe_pauses_s[k]));
            why = probe_isolation(iso, dir);
        }
        return why;
    };
    for (const std::string& level : candidates) {
        Isolation iso;
        iso.level = level;
        iso.hidden = paths.hidden;
        iso.readonly = paths.readonly;
        iso.uid = paths.uid;
        iso.gid = paths.gid;
        std::string why;
        if (level == "bwrap") {
            iso.bwrap = find_bwrap(paths.bwrap);
            if (iso.bwrap.empty()) why = "not installed (Debian/Ubuntu package bubblewrap)";
        } else if (geteuid() != 0) {
            why = "needs the grader to run as root";
        }
        if (why.empty()) why = probe(iso);
        if (!why.empty() && level == "namespaces") {
            Isolation without_net = iso;
            without_net.network_namespace = false;
            if (probe(without_net).empty()) {
                iso = without_net;
                why.clear();
            }
        }
        if (why.empty()) {
            iso.note = notes;
            chosen = iso;
            break;
        }
        add_note(level + ": " + why);
    }
    remove_folder(dir);
    if (chosen.level.empty() && requested == "auto")
        add_note(geteuid() == 0 ? "no namespaces can be made here: install bubblewrap (Debian/Ubuntu package bubblewrap), or grade in a "
                                  "container that allows namespaces; --isolation uid (submissions run as another user only: they can read "
                                  "what any user can and use the network) or --isolation unsafe are used only when asked for by name"
                                : "install bubblewrap (Debian/Ubuntu package bubblewrap; it needs unprivileged user namespaces), run the "
                                  "grader as root, or pass --isolation unsafe to run submissions as your own user with resource limits only");
    return finish(chosen);
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

}  // namespace grading
