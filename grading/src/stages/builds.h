// The class's builds, beside its grading (compile/build_queue.h): each submission's file staged
// with the trusted headers alone, compiled and audited in the sandbox as a user of the builds' own
// (root only: no process limit shared with a lane), and linked with the trusted driver; an
// identical file's build reused (compile/build_cache.h). No student code runs in a build. A build
// that fails is that submission's outcome; only a disk that refuses the grader's writes stops the
// run (StorageError).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compile/build_cache.h"
#include "compile/build_queue.h"
#include "stages/run.h"
#include "stages/sandbox_setup.h"

namespace grading {

class ClassBuilds {
public:
    // Starts the builds of `subs` (which must outlive this object), in build order.
    ClassBuilds(const GradingSetup& setup, const RunSandbox& sandbox, std::vector<Submission>& subs);
    BuildQueue& queue() { return *queue_; }

private:
    const GradingSetup& setup_;
    std::vector<Submission>& subs_;
    std::unique_ptr<BuildCache> build_cache_;  // builds of this run kept for reuse (none: --no-build-reuse)
    std::string build_inputs_;                 // what every build reads besides its file (build_inputs_digest)
    SandboxIdentity build_identity_;           // the builds' own sandbox user, where the grader is root
    Isolation build_iso_;                      // the builds' isolation: the run's, as build_identity_
    std::mutex progress_;                      // the builds' progress lines
    size_t builds_ended_ = 0;
    std::unique_ptr<BuildQueue> queue_;        // last: its threads use the rest, and it ends first
    bool build_one(Submission& s, size_t count, bool last_try);
    std::vector<size_t> build_order() const;
    void set_up_build_reuse();
    bool prepare(Submission& s, bool last_try);
    void stage_submission(Submission& s, const std::string& source, const std::string& work);
    BuildSpec build_spec(const std::string& work) const;
};

}  // namespace grading
