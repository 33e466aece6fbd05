// What the grader's unit tests share: a temporary folder, every file of a folder read back, a
// rubric made of tests, and the message a call fails with.
#pragma once
#include <stdlib.h>

#include <exception>
#include <initializer_list>
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "grading/src/class/results.h"
#include "grading/src/intake/rubric.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"

namespace grading_fixtures {

// A new folder /tmp/NAME-XXXXXX, removed with all it holds at the end of the scope.
struct TempDir {
    std::string path;
    explicit TempDir(const std::string& name = "grading") {
        std::string tmpl = "/tmp/" + name + "-XXXXXX";
        path = mkdtemp(&tmpl[0]);
    }
    ~TempDir() { grading::remove_tree(path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

// Every file under `dir`, by its path below it, with its text.
inline std::map<std::string, std::string> tree_of(const std::string& dir, const std::string& below = "") {
    std::map<std::string, std::string> files;
    for (const std::string& f : grading::list_dir(dir + "/" + below)) {
        const std::string rel = below.empty() ? f : below + "/" + f;
        if (grading::is_dir(dir + "/" + rel)) {
            auto sub = tree_of(dir, rel);
            files.insert(sub.begin(), sub.end());
        } else {
            files[rel] = grading::read_file(dir + "/" + rel);
        }
    }
    return files;
}

// One test of a rubric.
inline grading::TestSpec test_spec(const std::string& id, const std::string& name, double points,
                                   grading::TestKind kind = grading::TestKind::Correctness) {
    grading::TestSpec t;
    t.id = id;
    t.name = name;
    t.points = points;
    t.kind = kind;
    return t;
}

// A rubric of lab 01 with these tests.
inline grading::Rubric rubric_of(std::initializer_list<grading::TestSpec> tests) {
    grading::Rubric r;
    r.lab = "01";
    r.tests = tests;
    return r;
}

// A submission of `student` that compiled from `file` (its sha256 made up), with no tests yet.
inline grading::StudentResult compiled_result(const std::string& student, const std::string& file) {
    grading::StudentResult r;
    r.student = student;
    r.file = file;
    r.sha256 = std::string(64, 'a');
    r.compiled = true;
    return r;
}

// The students of a class, in its order.
inline std::vector<std::string> ids_of(const std::vector<grading::StudentResult>& c) {
    std::vector<std::string> ids;
    for (const grading::StudentResult& r : c) ids.push_back(r.student);
    return ids;
}

// A submission's line of the audit log, as a run of lab 01 with seed 42 writes it.
inline std::string audit_line(const grading::StudentResult& r) {
    nlohmann::json line = nlohmann::json::parse(grading::audit_json(r, "01", 42, "GPU", "bwrap", "nvcc", "ff"));
    line["event"] = "submission";
    return line.dump();
}

// The message of the `Error` that `call` throws; "" when it throws none.
template <class Error, class Call>
std::string error_from(Call call) {
    try {
        call();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace grading_fixtures
