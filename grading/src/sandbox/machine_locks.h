// What the grading runs on one machine share, each behind a lock the kernel drops when its holder
// ends (flock on a file in a folder every grader uses): a sandbox identity per run or worker, so
// that no run's processes count against another's process limit (RLIMIT_NPROC counts per uid)
// and no run can reach another's; and each GPU, taken exclusively for a timed test (or a whole
// submission, with one lane a GPU) and shared for untimed tests (gpu_turns.h), so that timings
// stay fair machine-wide and a GPU in exclusive-process mode (one lane) is never asked for two
// contexts at once. Host-only: unit-tested.
#pragma once
#include <sys/types.h>

#include <chrono>
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

private:
    friend void make_gpu_lock_exclusive(HeldLock& lock, const std::string& gpu, const std::string& folder);
    int fd_ = -1;
};

// The folder of the locks: $GRADING_LOCK_DIR, else /run/lock/cudalabs-grading where /run/lock
// exists, else /tmp/cudalabs-grading-locks. Created (mode 1777: graders of any user lock there)
// when missing; throws when it cannot be used.
std::string lock_folder();

// Takes the lock of the first free identity of uid (and gid) first .. first + count - 1, never
// waiting: another grading run holds the others. Throws, saying so, when all are taken.
struct SandboxIdentity {
    uid_t uid = 0;
    gid_t gid = 0;
    HeldLock lock;
};
SandboxIdentity claim_sandbox_identity(uid_t first_uid, gid_t first_gid, int count, const std::string& folder);

// How long a GPU's door may stay shut before a taker says another grading run holds the GPU.
constexpr std::chrono::milliseconds kDoorQuietWait{500};

// Waits for the lock of the GPU named `gpu` (its UUID, or any stable name), calling `on_wait`
// once first when another run holds it. Throws when the lock file cannot be opened. `shared`:
// taken shared (flock LOCK_SH), beside other shared holders -- the untimed runs of several
// submissions at once (gpu_turns.h) -- and never beside an exclusive one.
// Every taker passes the GPU's door first (one at a time, holding it until the lock is taken), so a
// taker of the exclusive lock is not kept out for ever by shared holders that keep overlapping:
// shared takers that come after it wait behind it.
// A door shut for less than kDoorQuietWait (another taker passing it, often a lane of the same
// run) is not another run's hold: `on_wait` is not called for it.
HeldLock lock_gpu(const std::string& gpu, const std::string& folder, const std::function<void()>& on_wait = {}, bool shared = false);
// A shared lock of the GPU `gpu` (lock_gpu) made exclusive, through the door like any taker:
// waits until no one else shares it. Not atomic (flock may drop the lock and take it again in
// between): the caller must hold what keeps every other exclusive taker out (gpu_turns.h, the
// ticket). Does nothing for a lock not held.
void make_gpu_lock_exclusive(HeldLock& lock, const std::string& gpu, const std::string& folder);

}  // namespace grading
