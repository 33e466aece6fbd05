#include "util/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "args.h"

namespace grading {

namespace {

[[noreturn]] void storage_failed(const std::string& what, const std::string& path, int error) {
    throw StorageError("cannot " + what + " " + path + " (" + std::strerror(error) + ")");
}

// Writes all of `text` to `fd`, flushed to the disk where `sync`; false (errno set) when it cannot.
bool write_all(int fd, const std::string& text, bool sync) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return !sync || fsync(fd) == 0;
}

// Writes `text` to a file opened with `flags`: 0, or the errno of what failed.
int write_to(const std::string& path, const std::string& text, int flags, mode_t mode, bool sync) {
    const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0) return errno;
    const bool ok = write_all(fd, text, sync);
    const int error = errno;
    const bool closed = ::close(fd) == 0;
    if (!ok) return error;
    return closed ? 0 : errno;
}

}  // namespace

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    if (const int error = write_to(path, text, O_CREAT | O_TRUNC, 0644, false)) storage_failed("write", path, error);
}

void write_file_atomic(const std::string& path, const std::string& text) {
    const std::string temp = path + ".tmp";
    if (const int error = write_to(temp, text, O_CREAT | O_TRUNC, 0644, true)) {
        unlink(temp.c_str());  // a partial copy would only take space
        storage_failed("write", temp, error);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) storage_failed("replace", path, errno);
    // The rename itself reaches the disk with its folder: a lost machine keeps one file or the other.
    const int dir = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        fsync(dir);
        ::close(dir);
    }
}

void append_line_synced(const std::string& path, const std::string& line) {
    if (const int error = write_to(path, line + "\n", O_CREAT | O_APPEND, 0644, true)) storage_failed("write", path, error);
}

std::string complete_lines(const std::string& text, bool* torn) {
    const size_t last = text.find_last_of('\n');
    const size_t keep = last == std::string::npos ? 0 : last + 1;
    if (torn) *torn = keep < text.size();
    return text.substr(0, keep);
}

std::string read_given_file(const std::string& path, size_t max_bytes, const std::string& what) {
    const std::string named = what + " " + path;
    // O_NONBLOCK: a FIFO opens at once (and is then refused) instead of waiting for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) throw cudalabs::UsageError("no such " + named);
        throw cudalabs::UsageError("cannot read the " + named + " (" + std::strerror(errno) + ")");
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw cudalabs::UsageError("the " + named + " is not a regular file (" +
                                   (S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or another kind of file") +
                                   "): give a file");
    }
    std::string text;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            throw cudalabs::UsageError("cannot read the " + named + " (" + std::strerror(error) + ")");
        }
        if (n == 0) break;
        text.append(buf, static_cast<size_t>(n));
        if (text.size() > max_bytes) {
            ::close(fd);
            throw cudalabs::UsageError("the " + named + " is larger than " + std::to_string(max_bytes >> 20) + " MiB: give the right file");
        }
    }
    ::close(fd);
    return text;
}

unsigned long long free_bytes(const std::string& path) {
    struct statvfs s;
    if (statvfs(path.c_str(), &s) != 0) return 0;
    return static_cast<unsigned long long>(s.f_bavail) * s.f_frsize;
}

namespace {
std::atomic<int> builds_at_once{1};
}  // namespace

void set_builds_at_once(int builds) { builds_at_once = builds > 0 ? builds : 1; }

unsigned long long required_free_bytes() {
    unsigned long long mib = 1024;
    if (const char* v = std::getenv("GRADING_MIN_FREE_MB")) {
        char* end = nullptr;
        const unsigned long long given = std::strtoull(v, &end, 10);
        if (end != v && *end == '\0') mib = given;
    }
    return std::max(mib, static_cast<unsigned long long>(builds_at_once) * kBuildFileMiB) << 20;
}

void check_free_space(const std::string& dir) {
    const unsigned long long have = free_bytes(dir), need = required_free_bytes();
    if (have < need)
        throw StorageError("the disk of " + dir + " has " + std::to_string(have >> 20) + " MiB free, and a grading run needs " +
                           std::to_string(need >> 20) + " MiB (GRADING_MIN_FREE_MB, and " + std::to_string(kBuildFileMiB) +
                           " MiB for each build at once)");
}

void check_writable(const std::string& dir) {
    const std::string probe = dir + "/.write-probe-" + std::to_string(getpid());
    const int error = write_to(probe, std::string(64 << 10, '\0'), O_CREAT | O_TRUNC, 0600, true);
    unlink(probe.c_str());
    if (error) storage_failed("write in", dir, error);
    check_free_space(dir);
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

namespace {

// Removes what folder `dir` (an open descriptor, closed here) holds, following no link.
void empty_folder(int dir) {
    DIR* d = fdopendir(dir);
    if (!d) {
        ::close(dir);
        return;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d))
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
    for (const std::string& name : names) {
        if (unlinkat(dirfd(d), name.c_str(), 0) == 0) continue;
        const int sub = openat(dirfd(d), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        fchmod(sub, 0700);  // a folder its program left without write permission
        empty_folder(sub);
        unlinkat(dirfd(d), name.c_str(), AT_REMOVEDIR);
    }
    closedir(d);
}

}  // namespace

void remove_tree(const std::string& path) {
    if (path.size() < 8) return;  // never anything as short as "/" or "build"
    const int dir = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) {
        unlink(path.c_str());  // a file, a link, or nothing
        return;
    }
    empty_folder(dir);
    rmdir(path.c_str());
}

std::string absolute(const std::string& path) {
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf)) return buf;
    if (!path.empty() && path[0] == '/') return path;
    char cwd[PATH_MAX];
    return std::string(getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + path;
}

std::string real_path(const std::string& path) {
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

namespace {

// `path` made absolute with every link of the part of it that exists resolved.
std::string resolved(const std::string& path) {
    std::string p = absolute(path), rest;
    while (p.size() > 1 && !exists(p)) {
        const size_t slash = p.find_last_of('/');
        rest = p.substr(slash) + rest;
        p = slash == 0 ? "/" : p.substr(0, slash);
    }
    const std::string real = real_path(p);
    return (real.empty() ? p : real == "/" ? "" : real) + rest;
}

}  // namespace

bool is_within(const std::string& inner, const std::string& outer) {
    const std::string in = resolved(inner), out = resolved(outer);
    return in == out || out.empty() || (in.size() > out.size() && in.compare(0, out.size(), out) == 0 && in[out.size()] == '/');
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

std::string folder_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace grading
