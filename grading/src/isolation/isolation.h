// Keeping a submission's runs apart: an isolation level (bubblewrap, its own uid, or rlimits
// only), chosen once per grading run by a probe and never weakened; the run folders a program may
// write; the scrubbed environment of a run. Host-only: unit-tested with stand-ins.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "intake/command_line.h"  // IsolationLevel
#include "process/process.h"
#include "util/locks.h"

namespace grading {

// The unprivileged identity submissions run as when the grader is root: a fixed id outside the
// ranges of user and system accounts, needing no account (nobody, 65534, would share its
// processes and files with daemons). describe() names an account that has it after all.
constexpr uid_t kSandboxUid = 64000;
constexpr gid_t kSandboxGid = 64000;
// Each grading run on the machine, and each of its --gpus workers, takes one of the identities
// kSandboxUid .. kSandboxUid + kSandboxIdentities - 1 (gids alike) under a lock (machine_locks.h).
constexpr int kSandboxIdentities = 256;

// Takes the lock of the first free identity of uid (and gid) first .. first + count - 1, never
// waiting: another grading run holds the others. Throws, saying so, when all are taken.
struct SandboxIdentity {
    uid_t uid = 0;
    gid_t gid = 0;
    HeldLock lock;
};
SandboxIdentity claim_sandbox_identity(uid_t first_uid, gid_t first_gid, int count, const std::string& folder);

struct Isolation {
    IsolationLevel level = IsolationLevel::Unsafe;
    std::string bwrap;               // path of bwrap at the Bwrap level
    uid_t uid = kSandboxUid;         // who the program runs as, when the grader is root
    gid_t gid = kSandboxGid;
    std::vector<std::string> readonly;  // visible read-only (the CUDA toolkit, the trace library)
    std::vector<std::string> hidden;    // not visible (the trusted tree, results, submissions)
    // At the Bwrap level, the device nodes a run sees beside /dev's basic ones (null, zero,
    // random, a tty, shm): its own GPU's and the driver's (gpu_nodes.h). Empty: the whole /dev.
    std::vector<std::string> devices;

    // One line for the reports: what is hidden, who the program runs as.
    std::string describe() const;
    // Whether programs run as `uid`:`gid` (else as the grader's own user).
    bool changes_user() const;
    // Fills `spec` to run `argv` in this isolation: argv (bwrap's prefix where used), cwd =
    // `workdir`, the child-side confinement. `workdir` and `extra_rw` are writable, argv[0]
    // (when absolute) and `extra_ro` read-only (the program may live in a hidden folder);
    // `inner_env` ("NAME=value") is set for the program only (under bwrap, not for bwrap itself,
    // so that LD_PRELOAD reaches the program). spec.env, limits, output paths and inherit_fds
    // are left as set. The run folder must come from prepare_run_folder.
    void apply(RunSpec& spec, const std::vector<std::string>& argv, const std::string& workdir,
               const std::vector<std::string>& extra_rw = {}, const std::vector<std::string>& inner_env = {},
               const std::vector<std::string>& extra_ro = {}) const;
    // bubblewrap's command line alone (no uid change): apply() is the whole of a run.
    std::vector<std::string> wrap(const std::vector<std::string>& argv, const std::string& workdir,
                                  const std::vector<std::string>& extra_rw = {},
                                  const std::vector<std::string>& inner_env = {}) const;
};

struct IsolationPaths {
    std::vector<std::string> hidden;    // the trusted tree, the results folder, submissions
    std::vector<std::string> readonly;  // the CUDA toolkit, the trace library
    // Where the probe runs (a folder like the real run folders, e.g. OUT/work/.probe; created
    // and removed). Empty: a fresh folder in /tmp.
    std::string probe_dir;
    // bwrap to use; empty: /usr/bin/bwrap, /bin/bwrap, /usr/local/bin/bwrap, then $PATH;
    // "none": as if bubblewrap were not installed.
    std::string bwrap;
    // Who the programs run as when the grader is root (this run's own identity).
    uid_t uid = kSandboxUid;
    gid_t gid = kSandboxGid;
    // Pauses between attempts of a probe that failed (seconds): a level is refused only when its
    // probe fails every time, never for a passing refusal (a process limit, a busy moment).
    std::vector<double> probe_pauses_s = {0.5, 2};
};

// The first folder on the way to `path` (or `path` itself) that uid:gid may not enter, "" when it
// may enter all of them: a bubblewrap started as that user cannot bind what lies past such a
// folder (a private home folder, a 0700 parent).
std::string unenterable_folder(const std::string& path, uid_t uid, gid_t gid);

// The isolation to grade with, chosen once per grading run and never changed during it.
// `requested`: "auto" or "bwrap" (bubblewrap), or "uid" or "unsafe" (only ever by name: nothing
// falls back to them). The level is probed (a small program run in it), again after each pause
// when it fails. Where it does not work, throws cudalabs::UsageError: one sentence saying what
// failed and what to do (for bubblewrap: install it, allow unprivileged user namespaces, or
// choose --isolation uid, and what that gives up).
Isolation choose_isolation(const std::string& requested, const IsolationPaths& paths);

// Runs a small program in `iso` with `dir` as its run folder: "" when it works, else why not.
std::string probe_isolation(const Isolation& iso, const std::string& dir);

// Creates a run folder (and its tmp/, the program's TMPDIR) owned by the identity the program
// runs as, mode 0700: the program writes there, the grader (root) still reads it. Only these
// two are changed (never anything a previous run left inside them).
void prepare_run_folder(const std::string& path, const Isolation& iso);
// Gives a run folder back to the grader (owner, mode 0700), so that later runs under the same
// identity (the "uid" level hides nothing) cannot reach it.
void release_run_folder(const std::string& path);

// The scrubbed environment of a run: PATH with the CUDA toolkit, HOME and TMPDIR in the
// working directory, CUDA_VISIBLE_DEVICES passed through; nothing else of the grader's.
std::vector<std::string> scrubbed_env(const std::string& workdir, const std::string& cuda_bin);

}  // namespace grading
