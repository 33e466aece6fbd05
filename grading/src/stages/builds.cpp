#include "stages/builds.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

#include "compile/lab_build.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/text.h"

namespace grading {

// The builds start, beside the grading (build_queue.h): no student code runs in a build and no
// timing is taken there. They run as a sandbox user of their own (root only), so that they share
// no process limit with the lane that has the run's.
ClassBuilds::ClassBuilds(const GradingSetup& setup, const RunSandbox& sandbox, std::vector<Submission>& subs)
    : setup_(setup), subs_(subs) {
    set_up_build_reuse();
    build_iso_ = setup_.iso;
    if (build_iso_.changes_user()) {
        build_identity_ = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, sandbox.lock_dir);
        build_iso_.uid = build_identity_.uid;
        build_iso_.gid = build_identity_.gid;
    }
    const int jobs = setup_.cfg.jobs > 0 ? setup_.cfg.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    queue_ = std::make_unique<BuildQueue>(build_order(), jobs,
                                          [this](size_t i, bool last_try) { return build_one(subs_[i], subs_.size(), last_try); });
}

// One build, on a compile thread; false where it is put off (prepare). A disk that refused the
// build's files stops the run (the exception goes on); any other failure is a grader error of
// this submission's.
bool ClassBuilds::build_one(Submission& s, size_t count, bool last_try) {
    bool ended = true;
    try {
        ended = prepare(s, last_try);
    } catch (const StorageError&) {
        throw;
    } catch (const std::exception& e) {
        s.result.grader_error = std::string("while building: ") + e.what();
    }
    std::lock_guard<std::mutex> lock(progress_);
    if (!ended) {
        const double limit = setup_.rubric.compile_timeout_s;
        std::fprintf(stderr,
                     "[%zu/%zu] %s: the compilation took longer than %s s; it is made again with %s s once the rest of the "
                     "class is graded (elapsed %s)\n",
                     builds_ended_, count, s.source.id.c_str(), number_text(limit).c_str(), number_text(kTimeoutStretch * limit).c_str(),
                     elapsed_text(run_elapsed()).c_str());
        return false;
    }
    const std::string why = !s.result.grader_error.empty() ? "grader error " + s.result.grader_error : s.result.rejected;
    std::fprintf(stderr, "[%zu/%zu] built %s: %s (elapsed %s)\n", ++builds_ended_, count, s.source.id.c_str(),
                 s.restored ? "graded before the run stopped: kept" : s.ready ? "ok" : why.substr(0, 100).c_str(), elapsed_text(run_elapsed()).c_str());
    return true;
}

// Builds are reused for identical files (build_cache.h) unless --no-build-reuse: what every build
// reads besides its file is hashed once here (the toolchain, the staged headers, the trusted
// objects).
void ClassBuilds::set_up_build_reuse() {
    if (!setup_.cfg.build_reuse) return;
    build_cache_ = std::make_unique<BuildCache>(setup_.priv + "/build-cache");
    const LabInfo& info = setup_.info;
    std::vector<std::string> inputs;
    for (const std::string& dir : {std::string("common"), info.dir})
        for (const std::string& f : list_dir(setup_.cfg.root + "/" + dir))
            if (is_header(f)) inputs.push_back(setup_.cfg.root + "/" + dir + "/" + f);
    const BuildSpec b = build_spec(setup_.work);
    inputs.insert(inputs.end(), b.trusted_objects.begin(), b.trusted_objects.end());
    build_inputs_ = build_inputs_digest(setup_.tools, inputs);
}

// The order of the builds: the first file of each content first, then the files identical to one
// before them, which wait for its build to be reused.
std::vector<size_t> ClassBuilds::build_order() const {
    std::vector<size_t> first, again;
    std::set<std::string> seen;
    for (size_t i = 0; i < subs_.size(); ++i) {
        const StudentResult& r = subs_[i].result;
        const bool taken = r.rejected.empty() && r.grader_error.empty();
        const bool repeat = build_cache_ && taken && !seen.insert(r.sha256).second;
        (repeat ? again : first).push_back(i);
    }
    first.insert(first.end(), again.begin(), again.end());
    return first;
}

// Build and audit one submission (runs on a compile thread; no student code runs); false where
// its compile timed out and is put off to the end of the class (`last_try`: made then).
bool ClassBuilds::prepare(Submission& s, bool last_try) {
    StudentResult& r = s.result;
    if (!r.rejected.empty() || !r.grader_error.empty() || s.restored) return true;
    // The file's bytes were taken in through no link (intake/submissions.h); the disk must have
    // room for its build before it starts (else the run stops: a full disk is no student's).
    check_free_space(setup_.work);
    const std::string work = setup_.work + "/" + s.source.id;
    stage_submission(s, s.source.source, work);
    BuildSpec b = build_spec(work);
    // A compile that times out is made again once the rest of the class is graded, so that no
    // timed test waits for its longer try (build_queue.h).
    b.compile_retry = last_try ? TimeoutRetry::Longer : TimeoutRetry::Later;
    if (build_cache_) {
        b.cache = build_cache_.get();
        b.cache_key = build_cache_key(b, r.sha256, build_inputs_);
    }
    BuildResult built = build_submission(b, setup_.trusted);
    s.timing.compile_s += built.compile_s;  // a build put off: both tries
    s.timing.audit_s = built.audit_s;
    s.timing.link_s = built.link_s;
    s.timing.build_reused = built.reused;
    release_run_folder(s.stage);
    if (built.put_off) return false;
    r.compiled = built.compiled;
    r.compiler_output = clip(built.compiler_output, 12000);
    if (!built.note.empty()) r.notes.push_back(built.note);
    if (!built.ok) {
        check_writable(work);  // a compiler that failed for want of disk is no error of the student's
        r.rejected = built.rejected;
        return true;
    }
    s.graded.id = s.source.id;
    s.graded.file = r.file;
    s.graded.program = b.output_program;
    s.graded.run_dir = work + "/run";
    s.graded.kernels = built.kernels;
    make_dirs(s.graded.run_dir);  // handed to the sandbox's user only while its tests run
    s.ready = true;
    return true;
}

// The stage holds the trusted headers and the student's file, nothing else (no driver, no
// solution); the program goes to a folder the submission can only read, its runs to one of its
// own.
void ClassBuilds::stage_submission(Submission& s, const std::string& source, const std::string& work) {
    const LabInfo& info = setup_.info;
    s.stage = work + "/build";
    remove_tree(work);
    make_dirs(work + "/bin");
    stage_submission_files(setup_.cfg.root, info, s.stage, source);
    s.graded.source_copy = s.stage + "/" + info.dir + "/" + info.topic_file;
    prepare_run_folder(s.stage, build_iso_);
}

// How a submission staged in `work` is built: the lab's trusted flags and objects, the rubric's
// rules, the compiler in the sandbox.
BuildSpec ClassBuilds::build_spec(const std::string& work) const {
    const LabInfo& info = setup_.info;
    BuildSpec b = lab_build_spec(info, setup_.rubric, setup_.import_lists, work + "/build");
    b.trusted_objects = info.objects;
    b.trusted_objects.push_back(info.student_source_object);
    if (!info.shim_object.empty()) b.trusted_objects.push_back(info.shim_object);
    b.output_program = work + "/bin/program";
    const Isolation& iso = build_iso_;
    b.isolation = &iso;
    return b;
}

}  // namespace grading
