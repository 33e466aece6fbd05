#include "stages/sandbox_setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "args.h"
#include "util/files.h"
#include "util/locks.h"

namespace grading {

using cudalabs::UsageError;

RunSandbox::~RunSandbox() {
    if (!outside_work.empty()) remove_tree(outside_work);
}

namespace {

// Where the sandbox's files live (build stages, programs, run folders): OUT/work when the
// sandbox's user can enter every folder on the way there, else a folder of this run's own under
// /var/tmp (a bubblewrap started as that user cannot bind what lies past a private folder, such
// as root's home). Said in one line when neither will do.
void choose_work_folder(GradingSetup& setup, RunSandbox& sandbox) {
    const uid_t uid = sandbox.identity.lock.held() ? sandbox.identity.uid : kSandboxUid;
    const gid_t gid = sandbox.identity.lock.held() ? sandbox.identity.gid : kSandboxGid;
    const std::string preferred = setup.out + "/work";
    const std::string blocked = geteuid() == 0 ? unenterable_folder(preferred, uid, gid) : "";
    if (blocked.empty()) {
        setup.work = preferred;
    } else {
        const std::string base = "/var/tmp";
        if (const std::string also = unenterable_folder(base, uid, gid); !also.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + blocked + " nor " + also +
                             ": give --out a folder under one that others may enter (chmod o+x)");
        std::string tmpl = base + "/cudalabs-grading-XXXXXX";
        if (!mkdtemp(&tmpl[0])) throw std::runtime_error("cannot create a work folder in " + base + ": " + std::strerror(errno));
        setup.work = tmpl;
        sandbox.outside_work = tmpl;
        std::fprintf(stderr, "grade: the sandbox's user cannot enter %s, so submissions are built and run in %s\n", blocked.c_str(),
                     setup.work.c_str());
    }
    make_dirs(setup.work);
    chmod(setup.work.c_str(), 0711);  // its user enters, nobody lists
    // The trace library comes from the trusted tree, which may lie past a private folder too.
    if (!setup.info.trace_lib.empty()) {
        const std::string copy = setup.work + "/.trusted/" + basename_of(setup.info.trace_lib);
        make_dirs(setup.work + "/.trusted");
        chmod((setup.work + "/.trusted").c_str(), 0755);
        write_file(copy, read_file(setup.info.trace_lib));
        chmod(copy.c_str(), 0755);
        setup.info.trace_lib = copy;
    }
    if (geteuid() == 0)
        if (const std::string cuda = unenterable_folder(setup.info.cuda_home, uid, gid); !cuda.empty())
            throw UsageError("the sandbox's user (uid " + std::to_string(uid) + ") cannot enter " + cuda + ", on the way to the CUDA toolkit " +
                             setup.info.cuda_home + ": let others enter it (chmod o+rx) or install the toolkit elsewhere");
}

// The isolation: what the runs must not see (the trusted tree, the results, the other
// submissions), what they read (the CUDA toolkit, the trace library), as this run's user.
void choose_sandbox(GradingSetup& setup, const RunSandbox& sandbox) {
    IsolationPaths paths;
    paths.hidden = {setup.cfg.root, setup.out, setup.work};
    if (sandbox.identity.lock.held()) {
        paths.uid = sandbox.identity.uid;
        paths.gid = sandbox.identity.gid;
    }
    // A submission given as a single file: hide its folder, which holds the other students'.
    for (const std::string& in : setup.cfg.inputs) {
        const std::string abs = absolute(in);
        paths.hidden.push_back(is_dir(abs) ? abs : abs.substr(0, abs.find_last_of('/')));
    }
    paths.readonly = {setup.info.cuda_home};
    if (!setup.info.trace_lib.empty()) paths.readonly.push_back(setup.info.trace_lib);
    paths.probe_dir = setup.work + "/.probe";
    setup.iso = choose_isolation(setup.cfg.isolation, paths);  // or one sentence saying what to do (UsageError)
}

}  // namespace

// The limits of every run (the rubric's), where the sandbox's files live, and the isolation.
void set_up_sandbox(GradingSetup& setup, RunSandbox& sandbox) {
    setup.run_limits.mem_mb = setup.rubric.mem_limit_mb;
    setup.run_limits.file_mb = setup.rubric.file_limit_mb;
    // RLIMIT_NPROC counts every process of a user: it is this run's own only where the programs
    // run as this run's own user (the grader is root); as the grader's user it would count the
    // user's other processes too, so it is not set there.
    setup.run_limits.processes = geteuid() == 0 ? setup.rubric.process_limit : 0;
    setup.run_limits.keep_output = 16 << 10;
    // This run's own sandbox user (root only): no other grading run on the machine shares it,
    // its processes, or its process limit.
    sandbox.lock_dir = lock_folder();
    if (geteuid() == 0) sandbox.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, sandbox.lock_dir);
    sandbox.own.priv = setup.priv;
    choose_work_folder(setup, sandbox);
    choose_sandbox(setup, sandbox);
    sandbox.own.iso = setup.iso;
}

}  // namespace grading
