#include "util/locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "args.h"
#include "util/files.h"

namespace grading {

HeldLock& HeldLock::operator=(HeldLock&& o) noexcept {
    if (this != &o) {
        release();
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

HeldLock::~HeldLock() { release(); }

void HeldLock::release() {
    if (fd_ >= 0) close(fd_);  // closing the last descriptor drops the flock
    fd_ = -1;
}

int open_lock_file(const std::string& folder, const std::string& name) {
    const std::string path = folder + "/" + name;
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EACCES) fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open the lock " + path + ": " + std::strerror(errno));
    return fd;
}


std::string lock_folder() {
    std::string folder;
    if (const char* env = std::getenv("GRADING_LOCK_DIR"); env && *env) folder = env;
    else {
        struct stat st;
        folder = stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode) && access("/run/lock", W_OK) == 0 ? "/run/lock/cudalabs-grading"
                                                                                                         : "/tmp/cudalabs-grading-locks";
    }
    if (mkdir(folder.c_str(), 01777) == 0) chmod(folder.c_str(), 01777);  // (the umask took bits away)
    struct stat st;
    if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error("cannot use the grading lock folder " + folder +
                                 " (it is not a folder; set GRADING_LOCK_DIR to one every grader on this machine can write)");
    return folder;
}

int wait_for_flock(int fd, int mode, const std::function<void()>& on_wait, bool& said) {
    if (flock(fd, mode | LOCK_NB) == 0) return 0;
    if (on_wait && !said) on_wait();
    said = true;
    while (flock(fd, mode) != 0)
        if (errno != EINTR) return errno;
    return 0;
}

// ---- one make at a time in a build folder ----

std::string build_folder_of(const std::string& root) {
    const char* env = std::getenv("BUILD");
    const std::string build = env && *env ? env : "build";
    return build[0] == '/' ? build : root + "/" + build;
}

HeldLock lock_build_folder(const std::string& folder) {
    make_dirs(folder);
    HeldLock lock(open_lock_file(folder, ".make.lock"));
    bool said = false;
    const auto say = [&] { std::fprintf(stderr, "grade: waiting for another grading run's build in %s...\n", folder.c_str()); };
    if (const int err = wait_for_flock(lock.fd(), LOCK_EX, say, said))
        throw std::runtime_error("cannot lock " + folder + "/.make.lock: " + std::strerror(err));
    return lock;
}

// ---- one run at a time in a folder ----

FolderLock::FolderLock(const std::string& folder) {
    const std::string path = folder + "/.lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        throw cudalabs::UsageError("cannot lock " + folder + " (" + path + ": " + std::strerror(errno) +
                                   "): give --out a folder of this run's own");
    struct flock want {};
    want.l_type = F_WRLCK;
    want.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &want) != 0) {
        struct flock held {};
        held.l_type = F_WRLCK;
        held.l_whence = SEEK_SET;
        const bool known = fcntl(fd, F_GETLK, &held) == 0 && held.l_type != F_UNLCK && held.l_pid > 0;
        const std::string who = read_file(path);
        ::close(fd);
        throw cudalabs::UsageError(folder + " is in use by another grading run (" +
                                   (known ? "process " + std::to_string(held.l_pid) : "its lock names " + who.substr(0, who.find('\n'))) +
                                   "): wait for it to end, or give this run another --out");
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const std::string who = "process " + std::to_string(getpid()) + " on " + host + "\n";
    if (ftruncate(fd, 0) == 0 && pwrite(fd, who.data(), who.size(), 0) < 0) {
        // the lock holds all the same; only the note of who holds it is missing
    }
    fd_ = fd;
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace grading
