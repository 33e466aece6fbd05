#include "sandbox/machine_locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

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

namespace {

// The lock file `name` in `folder`, opened without following a link (a file any grader can open:
// a lock only needs a descriptor, read-only will do).
int open_lock_file(const std::string& folder, const std::string& name) {
    const std::string path = folder + "/" + name;
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EACCES) fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open the lock " + path + ": " + std::strerror(errno));
    return fd;
}

std::string safe_name(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_') ? c : '_';
    return out.substr(0, 120);
}

}  // namespace

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

void HeldLock::convert(bool shared) {
    if (fd_ < 0) return;
    while (flock(fd_, shared ? LOCK_SH : LOCK_EX) != 0)
        if (errno != EINTR) throw std::runtime_error(std::string("cannot convert a GPU's lock: ") + std::strerror(errno));
}

HeldLock lock_gpu(const std::string& gpu, const std::string& folder, const std::function<void()>& on_wait, bool shared) {
    int fd = open_lock_file(folder, "gpu-" + safe_name(gpu) + ".lock");
    const int mode = shared ? LOCK_SH : LOCK_EX;
    if (flock(fd, mode | LOCK_NB) == 0) return HeldLock(fd);
    if (on_wait) on_wait();
    while (flock(fd, mode) != 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        close(fd);
        throw std::runtime_error("cannot lock GPU " + gpu + ": " + std::strerror(err));
    }
    return HeldLock(fd);
}

}  // namespace grading
