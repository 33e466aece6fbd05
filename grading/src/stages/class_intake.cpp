#include "stages/class_intake.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "args.h"
#include "util/files.h"
#include "util/sha256.h"

namespace grading {

using cudalabs::UsageError;

namespace {

// With a roster: the whole class is matched (every shard finds the same), before the slice.
void match_class_to_roster(const GradingSetup& setup, const std::vector<Submission>& subs, ClassInputs& inputs) {
    const Config& cfg = setup.cfg;
    if (cfg.roster.empty()) {
        for (const char* f : {"roster.json", "lms-canvas.csv", "lms-moodle.csv", "roster.txt"}) unlink((setup.out + "/" + f).c_str());  // an earlier run's
        return;
    }
    std::vector<SubmissionSource> sources;
    for (const Submission& s : subs) sources.push_back(s.source);
    inputs.roster_match = match_roster(inputs.roster, submission_names(sources));
    if (!cfg.allow_unmatched_roster) require_some_match(inputs.roster, inputs.roster_match, subs.size());
    LmsAssignment assignment{cfg.lms_assignment.empty() ? "Lab " + cfg.lab : cfg.lms_assignment,
                             cfg.lms_points > 0 ? cfg.lms_points : setup.rubric.total_points(), setup.rubric.total_points()};
    write_file(setup.out + "/roster.json", roster_record_json(inputs.roster, inputs.roster_match, assignment));
    std::fprintf(stderr, "grade: roster %s: %zu students, %zu of the %zu submissions matched\n", cfg.roster.c_str(), inputs.roster.entries.size(),
                 inputs.roster_match.students.size(), subs.size());
}

// A shard grades its slice of the class; the slices depend on the sorted ids alone, so every
// node finds the same ones. Its shard.json says so from the start (unfinished until the end).
void take_shard_slice(const GradingSetup& setup, ClassSlice& slice) {
    const Config& cfg = setup.cfg;
    std::vector<Submission>& subs = slice.subs;
    const std::vector<std::string> mine = shard_members(slice.class_ids, cfg.shard.k, cfg.shard.n);
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const Submission& s) { return std::find(mine.begin(), mine.end(), s.source.id) == mine.end(); }),
               subs.end());
    ShardRecord& shard = slice.shard;
    shard.k = cfg.shard.k;
    shard.n = cfg.shard.n;
    shard.seed = cfg.seed;
    shard.lab = cfg.lab;
    shard.rubric = cfg.rubric_path;
    shard.rubric_sha256 = setup.rubric_sha;
    shard.tree = setup.tree;
    shard.tools = setup.tools;
    shard.isolation = setup.isolation_text;
    shard.compile_only = cfg.compile_only;
    shard.regrade_of = cfg.regrade;
    shard.class_ids = slice.class_ids;
    shard.assigned = mine;
    shard.summary_head = summary_head(setup.rubric);
    write_file(setup.out + "/shard.json", shard_record_json(shard));
    std::fprintf(stderr, "grade: shard %s: %zu of the class's %zu submissions\n", cfg.shard.text().c_str(), subs.size(), slice.class_ids.size());
}

}  // namespace

// ---- the submissions: found, matched to the roster, sliced, built and audited ----
ClassSlice take_in_class(const GradingSetup& setup, ClassInputs& inputs, const std::vector<std::string>& notes) {
    const Config& cfg = setup.cfg;
    ClassSlice slice;
    for (const SubmissionSource& src : take_submissions(cfg.inputs, setup.info.topic_file)) {
        Submission s;
        s.source = src;
        s.result.student = src.id;
        s.result.submitted_as = src.submitted_as;
        s.result.file = src.file;
        s.result.rejected = src.rejected;
        if (!src.unreadable.empty()) s.result.grader_error = "while taking the submission in: " + src.unreadable;
        if (src.rejected.empty() && src.unreadable.empty()) s.result.sha256 = sha256_hex(src.source);
        s.result.notes = notes;
        slice.subs.push_back(s);
    }
    if (slice.subs.empty()) throw UsageError("no submissions found");
    match_class_to_roster(setup, slice.subs, inputs);
    slice.class_ids = ids_of(slice.subs);
    if (cfg.shard.active()) take_shard_slice(setup, slice);
    if (!cfg.gradescope.empty() && slice.subs.size() != 1) throw UsageError("--gradescope needs exactly one submission");
    return slice;
}

}  // namespace grading
