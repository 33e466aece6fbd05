#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

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

void set_limit(int resource, rlim_t value) {
    struct rlimit rl = {value, value};
    setrlimit(resource, &rl);
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
    mkdir(spec.cwd.c_str(), 0700);
    const std::string out_path = spec.stdout_path.empty() ? spec.cwd + "/.stdout" : spec.stdout_path;
    const std::string err_path = spec.stderr_path.empty() ? spec.cwd + "/.stderr" : spec.stderr_path;

    // Everything the child needs is prepared before fork: only async-signal-safe calls after.
    std::vector<char*> argv, envp;
    for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int report[2];  // exec failure reported through a close-on-exec pipe
    if (out_fd < 0 || err_fd < 0 || null_fd < 0 || pipe2(report, O_CLOEXEC) != 0) {
        res.error = std::string("cannot prepare the run: ") + std::strerror(errno);
        for (int fd : {out_fd, err_fd, null_fd}) if (fd >= 0) close(fd);
        return res;
    }
    const Limits& lim = spec.limits;
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);  // its own group: the time limit kills it and everything it started
        dup2(null_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        if (chdir(spec.cwd.c_str()) != 0) _exit(126);
        set_limit(RLIMIT_CORE, 0);
        if (lim.cpu_s > 0) set_limit(RLIMIT_CPU, static_cast<rlim_t>(lim.cpu_s));
        if (lim.mem_mb > 0) set_limit(RLIMIT_DATA, static_cast<rlim_t>(lim.mem_mb) << 20);
        if (lim.file_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(lim.file_mb) << 20);
        if (lim.processes > 0) set_limit(RLIMIT_NPROC, static_cast<rlim_t>(lim.processes));
        if (lim.open_files > 0) set_limit(RLIMIT_NOFILE, static_cast<rlim_t>(lim.open_files));
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // the grader dies: so does the run
        execve(argv[0], argv.data(), envp.data());
        if (argv[0][0] != '/') execvpe(argv[0], argv.data(), envp.data());
        int e = errno;
        (void)!write(report[1], &e, sizeof e);
        _exit(127);
    }
    close(report[1]);
    close(out_fd);
    close(err_fd);
    close(null_fd);
    if (pid < 0) {
        close(report[0]);
        res.error = std::string("fork failed: ") + std::strerror(errno);
        return res;
    }
    setpgid(pid, pid);  // also here: no race with the child's own call
    int exec_errno = 0;
    bool exec_failed = read(report[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(report[0]);
    if (exec_failed) {
        waitpid(pid, nullptr, 0);
        res.error = std::string("cannot run ") + spec.argv[0] + ": " + std::strerror(exec_errno);
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
            kill(-pid, SIGKILL);
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
    }
    res.out = read_head(out_path, lim.keep_output, &res.out_truncated);
    res.err = read_head(err_path, lim.keep_output, &res.err_truncated);
    return res;
}

void become_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

void reap_strays() {
    // Children of ours still alive are strays of a finished run (the grader runs one at a time
    // from this thread; compile jobs wait for their own children by pid before this is called).
    const pid_t self = getpid();
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
            long ppid = 0;
            if (std::sscanf(line.c_str() + close_paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == self)
                kill(static_cast<pid_t>(pid), SIGKILL);
        }
        closedir(proc);
    }
    while (waitpid(-1, nullptr, WNOHANG) > 0) {}
}

std::vector<std::string> Isolation::wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                         const std::vector<std::string>& extra_rw,
                                         const std::vector<std::string>& inner_env) const {
    if (level != "bwrap") return argv;
    std::vector<std::string> w = {bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                                  "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
                                  "--dev-bind", "/dev", "/dev", "--proc", "/proc",
                                  "--ro-bind", "/sys", "/sys", "--tmpfs", "/tmp"};
    // /bin, /lib... are links into /usr on merged-/usr systems, directories elsewhere.
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        struct stat st;
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
    for (const std::string& p : readonly) w.insert(w.end(), {"--ro-bind-try", p, p});
    for (const std::string& p : extra_rw) w.insert(w.end(), {"--bind", p, p});
    for (const std::string& e : inner_env) {
        size_t eq = e.find('=');
        if (eq != std::string::npos) w.insert(w.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
    }
    w.insert(w.end(), {"--bind", workdir, workdir, "--chdir", workdir, "--"});
    w.insert(w.end(), argv.begin(), argv.end());
    return w;
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
