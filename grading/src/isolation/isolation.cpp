#include "isolation/isolation.h"

#include "args.h"
#include "util/files.h"
#include "util/text.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
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
    remove_tree(dir);
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

SandboxIdentity claim_sandbox_identity(uid_t first_uid, gid_t first_gid, int count, const std::string& folder) {
    for (int k = 0; k < count; ++k) {
        const uid_t uid = first_uid + static_cast<uid_t>(k);
        int fd = open_lock_file(folder, "uid-" + std::to_string(uid) + ".lock");
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            SandboxIdentity id;
            id.uid = uid;
            id.gid = first_gid + static_cast<gid_t>(k);
            id.lock = HeldLock(fd);
            return id;
        }
        close(fd);
    }
    throw std::runtime_error("all " + std::to_string(count) + " sandbox identities (uid " + std::to_string(first_uid) + " to " +
                             std::to_string(first_uid + static_cast<uid_t>(count) - 1) +
                             ") are in use by other grading runs on this machine: wait for one to end");
}

}  // namespace grading
