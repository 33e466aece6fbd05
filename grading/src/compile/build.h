// The build of one submission: compile it in the sandbox with the trusted flags, audit what the
// compiler made of it (audit.h), make everything it defines local to it but the functions the
// driver calls, redirect its CUDA copies to the grading shims, and link it with the trusted
// driver and harness. No student code runs here; the compiler runs sandboxed, the binary tools
// (readelf, objdump, objcopy) and the link run as the grader.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compile/audit.h"
#include "compile/build_cache.h"
#include "isolation/isolation.h"
#include "util/files.h"

namespace grading {

// The limits of every step of a build that reads the student's file or what it became (the
// compiler, the audit's binary tools) and of the link: each process's writable memory, and each
// file it writes. A file that reaches the limit ends its step: the build is refused, saying so.
constexpr long kBuildMemoryMiB = 4096;  // (and kBuildFileMiB: util/files.h)

// A build that the environment kept from ending (the sandbox would not start a step): thrown,
// never the student's refusal; the grader reports a grader error for the submission.
struct BuildEnvironmentError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a compile that times out gets: made once more at once with kTimeoutStretch times the limit
// (Now); left to be made again later, the result saying so (Later: put_off); made now with the
// longer limit alone, its first try having timed out before (Longer).
enum class TimeoutRetry { Now, Later, Longer };

struct BuildSpec {
    std::string stage_dir;   // compile folder: common/*.h and <lab_dir>/*.h copies and the student's file
    std::string lab_dir;     // "labs/01-vector-add" (relative to stage_dir)
    std::string topic_file;  // "vector_add.cu" (at stage_dir/lab_dir/topic_file)
    std::string nvcc, cuda_home;
    std::vector<std::string> nvcc_flags, arch_flags, ldlibs;
    // Linked before the student's object, so that they come first wherever order matters.
    std::vector<std::string> trusted_objects;
    std::string output_program;  // empty: built and audited, not linked (audit_only.cpp)
    double compile_timeout_s = 180;
    TimeoutRetry compile_retry = TimeoutRetry::Now;
    AuditRules rules;  // rules.allowed_imports must be set (load_glob_list of grading/allowed-imports.txt)
    // The sandbox every step that reads the student's file or its object runs in (the compiler,
    // the audit's tools), as a run folder of its own (the stage, the private folder); null: each
    // runs as it is, as the grader (the student's own build of audit_only.cpp).
    const Isolation* isolation = nullptr;
    std::vector<std::pair<std::string, std::string>> import_renames;  // grading/shimmed-imports.txt
    // The grader's own files of this build, out of the sandbox's reach; empty: stage_dir/../audit.
    std::string private_dir;
    // Builds of this run kept for reuse (build_cache.h), and this build's key there; null: none.
    BuildCache* cache = nullptr;
    std::string cache_key;
};

// The audit's binary tools (readelf, objdump, objcopy), run in `scratch`: in the sandbox of
// `isolation` (scratch its run folder) under the build's limits, or as the grader where it is null
// (the trusted objects). A tool that times out is run once more with kTimeoutStretch times
// `timeout_s` (the builds share a busy machine), and `notes` says so; one that fails, says too
// much, or times out again throws std::runtime_error naming the tool and its file.
struct AuditTools {
    explicit AuditTools(std::string scratch_dir, double limit_s = 120, const Isolation* in = nullptr)
        : scratch(std::move(scratch_dir)), timeout_s(limit_s), isolation(in) {}
    std::string scratch;
    double timeout_s;
    const Isolation* isolation;
    std::vector<std::string> notes;
    std::string output(const std::vector<std::string>& argv);
};

// What the lab's trusted objects define, computed once per lab.
struct TrustedSymbols {
    std::set<std::string> defined;    // every global symbol they define (strong, weak or unique)
    std::set<std::string> kernels;    // the device entry functions of their fatbinaries
    // What the student's file must provide: functions of the global namespace with C++ linkage
    // that the driver (or another trusted object) calls and none defines: the lab header's.
    std::set<std::string> interface;
};
// `driver_object` is added to `trusted_objects` when not among them (or empty). Throws
// std::runtime_error when a tool fails on a trusted object.
TrustedSymbols load_trusted_symbols(const std::vector<std::string>& trusted_objects, const std::string& driver_object,
                                    const std::string& scratch_dir);

// The kernels (exact device entry names) of an object's fatbinaries. Throws std::runtime_error
// when the device code cannot be read.
std::set<std::string> object_kernels(const std::string& object, const std::string& scratch_dir);

struct BuildResult {
    bool ok = false, compiled = false;
    std::string rejected;          // why it is not graded: student-facing sentences
    std::string compiler_output;   // the compiler's (or linker's) messages, paths relative to the stage
    std::set<std::string> kernels; // the exact device entry names the student's object defines
    // Where its time went (seconds); `reused`: the compile (and maybe the link) of an identical
    // file was reused, the audit ran all the same.
    double compile_s = 0, audit_s = 0, link_s = 0;
    bool reused = false;
    bool put_off = false;  // compile_retry Later: the compile timed out, and nothing else was done
    std::string note;  // for the feedback: the compile, an audit tool or the link timed out and was made again with a longer limit
};
BuildResult build_submission(const BuildSpec& spec, const TrustedSymbols& trusted);

// grading/shimmed-imports.txt: "name shim" per line. Throws std::runtime_error naming the file.
std::vector<std::pair<std::string, std::string>> load_import_renames(const std::string& path);
// A glob list file (grading/allowed-imports.txt). Throws std::runtime_error when unreadable.
std::vector<std::string> load_glob_list(const std::string& path);

}  // namespace grading
