// What the grader and its audit-only build (audit_only.cpp, the preview's) share of a
// submission's build in one lab: the stage they compile in and the spec of the build, so that
// both build and audit a file the same way, from the same lab flags and rubric rules.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compile/build.h"
#include "intake/lab_info.h"
#include "intake/rubric.h"

namespace grading {

// A header the stage holds: *.h and *.cuh.
bool is_header(const std::string& name);

// The lists every lab's audit reads: ROOT/grading/allowed-imports.txt and shimmed-imports.txt.
struct ImportLists {
    std::vector<std::string> allowed;
    std::vector<std::pair<std::string, std::string>> renames;
};
ImportLists load_import_lists(const std::string& root);

// `stage` holds copies of ROOT/common's and the lab folder's headers and the student's file
// (`source`) as the lab's topic file, nothing else: no driver, no solution.
void stage_submission_files(const std::string& root, const LabInfo& info, const std::string& stage, const std::string& source);

// The build of a file staged in `stage` with the lab's trusted flags and the rubric's rules, run
// as it is (no sandbox, no trusted objects, no program): the caller adds what its build needs.
BuildSpec lab_build_spec(const LabInfo& info, const Rubric& rubric, const ImportLists& lists, const std::string& stage);

}  // namespace grading
