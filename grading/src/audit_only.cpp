// The grader's build and audit of one file, alone: what `make check` previews with where the
// grader itself is not there (the student edition, a lab's notebook). The same code as a grading
// run's build (build/lab_build.h, build/build.h): the file staged with the lab's headers, compiled
// with the lab's trusted flags, audited with the rubric's forbid_symbols and allow_imports and
// grading/allowed-imports.txt, localised and renamed for the shims. Not linked: the grading
// harness it would be linked with is the grader's (make check has built the file into ./labNN
// with the same driver). No sandbox: the student's own machine, the student's own file.
//
//   audit_only --root ROOT --lab NN --rubric FILE [--work DIR] FILE.cu
//
// FILE is a rubric or the student edition's tools/preview/NN.tests; only its settings are read.
// Prints one JSON object: {"file", "passed", "compiled", "rejected", "compiler_output"}.
// Exit 0: the file was judged (passed or refused: "passed" says which); 2: bad command line;
// 3: the audit could not be run (the lab's build failed, a tool is missing), said in one sentence.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.h"
#include "compile/build.h"
#include "compile/lab_build.h"
#include "exit_codes.h"
#include "intake/lab_info.h"
#include "intake/rubric.h"
#include "util/files.h"
#include "util/text.h"

namespace {

using namespace grading;

struct AuditCommand {
    std::string root = ".", lab, rubric, work, file;
};

const std::string kUsage = "usage: audit_only --root ROOT --lab NN --rubric FILE [--work DIR] FILE.cu";

AuditCommand parse_command(int argc, char** argv) {
    AuditCommand c;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw cudalabs::UsageError(a + " needs a value (" + kUsage + ")");
            return argv[++i];
        };
        if (a == "--root") c.root = value();
        else if (a == "--lab") c.lab = value();
        else if (a == "--rubric") c.rubric = value();
        else if (a == "--work") c.work = value();
        else if (!a.empty() && a[0] == '-') throw cudalabs::UsageError("unknown option " + a + " (" + kUsage + ")");
        else if (c.file.empty()) c.file = a;
        else throw cudalabs::UsageError("one file at a time (" + kUsage + ")");
    }
    if (c.lab.empty() || c.rubric.empty() || c.file.empty()) throw cudalabs::UsageError(kUsage);
    if (!exists(c.file) || is_dir(c.file)) throw cudalabs::UsageError("no such file: " + c.file);
    return c;
}

// The verdict on the file, built in `work` (its stage and the audit's private folder).
nlohmann::json audit_file(const AuditCommand& c, const std::string& work) {
    const Rubric rubric = parse_rubric_settings(read_rubric(c.rubric), c.rubric);
    if (rubric.lab != c.lab) throw cudalabs::UsageError(c.rubric + " holds the settings of lab " + rubric.lab + ", not " + c.lab);
    const std::string root = absolute(c.root), scratch = work + "/scratch";
    make_dirs(scratch);
    const LabInfo info = load_lab_info(root, c.lab, scratch, "audit-info");
    const TrustedSymbols trusted = load_trusted_symbols(info.objects, info.driver_object, scratch);
    const std::string stage = work + "/build";
    stage_submission_files(root, info, stage, read_file(c.file));
    BuildSpec spec = lab_build_spec(info, rubric, load_import_lists(root), stage);
    spec.trusted_objects = info.objects;
    const BuildResult built = build_submission(spec, trusted);
    return {{"file", c.file}, {"passed", built.ok}, {"compiled", built.compiled},
            {"rejected", built.rejected}, {"compiler_output", clip(built.compiler_output, 12000)}};
}

}  // namespace

int main(int argc, char** argv) {
    std::string work;
    bool made_work = false;
    try {
        const AuditCommand c = parse_command(argc, argv);
        work = c.work;
        if (work.empty()) {
            std::string tmpl = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) + "/cudalabs-audit-XXXXXX";
            if (!mkdtemp(&tmpl[0])) throw std::runtime_error("cannot make a work folder: set TMPDIR to a folder you can write to");
            work = tmpl;
            made_work = true;
        }
        work = absolute(work);
        make_dirs(work);
        const nlohmann::json verdict = audit_file(c, work);
        std::printf("%s\n", grading::json_text(verdict).c_str());
        if (made_work) remove_tree(work);
        return 0;
    } catch (const cudalabs::UsageError& e) {
        if (made_work) remove_tree(work);
        std::fprintf(stderr, "audit_only: %s\n", e.what());
        return cudalabs::kExitUsage;
    } catch (const std::exception& e) {
        if (made_work) remove_tree(work);
        std::fprintf(stderr, "audit_only: the audit could not be run: %s\n", e.what());
        return 3;
    }
}
