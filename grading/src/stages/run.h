// What the stages of a grading run (grading/src/grader.cpp lists them) hand each other: the class
// as this run grades it, one submission at a time through intake, build, grading and results, and
// the run's clock.
#pragma once
#include <string>
#include <vector>

#include "class/shard.h"
#include "intake/submissions.h"
#include "judge/result.h"
#include "judge/test_kinds.h"
#include "util/breakdown.h"

namespace grading {

// One submission through the stages.
struct Submission {
    SubmissionSource source;
    StudentResult result;
    GradedProgram graded;
    std::string stage;        // its build folder
    bool ready = false;       // compiled, audited and linked
    SubmissionTiming timing;  // where its time went (OUT/breakdown.jsonl)
    bool restored = false;    // graded before the run stopped: its recorded result is kept (--resume)
};

std::vector<std::string> ids_of(const std::vector<Submission>& subs);

// The class as this run grades it: its submissions (with --shard, this shard's slice), every
// student's id, and the shard's record (shard.json).
struct ClassSlice {
    std::vector<Submission> subs;
    std::vector<std::string> class_ids;
    ShardRecord shard;
};

// Seconds since the run began (the first call), for its progress lines.
double run_elapsed();

}  // namespace grading
