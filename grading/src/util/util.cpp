#include "util/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sandbox/gpus.h"

namespace grading {

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

namespace {

std::string folder_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

[[noreturn]] void storage_failed(const std::string& what, const std::string& path, int error) {
    throw StorageError("cannot " + what + " " + path + " (" + std::strerror(error) + ")");
}

// Writes all of `text` to `fd` and flushes it to the disk; false (errno set) when it cannot.
bool write_all_synced(int fd, const std::string& text) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return fsync(fd) == 0;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
    const std::string temp = path + ".tmp";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) storage_failed("write", temp, errno);
    if (!write_all_synced(fd, text)) {
        const int error = errno;
        ::close(fd);
        unlink(temp.c_str());  // a partial copy would only take space
        storage_failed("write", temp, error);
    }
    ::close(fd);
    if (std::rename(temp.c_str(), path.c_str()) != 0) storage_failed("replace", path, errno);
    // The rename itself reaches the disk with its folder: a lost machine keeps one file or the other.
    const int dir = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        fsync(dir);
        ::close(dir);
    }
}

void append_line_synced(const std::string& path, const std::string& line) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) storage_failed("write", path, errno);
    const bool ok = write_all_synced(fd, line + "\n");
    const int error = errno;
    ::close(fd);
    if (!ok) storage_failed("write", path, error);
}

std::string complete_lines(const std::string& text, bool* torn) {
    const size_t last = text.find_last_of('\n');
    const size_t keep = last == std::string::npos ? 0 : last + 1;
    if (torn) *torn = keep < text.size();
    return text.substr(0, keep);
}

void check_writable(const std::string& dir) {
    const std::string probe = dir + "/.write-probe-" + std::to_string(getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) storage_failed("write in", dir, errno);
    const bool ok = write_all_synced(fd, std::string(64 << 10, '\0'));
    const int error = errno;
    ::close(fd);
    unlink(probe.c_str());
    if (!ok) storage_failed("write in", dir, error);
}

bool exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void make_dirs(const std::string& path) {
    std::string cur;
    std::istringstream in(path);
    std::string part;
    if (!path.empty() && path[0] == '/') cur = "/";
    while (std::getline(in, part, '/')) {
        if (part.empty()) continue;
        cur += part + "/";
        mkdir(cur.c_str(), 0755);
    }
    if (!is_dir(path)) throw std::runtime_error("cannot create the folder " + path);
}

void remove_tree(const std::string& path) {
    if (path.size() < 8) return;  // never anything as short as "/" or "build"
    RunSpec s;
    s.argv = {"/bin/rm", "-rf", "--", path};
    s.cwd = "/tmp";
    s.env = {"PATH=/usr/bin:/bin"};
    s.stdout_path = s.stderr_path = "/dev/null";
    s.limits.wall_s = 120;
    run_process(s);
}

std::string absolute(const std::string& path) {
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf)) return buf;
    if (!path.empty() && path[0] == '/') return path;
    char cwd[PATH_MAX];
    return std::string(getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + path;
}

std::vector<std::string> list_dir(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) out.push_back(e->d_name);
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string basename_of(const std::string& p) {
    size_t s = p.find_last_of('/');
    return s == std::string::npos ? p : p.substr(s + 1);
}

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

std::string real_path(const std::string& path) {
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

std::vector<std::string> split_ws(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    std::string w;
    while (in >> w) out.push_back(w);
    return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

std::string clip(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    return s.substr(0, max) + "\n[... " + std::to_string(s.size() - max) + " more bytes]";
}

std::string safe_id(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (out.empty() || out[0] == '.') out = "_" + out;
    return out.substr(0, 100);
}

std::string elapsed_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string random_hex(size_t bytes) {
    std::ifstream f("/dev/urandom", std::ios::binary);
    std::string raw(bytes, '\0');
    f.read(&raw[0], static_cast<std::streamsize>(bytes));
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
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
