// grading/grade: grades a class's submissions of one lab (grading/README.md), and its subcommands
// merge and leaderboard.
//
// This file holds the command and the table of the grader's stages, in the order they run (grade
// below); each stage is a file of grading/src/stages/ that owns its state and is handed what it
// needs. The layers under them, lowest first: util, process, intake, isolation, gpu, compile,
// runs, judge, class (tests/tools/grader_shape.py checks that each includes only those below it).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "class/leaderboard.h"
#include "class/shard.h"
#include "exit_codes.h"
#include "intake/command_line.h"
#include "process/process.h"
#include "stages/builds.h"
#include "stages/class_files.h"
#include "stages/class_intake.h"
#include "stages/grading.h"
#include "stages/inputs.h"
#include "stages/run_folder.h"
#include "stages/sandbox_setup.h"
#include "stages/workers.h"
#include "util/files.h"

using namespace grading;
using cudalabs::UsageError;

namespace {

// A grading run's stages, in the order they run.
int grade_stages(GradingSetup& setup) {
    run_elapsed();  // the run's clock starts
    become_subreaper();
    check_command(setup.cfg);  // (grading/grade made these checks before building the grader too)
    take_command_from_record(setup.cfg);
    ClassInputs inputs = take_in_rubric_and_roster(setup);  // the rubric, a regrade's baseline, the roster
    RunFolder folder(setup);                                // OUT, its lock, its record, the seed
    load_lab(setup);                                        // the lab's trusted build and declaration
    folder.record_tree(setup);
    RunSandbox sandbox;
    set_up_sandbox(setup, sandbox);                         // limits, work folder, isolation
    Workers workers(setup, sandbox);                        // the GPUs, the self-test, workers and lanes
    if (!workers.set_up()) return cudalabs::kExitNoGpu;
    ClassSlice slice = take_in_class(setup, inputs, workers.notes());  // the submissions, the roster, the shard
    folder.keep_recorded(setup, slice);
    ClassBuilds builds(setup, sandbox, slice.subs);         // built beside the grading
    ClassResults book(setup.out, setup.rubric, "Lab " + setup.cfg.lab + (setup.rubric.title.empty() ? "" : " -- " + setup.rubric.title),
                      ids_of(slice.subs));
    book.use_roofline_drawer(scorecard_drawer(absolute(setup.cfg.root), setup.priv));
    const std::vector<std::string> regrade_note = ClassGrading(setup, workers, folder, slice, inputs, book).grade(builds.queue());
    builds.queue().finish();
    const int code = write_class_results(setup, workers, slice, book, regrade_note);
    folder.finish(setup);  // a later run in OUT starts afresh
    return code;
}

// A write of the run's own records that fails (a full disk) stops it in one sentence; what it
// recorded stays, and --resume finishes it.
int grade(const Config& cfg) {
    GradingSetup setup;
    setup.cfg = cfg;
    try {
        return grade_stages(setup);
    } catch (const StorageError& e) {
        throw StorageError(std::string(e.what()) + ": free space on its disk (or make it writable), then finish the run with grading/grade --resume " +
                           (setup.out.empty() ? "OUT" : setup.out));
    }
}

// grading/grade merge OUT SHARD_DIR... (the script puts --root DIR first).
int merge_main(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (!a.empty() && a[0] == '-') throw UsageError("merge takes no option '" + a + "': grading/grade merge OUT SHARD_DIR...");
    }
    if (args.size() < 2) throw UsageError("merge needs the merged results' folder and the shards' folders: grading/grade merge OUT SHARD_DIR...");
    const std::string summary = merge_shards(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
    std::cout << summary << "results: " << absolute(args[0]) << "\n";
    return 0;
}

// grading/grade leaderboard [--secret-file FILE] [--title TEXT] OUT RUN_DIR...
int leaderboard_main(const std::vector<std::string>& args) {
    if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
        std::cout << kUsage;
        return 0;
    }
    std::cout << leaderboard_command(args);
    return 0;
}

// Runs a subcommand of grading/grade (`who` names it in its errors): a usage error (or a rubric's)
// exits 2, any other error 1, each with one line on stderr.
template <class Command>
int exit_of(const std::string& who, Command command) {
    try {
        return command();
    } catch (const UsageError& e) {
        std::cerr << who << ": error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const RubricError& e) {
        std::cerr << who << ": rubric error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << who << ": error: " << e.what() << "\n";
        return cudalabs::kExitFail;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int first = argc > 2 && std::string(argv[1]) == "--root" ? 3 : 1;
    const std::vector<std::string> rest(argv + std::min(argc, first + 1), argv + argc);
    if (argc > first && std::string(argv[first]) == "leaderboard") return exit_of("grade leaderboard", [&] { return leaderboard_main(rest); });
    if (argc > first && std::string(argv[first]) == "merge") return exit_of("grade merge", [&] { return merge_main(rest); });
    Config cfg;
    try {
        cfg = parse_command_line(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    }
    if (cfg.help) {
        std::cout << kUsage;
        return 0;
    }
    return exit_of("grade", [&] { return grade(cfg); });
}
