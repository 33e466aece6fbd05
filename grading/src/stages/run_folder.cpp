#include "stages/run_folder.h"

#include <unistd.h>
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "args.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using cudalabs::UsageError;
using nlohmann::json;

// --resume OUT: the run's options and seed are those OUT's record holds.
void take_command_from_record(Config& cfg) {
    if (cfg.resume.empty()) return;
    if (!has_run_record(cfg.resume))
        throw UsageError(cfg.resume + " holds no record of a grading run (" + run_record_path(cfg.resume) +
                         "): there is nothing to resume; grade the class with grading/grade --lab NN --out " + cfg.resume + " SUBMISSION...");
    const RunRecord recorded = load_run_record(cfg.resume);
    if (recorded.finished) throw UsageError("the run in " + cfg.resume + " has finished: there is nothing to resume (its results are there)");
    apply_run_command(recorded.command, cfg);
    cfg.seed = recorded.seed;
    cfg.out_dir = cfg.resume;
    Config as_recorded = cfg;  // its inputs and files must still be there
    as_recorded.resume.clear();
    check_command(as_recorded);
}

RunFolder::RunFolder(GradingSetup& setup) {
    Config& cfg = setup.cfg;
    if (cfg.out_dir.empty()) cfg.out_dir = default_out_dir(cfg);
    // Before anything is built: a folder that cannot be written (or a full disk) stops the run now.
    try {
        make_dirs(cfg.out_dir);
        check_writable(cfg.out_dir);
    } catch (const std::runtime_error& e) {
        throw UsageError(std::string(e.what()) + ": give --out a folder you can write to, on a disk with free space");
    }
    setup.out = absolute(cfg.out_dir);
    lock_ = FolderLock(setup.out);  // one run at a time in OUT, from before its record is read to the end
    open_record(setup);
    if (!cfg.seed) {
        std::random_device rd;
        cfg.seed = 1 + (static_cast<unsigned long long>(rd()) << 16 ^ rd()) % 2147483646ull;
    }
    record_.seed = cfg.seed;
    save_run_record(setup.out, record_);  // the seed, before the first submission is graded
    setup.priv = setup.out + "/.private";
    make_dirs(setup.priv);
    chmod(setup.priv.c_str(), 0700);
    for (const char* d : {"feedback", "results"}) make_dirs(setup.out + "/" + d);
    std::fprintf(stderr, "grade: lab %s, rubric %s, seed %llu, results in %s\n", cfg.lab.c_str(), cfg.rubric_path.c_str(), cfg.seed,
                 setup.out.c_str());
    if (resuming_)
        std::fprintf(stderr, "grade: resuming the run begun in %s with its seed %llu (recorded when it began); %zu submission%s graded before it stopped %s kept\n",
                     setup.out.c_str(), cfg.seed, recorded_.size(), recorded_.size() == 1 ? "" : "s", recorded_.size() == 1 ? "is" : "are");
}

// The run's record (run_record.h), written before anything is built. A run that finds its own
// unfinished record in OUT goes on with it: the seed it recorded, the submissions it graded.
// Another run's unfinished results are neither mixed in nor lost: that run is refused.
void RunFolder::open_record(GradingSetup& setup) {
    Config& cfg = setup.cfg;
    const std::string& out = setup.out;
    const json command = run_command_json(cfg);
    if (has_run_record(out)) {
        const RunRecord before = load_run_record(out);
        if (!before.finished) {
            std::vector<std::string> damaged;
            recorded_ = load_submission_records(out, &damaged);
            for (const std::string& id : damaged) {
                forget_submission_record(out, id);
                std::fprintf(stderr, "grade: %s's record in %s/.resume was damaged: %s is graded again\n", id.c_str(), out.c_str(), id.c_str());
            }
            const std::string refusal = resume_refusal(before, command, setup.rubric_sha, cfg.seed, out);
            if (refusal.empty()) {
                record_ = before;
                resuming_ = true;
                cfg.seed = before.seed;
                return;
            }
            if (!recorded_.empty() || !cfg.resume.empty()) throw UsageError(refusal);
        }
    }
    recorded_.clear();
    clear_submission_records(out);
    record_ = RunRecord{};
    record_.command = command;
    record_.rubric_sha256 = setup.rubric_sha;
}

// A run is resumed with the trusted tree it began with: another grader could grade otherwise.
void RunFolder::record_tree(const GradingSetup& setup) {
    if (resuming_ && !record_.tree.empty() && record_.tree != setup.tree)
        throw UsageError("the run in " + setup.out + " began with the tree at " + record_.tree + ", not " + setup.tree +
                         ": resume it with that tree, or grade the class anew into another --out");
    record_.tree = setup.tree;
    save_run_record(setup.out, record_);
}

// Resuming: the submissions recorded before the run stopped keep their results, and are neither
// built nor graded again. The class must be the one the run began with, each file unchanged.
void RunFolder::keep_recorded(const GradingSetup& setup, ClassSlice& slice) {
    if (!resuming_) return;
    const std::string anew = ": grade the class anew into another --out";
    if (!record_.class_ids.empty() && record_.class_ids != ids_of(slice.subs))
        throw UsageError("the submissions are not those the run in " + setup.out + " began with" + anew);
    for (Submission& s : slice.subs) {
        auto it = recorded_.find(s.source.id);
        if (it == recorded_.end()) continue;
        const std::string& sha = it->second.result.sha256;
        if (!sha.empty() && sha != s.result.sha256) {  // its own row only: graded anew
            forget_submission_record(setup.out, s.source.id);
            std::fprintf(stderr, "grade: %s's submission changed since the run in %s began: it is graded again\n", s.source.id.c_str(),
                         setup.out.c_str());
            continue;
        }
        s.result = it->second.result;
        s.restored = true;
    }
}

std::map<size_t, SubmissionRecord> RunFolder::begin(const GradingSetup& setup, const ClassSlice& slice, const std::string& run_line,
                                                    ClassResults& book) {
    if (record_.audit_prefix < 0) {  // grading begins: where its block starts, and its line
        record_.audit_prefix = book.audit_prefix();
        record_.run_line = run_line;
        record_.class_ids = ids_of(slice.subs);
        save_run_record(setup.out, record_);
    }
    std::map<size_t, SubmissionRecord> kept;
    std::map<size_t, ClassResults::Restored> restored;
    for (size_t i = 0; i < slice.subs.size(); ++i) {
        if (!slice.subs[i].restored) continue;
        kept[i] = recorded_.at(slice.subs[i].source.id);
        restored[i] = {kept[i].result, kept[i].audit_line};
    }
    book.resume(record_.audit_prefix, record_.run_line, restored);
    return kept;
}

// A graded submission is recorded (run_record.h) before its files are made from it. A grader
// error may be a full disk's doing: then the run stops instead, and a resume grades it again.
void RunFolder::record(const GradingSetup& setup, const Submission& s, size_t index, const std::string& line, bool ran, size_t worker,
                       ClassResults& book) {
    if (!s.result.grader_error.empty()) {
        check_writable(setup.out);
        check_writable(setup.work);
    }
    save_submission_record(setup.out, s.source.id, {s.result, line, ran, worker});
    // For the resume suite: a kill -9 at the worst moment, the record written and no file yet.
    static const char* kill_after = std::getenv("GRADING_KILL_AFTER_RECORDS");
    static std::atomic<long> recorded{0};
    if (kill_after && ++recorded == std::atol(kill_after)) raise(SIGKILL);
    book.finish(index, s.result, line);
}

void RunFolder::finish(const GradingSetup& setup) {
    record_.finished = true;
    save_run_record(setup.out, record_);
}

}  // namespace grading
