// The run's inputs beside the submissions, read before anything is built: the rubric, a
// regrade's baseline and the roster (a bad one stops the run at once, exit 2); then the lab, its
// trusted build and what it declares, with which the rubric must agree.
#pragma once
#include "class/regrade.h"
#include "class/roster.h"
#include "runs/context.h"

namespace grading {

// What comes in beside the lab and the submissions: the earlier run a regrade compares with, and
// the class list with the submissions matched to it (class_intake.h).
struct ClassInputs {
    bool regrade = false;  // --regrade
    RegradeBaseline baseline;
    Roster roster;
    RosterMatch roster_match;
};

// The rubric (setup.rubric_text, its sha and its form), what a regrade reuses (its seed, its
// roster), and the roster. Makes setup.cfg.root absolute.
ClassInputs take_in_rubric_and_roster(GradingSetup& setup);

// The lab's trusted build (make grading-info), its symbols and kernels, the import lists, the
// rubric expanded from the lab's declaration, the compiler and the tree's revision.
void load_lab(GradingSetup& setup);

}  // namespace grading
