// grading/grade's first step: its command line checked (intake/command_line.h) before anything is
// built, so that a wrong folder or option is said at once, in a fresh clone too. Exit 0: go on
// (to build the grader and grade); 2: a bad command line, said in one line. The subcommands
// (merge, leaderboard) and --help are the grader's own: 0.
#include <iostream>
#include <string>

#include "args.h"
#include "exit_codes.h"
#include "intake/command_line.h"

int main(int argc, char** argv) {
    const int first = argc > 2 && std::string(argv[1]) == "--root" ? 3 : 1;
    if (argc > first && (std::string(argv[first]) == "merge" || std::string(argv[first]) == "leaderboard")) return 0;
    try {
        const grading::Config cfg = grading::parse_command_line(argc, argv);
        if (!cfg.help) grading::check_command(cfg);
        return 0;
    } catch (const cudalabs::UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    }
}
