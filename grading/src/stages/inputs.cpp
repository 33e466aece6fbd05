#include "stages/inputs.h"

#include <cstdio>
#include <sstream>

#include "args.h"
#include "compile/lab_build.h"
#include "process/process.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/text.h"

namespace grading {

using cudalabs::UsageError;

namespace {

// The compiler and the trusted tree's revision, as every report states them.
void describe_tools_and_tree(GradingSetup& setup) {
    const std::string& root = setup.cfg.root;
    const std::string& priv = setup.priv;
    std::string last;
    std::istringstream vin(run_trusted({setup.info.nvcc, "--version"}, root, 60, priv).out);
    for (std::string line; std::getline(vin, line);)
        if (!line.empty()) last = line;
    setup.tools = "nvcc: " + last;
    std::string git = run_trusted({"git", "-C", root, "rev-parse", "--short", "HEAD"}, root, 30, priv).out;
    std::string dirty = run_trusted({"git", "-C", root, "status", "--porcelain"}, root, 30, priv).out;
    if (!git.empty()) setup.tools += "; tree: " + split_ws(git)[0] + (dirty.empty() ? "" : " (modified)");
    // Shards of one class must come from the same tree: a modified one is told apart by the
    // changes of its tracked files (not by untracked ones, such as other shards' results).
    if (!git.empty()) {
        setup.tree = split_ws(git)[0];
        const std::string diff = dirty.empty() ? "" : run_trusted({"git", "-C", root, "diff", "HEAD"}, root, 60, priv).out;
        if (!diff.empty()) setup.tree += " modified (diff sha256 " + sha256_hex(diff).substr(0, 16) + ")";
    }
}

}  // namespace

// The rubric, and what a regrade reuses (its seed, its roster); then the roster itself, read
// before anything is built: a bad one stops the run at once (exit 2).
ClassInputs take_in_rubric_and_roster(GradingSetup& setup) {
    Config& cfg = setup.cfg;
    cfg.root = absolute(cfg.root);
    if (cfg.rubric_path.empty()) cfg.rubric_path = rubric_of_lab(cfg.root, cfg.lab);
    setup.rubric_text = read_rubric(cfg.rubric_path);
    // Its form now, before the lab is built; its tests of the lab's rungs once it is (load_lab).
    setup.rubric = parse_rubric(setup.rubric_text, cfg.rubric_path);
    setup.rubric_sha = sha256_hex(setup.rubric_text);
    if (setup.rubric.lab != cfg.lab) throw UsageError(cfg.rubric_path + " is the rubric of lab " + setup.rubric.lab + ", not " + cfg.lab);

    ClassInputs in;
    // A regrade reuses the earlier seed (unless one is given) and compares.
    in.regrade = !cfg.regrade.empty();
    if (in.regrade) {
        const std::string audit = read_given_file(cfg.regrade, kMaxAuditLogBytes, "audit log of --regrade");
        in.baseline = parse_regrade_baseline(audit, cfg.regrade);
        if (!cfg.seed) cfg.seed = in.baseline.seed;
        if (cfg.roster.empty()) cfg.roster = roster_of_run(audit);  // the roster it was graded with
    }
    if (!cfg.roster.empty()) {
        in.roster = parse_roster(read_given_file(cfg.roster, kMaxRosterBytes, "roster file"), cfg.roster);
        in.roster.path = absolute(cfg.roster);
        if (in.roster.encoding != "UTF-8")
            std::fprintf(stderr, "grade: the roster %s is not UTF-8: read as %s\n", cfg.roster.c_str(), in.roster.encoding.c_str());
        for (const std::string& note : in.roster.notes) std::fprintf(stderr, "grade: %s\n", note.c_str());
    }
    return in;
}

// The lab: its trusted build and declaration; the rubric's tests of each rung come from the rungs
// it declares.
void load_lab(GradingSetup& setup) {
    std::fprintf(stderr, "grade: building the trusted tree (make grading-info LAB=%s)...\n", setup.cfg.lab.c_str());
    setup.info = load_lab_info(setup.cfg.root, setup.cfg.lab, setup.priv);
    const LabInfo& info = setup.info;
    setup.trusted = load_trusted_symbols(info.objects, info.driver_object, setup.priv);
    setup.sol_kernels = object_kernels(info.sol_object, setup.priv);
    setup.import_lists = load_import_lists(setup.cfg.root);

    // The rubric's tests of each rung come from the rungs the lab declares, and the rubric must
    // agree with the rest of what it declares: its variants, and every size the driver checks in
    // each correctness test.
    RunResult described = run_trusted({info.sol, "--describe"}, setup.cfg.root, 60, setup.priv);
    if (!described.ok())
        throw std::runtime_error(info.sol + " --describe failed (" + described.describe() + "): " + clip(described.err, 500));
    const LabDeclaration declared = parse_lab_declaration(described.out, info.sol + " --describe");
    setup.variants = declared.variants;
    setup.rubric = parse_rubric(setup.rubric_text, setup.cfg.rubric_path, &declared);
    const std::vector<std::string> disagreements = rubric_disagreements(setup.rubric, declared);
    if (!disagreements.empty())
        throw RubricError(setup.cfg.rubric_path + " disagrees with lab " + setup.cfg.lab + " (" + info.sol +
                          " --describe): " + join(disagreements, "; "));
    describe_tools_and_tree(setup);
}

}  // namespace grading
