// A lab's rubric: the tests a submission is graded on, their points and visibility, and the
// performance curves. A plain text file (grading/rubrics/NN.rubric) an instructor edits without
// recompiling; see grading/DESIGN.md, "Rubrics", for the format. Host-only: unit-tested with g++.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "intake/questions.h"

namespace grading {

// A rubric that cannot be used. what() is "FILE:LINE: message".
struct RubricError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class TestKind { Correctness, Sanitizer, Performance, Questions };

// Gradescope's visibility values: shown at once, never, after the due date, after publishing.
enum class Visibility { Visible, Hidden, AfterDueDate, AfterPublished };
const char* visibility_name(Visibility v);  // "visible", "hidden", "after_due_date", ...

// Score fraction as a function of slowdown = student time / reference time. Points
// (slowdown, fraction) with increasing slowdown; linear between them, the first fraction below
// the first point and the last fraction beyond the last. "1.25:1 2:0.5 4:0" means full marks
// within 1.25x of the reference, half at 2x, nothing from 4x on.
struct Curve {
    std::vector<std::pair<double, double>> points;
    double fraction(double slowdown) const;
};
Curve parse_curve(const std::string& text);  // throws std::invalid_argument

// COUNT sizes drawn per trial, each extent uniform in [min, max] (same number of extents).
struct RandomSizes {
    int count = 0;
    std::vector<long long> min, max;
};

// What the student's host code may copy while a variant runs (the grading build records every
// CUDA copy it makes): `allowed` anything, `to_device` host-to-device copies only, `none` no
// copy at all. A launcher that is given device arrays has no reason to copy: with `none`,
// results computed on the CPU, or moved by a copy engine instead of a kernel, do not count.
enum class HostTransfers { Allowed, ToDevice, None };
const char* host_transfers_name(HostTransfers h);  // "allowed", "to_device", "none"

struct TestSpec {
    std::string id;    // [test ID]: one word, the gradebook column
    std::string name;  // shown to the student
    TestKind kind = TestKind::Correctness;
    double points = 0;
    Visibility visibility = Visibility::Visible;
    std::vector<std::string> variants;  // correctness/sanitizer: these variants; performance: one
    std::vector<std::string> sizes;     // fixed hidden sizes ("1", "1000x700")
    RandomSizes random_sizes;           // plus sizes drawn from each trial's seed
    int trials = 1;                     // fresh seed per trial: races show up as flaky rows
    bool all_or_nothing = false;        // false: points in proportion to the rows that pass
    bool require_kernels = true;        // outputs count only if a kernel from the file ran
    HostTransfers host_transfers = HostTransfers::Allowed;
    std::string tool = "memcheck";      // sanitizer: memcheck, racecheck, initcheck, synccheck
    std::vector<std::string> tool_options;  // extra compute-sanitizer options
    Curve curve;                        // performance
    int rounds = 3;                     // performance: student/reference pairs
    int reps = 10;                      // performance: timed repetitions per run
    std::vector<std::string> requires_tests;  // 0 points unless these tests got full marks
    double timeout_s = 0;               // per run; 0: the rubric's run_timeout
    std::vector<QuestionKey> questions;  // questions: the key, q1 = ... (no variants, no sizes)
};

struct Rubric {
    std::string lab;    // "01"
    std::string title;
    std::vector<std::string> forbid_symbols;   // globs on identifiers, imports, defined names: cublas* thrust::*
    std::vector<std::string> allow_imports;    // globs of functions the file may call beyond the allow-list
    // Physical plausibility of a timed run: a student time below bytes / (copy bandwidth x
    // plausible_bandwidth), or below flops / (the reference's FLOP rate x plausible_flop_rate),
    // is not a fast kernel but a forged measurement.
    double plausible_bandwidth = 2.0;
    double plausible_flop_rate = 4.0;
    double compile_timeout_s = 180;
    double run_timeout_s = 60;
    long mem_limit_mb = 16384;    // address space the program may make writable (RLIMIT_DATA)
    long file_limit_mb = 1024;    // largest file it may write (RLIMIT_FSIZE)
    long process_limit = 64;      // processes (RLIMIT_NPROC, where it applies)
    std::vector<TestSpec> tests;

    double total_points() const;
    const TestSpec* find(const std::string& id) const;
};

// What a lab declares (`./solNN --describe`) that a rubric must agree with, and expands from.
struct LabDeclaration {
    std::vector<std::string> variants, yardsticks;  // every variant; those that are yardsticks
    std::vector<std::string> check_sizes;           // the driver's default (correctness) sizes
    // The student's variants, in the order declared (the ladder, bottom to top): the variants
    // without the yardsticks.
    std::vector<std::string> rungs() const;
};

// Parses a rubric; `source` names it in error messages. A rubric may speak of the lab's rungs
// rather than name them, so that a new rung needs no edit of it:
//   [test correct_RUNG for each rung]   one test per rung that no correctness test of its own
//                                        grades, in the ladder's order; RUNG in the id and in
//                                        every value is the rung's name
//   variants = RUNGS, requires = correct_RUNGS   a word with RUNGS in `variants` or `requires`
//                                        is one word per rung (RUNGS replaced by its name)
// `lab` is the declaration they expand from. Without it they are read with one stand-in rung
// named RUNG: the rubric's form is checked before the lab is built, and a rubric that does not
// use them reads the same either way.
Rubric parse_rubric(const std::string& text, const std::string& source, const LabDeclaration* lab = nullptr);
Rubric load_rubric(const std::string& path, const LabDeclaration* lab = nullptr);
// The lab's settings alone (the lines before the first [test ...]: lab, forbid_symbols,
// allow_imports, limits), tests ignored: what an audit reads, as the student edition's
// tools/preview/NN.tests holds it. Throws RubricError like parse_rubric.
Rubric parse_rubric_settings(const std::string& text, const std::string& source);
std::string read_rubric(const std::string& path);  // the file's text (RubricError where it cannot be read)

// Where `rubric` disagrees with the lab: a variant the lab does not have, a yardstick graded as
// the student's, a variant no correctness test covers, a correctness test without one of the
// driver's check sizes (a rubric may add sizes, never drop one). Empty: they agree.
std::vector<std::string> rubric_disagreements(const Rubric& rubric, const LabDeclaration& lab);

// Shell-style glob with * and ? (no brackets), whole string.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace grading
