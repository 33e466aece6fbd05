// The run's output folder (--out): made, held by this run alone (util/locks.h: a second run into
// it is refused, naming this one), and its record (class/run_record.h) opened before anything is
// built: a fresh run's, or that of the unfinished run this one goes on with (its seed, the
// submissions it recorded). Every graded submission is recorded there before its files are made,
// so that a run cut short is finished by --resume as if it had never stopped.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "class/class_results.h"
#include "class/run_record.h"
#include "runs/context.h"
#include "stages/run.h"
#include "util/locks.h"

namespace grading {

// --resume OUT: `cfg` becomes the command OUT's record holds, with its seed, and is checked again
// (its inputs and files must still be there). Does nothing without --resume.
void take_command_from_record(Config& cfg);

class RunFolder {
public:
    // Makes OUT (setup.cfg.out_dir, else the default), takes its lock, opens its record, settles
    // the seed (given, recorded, else fresh) and makes OUT's folders; sets setup.out and priv.
    explicit RunFolder(GradingSetup& setup);
    // A resumed run goes on with the trusted tree it began with (else UsageError); recorded.
    void record_tree(const GradingSetup& setup);
    // Resuming: the submissions recorded before the run stopped keep their results (`restored`).
    // The class must be the one the run began with; a file changed since is graded anew.
    void keep_recorded(const GradingSetup& setup, ClassSlice& slice);
    // Grading begins: this run's block of the audit log, begun with `run_line` (resumed: the line
    // it recorded) and the lines and files of the submissions kept. Returns those kept, by index.
    std::map<size_t, SubmissionRecord> begin(const GradingSetup& setup, const ClassSlice& slice, const std::string& run_line,
                                             ClassResults& book);
    // A graded submission recorded, then its files made (book.finish). A grader error may be a full
    // disk's doing: where the disk lacks space the run stops instead (StorageError).
    void record(const GradingSetup& setup, const Submission& s, size_t index, const std::string& audit_line, bool ran, size_t worker,
                ClassResults& book);
    // Its summary is written: a later run in OUT starts afresh.
    void finish(const GradingSetup& setup);

private:
    FolderLock lock_;
    RunRecord record_;
    bool resuming_ = false;
    std::map<std::string, SubmissionRecord> recorded_;
    void open_record(GradingSetup& setup);
};

}  // namespace grading
