// Locks the kernel drops when their holder ends, however it ends: machine-wide ones on files in a
// folder every grader uses (flock: a sandbox identity, a GPU), and one run at a time in an output
// folder (a record lock that names its holder). Depends on nothing of the grader. Host-only:
// unit-tested.
#pragma once
#include <functional>
#include <string>

namespace grading {

// A held lock: released when destroyed (or when the process ends, however it ends).
class HeldLock {
public:
    HeldLock() = default;
    explicit HeldLock(int fd) : fd_(fd) {}
    HeldLock(HeldLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    HeldLock& operator=(HeldLock&& o) noexcept;
    HeldLock(const HeldLock&) = delete;
    HeldLock& operator=(const HeldLock&) = delete;
    ~HeldLock();
    bool held() const { return fd_ >= 0; }
    void release();

    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

// The folder of the locks: $GRADING_LOCK_DIR, else /run/lock/cudalabs-grading where /run/lock
// exists, else /tmp/cudalabs-grading-locks. Created (mode 1777: graders of any user lock there)
// when missing; throws when it cannot be used.
std::string lock_folder();

// The lock file `name` in `folder`, opened without following a link (a file any grader can open:
// a lock only needs a descriptor, read-only will do). Throws std::runtime_error naming it.
int open_lock_file(const std::string& folder, const std::string& name);

// Waits for flock `mode` (LOCK_EX or LOCK_SH) on `fd`, calling `on_wait` first (once, where it is
// given and `said` is false; `said` is then set) when it is not free at once. Returns errno, 0
// when held.
int wait_for_flock(int fd, int mode, const std::function<void()>& on_wait, bool& said);

// One make at a time in a build folder: an exclusive flock on FOLDER/.make.lock (the folder is
// made when missing), waited for, saying so once on stderr. Several grading runs of one clone each
// build the grader and the lab; a make that rewrites a program while another run starts it fails
// that run ("Text file busy"), and two makes writing one object can leave it half written.
// grading/grade takes the same lock (flock(1)) around its makes. Throws std::runtime_error when
// the lock file cannot be opened.
HeldLock lock_build_folder(const std::string& folder);

// The build folder of the tree at `root`: $BUILD (as the Makefile reads it), else "build", made
// absolute against `root`.
std::string build_folder_of(const std::string& root);

// One grading run at a time in an output folder: a lock on OUT/.lock, held until this object
// ends (the process's end releases it too). A folder held by another run is refused with
// cudalabs::UsageError naming the process that holds it.
class FolderLock {
public:
    FolderLock() = default;
    explicit FolderLock(const std::string& folder);
    FolderLock(FolderLock&& other) noexcept;
    FolderLock& operator=(FolderLock&& other) noexcept;
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;
    ~FolderLock();
    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace grading
