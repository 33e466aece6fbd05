#include "gpu/gpu_locks.h"

#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace grading {

namespace {

std::string safe_name(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_') ? c : '_';
    return out.substr(0, 120);
}

}  // namespace

namespace {

// Waits for the door's flock on `fd` like wait_for_flock, but calls `on_wait` only once the door
// has stayed shut for kDoorQuietWait: a taker passing it holds it for a moment (the lanes of one
// grading run pass it at once all the time), and only a taker waiting behind it for the lock --
// another run's exclusive one -- holds it for longer.
int wait_for_door(int fd, const std::function<void()>& on_wait, bool& said) {
    const auto until = std::chrono::steady_clock::now() + kDoorQuietWait;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) return errno;
        if (std::chrono::steady_clock::now() >= until) return wait_for_flock(fd, LOCK_EX, on_wait, said);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return 0;
}

// The GPU's door, passed one taker at a time on the way to its lock and held until the lock is
// taken. flock prefers no one: without the door, the shared holders of several grading runs
// could overlap without end and keep a taker of the exclusive lock out; with it, a shared taker
// who comes after that one waits behind it.
HeldLock pass_door(const std::string& gpu, const std::string& folder, const std::function<void()>& on_wait, bool& said) {
    int fd = open_lock_file(folder, "gpu-" + safe_name(gpu) + ".door");
    if (const int err = wait_for_door(fd, on_wait, said)) {
        close(fd);
        throw std::runtime_error("cannot pass the door of GPU " + gpu + ": " + std::strerror(err));
    }
    return HeldLock(fd);
}

// One lock of the GPU's (its own, or its ticket's: `name`), through its door.
HeldLock lock_through_door(const std::string& gpu, const std::string& name, const std::string& folder,
                           const std::function<void()>& on_wait, bool& said, bool shared) {
    HeldLock door = pass_door(name, folder, on_wait, said);
    int fd = open_lock_file(folder, "gpu-" + safe_name(name) + ".lock");
    if (const int err = wait_for_flock(fd, shared ? LOCK_SH : LOCK_EX, on_wait, said)) {
        close(fd);
        throw std::runtime_error("cannot lock GPU " + gpu + ": " + std::strerror(err));
    }
    return HeldLock(fd);
}

}  // namespace

TurnLocks lock_gpu(const std::string& gpu, const std::string& folder, TurnKind kind, const std::function<void()>& on_wait) {
    bool said = false;
    TurnLocks locks;
    if (kind != TurnKind::Shared) locks.ticket = lock_through_door(gpu, "ticket-" + gpu, folder, on_wait, said, false);
    locks.gpu = lock_through_door(gpu, gpu, folder, on_wait, said, kind != TurnKind::Alone);
    return locks;
}

void make_gpu_lock_exclusive(TurnLocks& locks, const std::string& gpu, const std::string& folder) {
    if (!locks.gpu.held()) return;
    if (!locks.ticket.held()) throw std::logic_error("make_gpu_lock_exclusive: GPU " + gpu + "'s ticket is not held");
    bool said = true;  // (nothing to say: the caller holds the lock already)
    HeldLock door = pass_door(gpu, folder, {}, said);
    if (const int err = wait_for_flock(locks.gpu.fd(), LOCK_EX, {}, said))
        throw std::runtime_error("cannot make the lock of GPU " + gpu + " exclusive: " + std::strerror(err));
}

}  // namespace grading
