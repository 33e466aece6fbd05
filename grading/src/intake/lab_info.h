// What the grader knows about the trusted build of one lab: `make grading-info LAB=NN` builds
// the lab's trusted objects and prints them as "grading-info:KEY=VALUE" lines.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "intake/rubric.h"

namespace grading {

struct LabInfo {
    std::string dir;          // "labs/01-vector-add"
    std::string topic_file;   // "vector_add.cu": the student's file
    std::string nvcc, nvcc_flags, arch_flags, ldlibs, cuda_home;
    std::string sol;          // the trusted reference program (absolute)
    std::string sol_object;   // its student.o (the reference's kernels)
    std::string driver_object;
    std::string student_source_object, shim_object, trace_lib;
    std::vector<std::string> objects;  // trusted objects linked with the student's
};

// The KEY=VALUE pairs of `make grading-info` output; other lines are ignored.
std::map<std::string, std::string> parse_grading_info(const std::string& make_output);

// Builds the lab's trusted objects and reads what the build of a submission needs. Relative
// paths are made absolute against `root`. Throws std::runtime_error when the build fails or
// the lab does not exist. `target` "audit-info" (grading/audit.mk) builds and names only what an
// audit needs (the driver and common/, no reference, harness or trace), as the student edition can.
LabInfo load_lab_info(const std::string& root, const std::string& lab, const std::string& scratch_dir,
                      const std::string& target = "grading-info");

// Reads the JSON a lab program prints with --describe; `source` names it in errors
// (std::runtime_error when it is not that JSON).
LabDeclaration parse_lab_declaration(const std::string& json, const std::string& source);

}  // namespace grading
