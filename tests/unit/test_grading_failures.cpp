// A failure of the environment is never the student's (grading/src/runs/failures.h, runs.h): made-up
// lab programs (small Python scripts that speak the result channel) end the ways a sandboxed
// run ends when the GPU, the sandbox or the grader's disk fails, and the ways a student's
// program fails on its own. The first must become grader errors, never a 0; the second must be
// scored. Also the machine-wide locks (machine_locks.h) and how results that are no grade read
// (results.h). Host-only: no GPU, no CUDA.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "grading/protocol/fresh_inputs.h"
#include "grading/protocol/channel_format.h"
#include "grading/protocol/sealed_memory.h"
#include "grading/src/runs/context.h"
#include "grading/src/runs/failures.h"
#include "grading/src/gpu/gpus.h"
#include "grading/src/gpu/gpu_locks.h"
#include "grading/src/class/results.h"
#include "grading/src/runs/runs.h"
#include "grading/src/judge/test_kinds.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;

namespace {

// A folder of made-up tools: lab programs, a verifier and a compute-sanitizer.
struct FakeLab {
    grading_fixtures::TempDir scratch{"grading-failures"};
    const std::string dir = scratch.path;
    FakeLab() {
        chmod(dir.c_str(), 0755);
        make_dirs(dir + "/cuda/bin");
        make_dirs(dir + "/priv");
        make_dirs(dir + "/run");
        // What the scripts share: the channel's framing (grading/protocol/channel_format.h).
        write_file(dir + "/channel.py", R"(import os, struct, sys
seq = 0
def record(kind, payload=b""):
    global seq
    os.write(3, struct.pack("<IIQQ", 0x31524C43, kind, seq, len(payload)) + payload)
    seq += 1
def text(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b
RUN_BEGIN, CASE_BEGIN, OUTPUT, FAULT, CASE_END, RUN_END, DEVICE_READY = 1, 2, 3, 9, 10, 11, 13
PROTOCOL = )" + std::to_string(cudalabs::channel::kProtocolVersion) + R"(
def case(variant, size, output=None, fault=None):
    record(CASE_BEGIN, text(variant) + text(size))
    if output is not None:
        record(OUTPUT, struct.pack("<IQ", 0, len(output)) + output)
    if fault is not None:
        record(FAULT, text(fault))
    record(CASE_END)
)");
    }

    // A lab program: `body` is Python run after `from channel import *`, with the run's
    // variant and sizes in `variant` and `sizes`; a file `count` counts its runs.
    std::string program(const std::string& name, const std::string& body) const {
        const std::string path = dir + "/" + name;
        write_file(path, "#!/usr/bin/env python3\nimport os, sys\nsys.path.insert(0, '" + dir +
                             "')\nfrom channel import *\n"
                             "args = sys.argv[1:]\n"
                             "variant = args[args.index('--variant') + 1] if '--variant' in args else 'v'\n"
                             "sizes = (args[args.index('--size') + 1] if '--size' in args else '1').split(',')\n"
                             "with open('" + dir + "/" + name + ".count', 'a') as f: f.write('x')\n" +
                             body + "\n");
        chmod(path.c_str(), 0755);
        return path;
    }
    int runs_of(const std::string& name) const {
        return exists(dir + "/" + name + ".count") ? static_cast<int>(read_file(dir + "/" + name + ".count").size()) : 0;
    }

    // The trusted verifier: every row as `status` with `note`; with `only_size`, that size's row
    // only, and the others PASS.
    void verifier(const std::string& status, const std::string& note, const std::string& only_size = "") const {
        const std::string path = dir + "/verifier";
        write_file(path, "#!/usr/bin/env python3\nimport json, sys\na = sys.argv[1:]\n"
                         "def row(s):\n"
                         "    hit = '" + only_size + "' in ('', s)\n"
                         "    return {'variant': a[a.index('--variant') + 1], 'size': s, 'status': '" + status +
                             "' if hit else 'PASS', 'note': '" + note + "' if hit else ''}\n"
                             "rows = [row(s) for s in a[a.index('--size') + 1].split(',')]\n"
                             "json.dump({'device': {'name': 'Fake GPU', 'cuda_driver': '13.0'}, 'results': rows}, "
                             "open(a[a.index('--json') + 1], 'w'))\n"
                             "sys.exit(0 if all(r['status'] == 'PASS' for r in rows) else 1)\n");
        chmod(path.c_str(), 0755);
    }

    // A compute-sanitizer that reports `report` to its --log-file, runs the program, and exits
    // `exit_code` (99: errors found).
    void sanitizer(const std::string& report, int exit_code) const {
        const std::string path = dir + "/cuda/bin/compute-sanitizer";
        write_file(path, "#!/usr/bin/env python3\nimport subprocess, sys\na = sys.argv[1:]\n"
                         "log = a[a.index('--log-file') + 1]\n"
                         "i = a.index('--log-file') + 2\n"
                         "subprocess.call(a[i:], pass_fds=(3,))\n"
                         "open(log, 'w').write('''" + report + "''')\n"
                         "sys.exit(" + std::to_string(exit_code) + ")\n");
        chmod(path.c_str(), 0755);
    }

    // The grading context the tests' runs see, over the parts a grader's worker holds.
    GradingSetup setup;
    WorkerSetup worker;
    SubmissionState submission;
    GradingContext context() {
        worker.iso.level = IsolationLevel::Unsafe;
        setup.info.cuda_home = dir + "/cuda";
        setup.info.sol = dir + "/verifier";
        worker.priv = dir + "/priv";
        setup.cfg.seed = 1;
        setup.cfg.lab = "01";
        setup.trace_ok = false;
        setup.retry.pauses_s = {0.01, 0.01};
        setup.rubric.run_timeout_s = 20;
        return {setup, worker, submission};
    }
    GradedProgram graded(const std::string& program) const {
        GradedProgram s;
        s.id = "student";
        s.program = program;
        s.run_dir = dir + "/run";
        s.source_copy = dir + "/none.cu";
        s.file = "vector_add.cu";
        return s;
    }
};

TestSpec correctness_test() {
    TestSpec t;
    t.id = "correct";
    t.name = "Correctness";
    t.points = 10;
    t.variants = {"v"};
    t.sizes = {"1", "2"};
    t.require_kernels = false;
    return t;
}

// A clean run of the harness: every size checked, its output sent, exit 0.
const char* kCleanRun =
    "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nrecord(DEVICE_READY)\n"
    "for s in sizes: case(variant, s, output=b'\\x00' * 4)\nrecord(RUN_END)\nsys.exit(0)";

}  // namespace

TEST_CASE("failures: a run that stopped before the GPU was open is the environment's, whatever its exit status") {
    ProgramRun pr;
    pr.run.started = true;
    pr.run.exit_code = 77;
    pr.began = true;
    CHECK(failure_origin(pr).blame == Blame::Environment);
    pr.run.exit_code = 1;  // a device that could not be opened, however the harness said it
    CHECK(failure_origin(pr).blame == Blame::Environment);
    pr.device_ready = true;  // from here on the student's code ran: exit 77 is its own
    pr.run.exit_code = 77;
    CHECK(failure_origin(pr).blame == Blame::Program);
    pr.run.exit_code = 0;
    CHECK(failure_origin(pr).blame == Blame::Program);
    // A kernel trace that was loaded but never announced itself (it starts with CUDA, before any
    // code of the student's): the rows would say that no kernel ran.
    pr.trace_wanted = true;
    CHECK(failure_origin(pr).blame == Blame::Environment);
    CHECK(failure_origin(pr).reason.find("kernel trace did not start") != std::string::npos);
    pr.trace_ready = true;
    CHECK(failure_origin(pr).blame == Blame::Program);
    // A trace that lost records (CUPTI had no buffer): the kernels it did not keep are not
    // kernels that did not run.
    pr.trace_lost = 3;
    CHECK(failure_origin(pr).blame == Blame::Environment);
    CHECK(failure_origin(pr).reason.find("lost 3 kernel records") != std::string::npos);
    pr.trace_wanted = false;  // a run without the trace (a sanitizer's) cannot lose its records
    CHECK(failure_origin(pr).blame == Blame::Program);
}

TEST_CASE("failures: what the program itself can say makes a failure only unclear") {
    ProgramRun pr;
    pr.run.started = true;
    pr.run.exit_code = 1;
    pr.began = false;  // ended before the harness's main: a loader, the sandbox, or start-up code
    CHECK(failure_origin(pr).blame == Blame::Unclear);
    pr.began = true;
    pr.device_ready = true;
    CaseEvidence c;
    c.faults = {"CUDA error cudaErrorDevicesUnavailable (all CUDA-capable devices are busy or unavailable) from cudaMalloc"};
    pr.cases.push_back(c);
    CHECK(failure_origin(pr).blame == Blame::Unclear);
    pr.cases[0].faults = {"CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered)"};
    CHECK(failure_origin(pr).blame == Blame::Program);
    // The harness's seal refused inside the program: unclear, with one reason whatever errno said
    // (the reason is what a persisting failure is recognised by).
    pr.cases[0].faults = {std::string(cudalabs::kSealFailedMessage) + " (mprotect: Cannot allocate memory)"};
    CHECK(failure_origin(pr).blame == Blame::Unclear);
    const std::string sealed_reason = failure_origin(pr).reason;
    pr.cases[0].faults = {std::string(cudalabs::kSealFailedMessage) + " (mprotect: Permission denied)"};
    CHECK(failure_origin(pr).reason == sealed_reason);
    pr.cases[0].faults = {"CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered)"};
    pr.run.timed_out = true;
    CHECK(failure_origin(pr).blame == Blame::Program);
    ProgramRun never;
    never.run.error = "cannot start a process: Resource temporarily unavailable";
    CHECK(failure_origin(never).blame == Blame::Environment);
    ProgramRun disk;
    disk.run.started = true;
    disk.grader_fault = true;
    disk.channel_problem = "the grader could not store an output: No space left on device";
    CHECK(failure_origin(disk).blame == Blame::Environment);
}

TEST_CASE("grader errors: a program that exits 77 (no usable GPU) is retried, then a grader error, never a 0") {
    FakeLab lab;
    lab.verifier("PASS", "");
    GradingContext ctx = lab.context();
    const std::string p = lab.program("no_gpu", "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nsys.stderr.write('no usable CUDA GPU\\n')\n"
                                                "record(RUN_END)\nsys.exit(77)");
    CHECK_THROWS_AS(run_correctness(ctx, lab.graded(p), correctness_test()), GraderError);
    CHECK(lab.runs_of("no_gpu") == static_cast<int>(ctx.setup.retry.attempts()));
}

TEST_CASE("grader errors: a start the system refuses (EAGAIN) is retried, then a grader error") {
    FakeLab lab;
    lab.verifier("PASS", "");
    GradingContext ctx = lab.context();
    // A program the grader cannot start at all.
    CHECK_THROWS_AS(run_correctness(ctx, lab.graded(lab.dir + "/no-such-program"), correctness_test()), GraderError);
    // A sandbox refused by the process limit before the program ran (what bubblewrap says when
    // the user's processes are at RLIMIT_NPROC): the reference, started the same way, is refused
    // too, so it is the machine's failure.
    const std::string refused = lab.program("refused", "sys.stderr.write('bwrap: Creating new namespace failed: Resource temporarily unavailable\\n')\n"
                                                       "sys.exit(1)");
    ctx.worker.reference.program = refused;
    ctx.worker.reference.run_dir = lab.dir + "/refrun";
    std::string what;
    try {
        run_correctness(ctx, lab.graded(refused), correctness_test());
    } catch (const GraderError& e) {
        what = e.what();
    }
    INFO(what);
    CHECK(what.find("Resource temporarily unavailable") != std::string::npos);
    CHECK(what.find("the reference solution fails in the sandbox too") != std::string::npos);
}

TEST_CASE("grader errors: an output missing after a clean exit is the grader's, not a 0") {
    FakeLab lab;
    lab.verifier("FAIL", "no output of the expected size in outputs/v_1_0.bin");
    GradingContext ctx = lab.context();
    const std::string p = lab.program("clean", kCleanRun);
    CHECK_THROWS_AS(run_correctness(ctx, lab.graded(p), correctness_test()), GraderError);
    CHECK(lab.runs_of("clean") == static_cast<int>(ctx.setup.retry.attempts()));
}

TEST_CASE("grader errors: the sanitizer's device-busy report (the program could not open the GPU) is no finding") {
    FakeLab lab;
    lab.verifier("PASS", "");
    lab.sanitizer("========= Program hit cudaErrorDevicesUnavailable (error 46) due to \"CUDA-capable device(s) is/are busy or "
                  "unavailable\" on CUDA API call to cudaSetDevice.\n========= ERROR SUMMARY: 1 error\n",
                  99);
    GradingContext ctx = lab.context();
    const std::string p = lab.program("busy", "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nrecord(RUN_END)\nsys.exit(77)");
    TestSpec t = correctness_test();
    t.id = "memcheck";
    t.kind = TestKind::Sanitizer;
    CHECK_THROWS_AS(run_sanitizer(ctx, lab.graded(p), t), GraderError);
}

TEST_CASE("grader errors: the verifier (trusted) that cannot run is the grader's") {
    FakeLab lab;
    write_file(lab.dir + "/verifier", "#!/bin/sh\necho 'no usable CUDA GPU' >&2\nexit 77\n");
    chmod((lab.dir + "/verifier").c_str(), 0755);
    GradingContext ctx = lab.context();
    CHECK_THROWS_AS(run_correctness(ctx, lab.graded(lab.program("clean", kCleanRun)), correctness_test()), GraderError);
}

TEST_CASE("the student's own failures are scored: a wrong result, a crash once the GPU is open, exit 77 from its own code") {
    FakeLab lab;
    lab.verifier("FAIL", "element 0 is 1 but should be 2");
    GradingContext ctx = lab.context();
    TestResult wrong = run_correctness(ctx, lab.graded(lab.program("wrong", kCleanRun)), correctness_test());
    CHECK(wrong.score == 0);
    CHECK(wrong.output.find("should be 2") != std::string::npos);
    CHECK(lab.runs_of("wrong") == 1);  // not retried

    lab.verifier("PASS", "");
    const std::string own_exit = lab.program("own77", "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nrecord(DEVICE_READY)\n"
                                                      "record(CASE_BEGIN, text(variant) + text(sizes[0]))\nsys.exit(77)");
    TestResult exited = run_correctness(ctx, lab.graded(own_exit), correctness_test());
    CHECK(exited.score == 0);
    CHECK(lab.runs_of("own77") == 1);

    TestResult right = run_correctness(ctx, lab.graded(lab.program("right", kCleanRun)), correctness_test());
    CHECK(right.score == 10);
}

TEST_CASE("a result that does not follow its own inputs zeroes its test; a merely wrong size costs only that size") {
    FakeLab lab;
    GradingContext ctx = lab.context();
    const std::string program = lab.program("replays", kCleanRun);
    // Right when checked, wrong once a timed repetition had new input values (size 2 of 2).
    lab.verifier("FAIL", std::string(cudalabs::kFreshInputsFault) + "produced a wrong result", "2");
    TestResult replayed = run_correctness(ctx, lab.graded(program), correctness_test());
    INFO(replayed.output);
    CHECK(replayed.score == 0);
    CHECK(replayed.output.find("1 of 2 sizes passed") != std::string::npos);
    CHECK(replayed.output.find("this test scores 0: the result of v at size 2") != std::string::npos);

    lab.verifier("FAIL", "element 0 is 1 but should be 2", "2");
    TestResult wrong = run_correctness(ctx, lab.graded(program), correctness_test());
    INFO(wrong.output);
    CHECK(wrong.score == 5);
    CHECK(wrong.output.find("this test scores 0") == std::string::npos);
}

TEST_CASE("an unclear failure that persists is the program's when the reference runs in the sandbox, else a grader error") {
    FakeLab lab;
    lab.verifier("PASS", "");
    GradingContext ctx = lab.context();
    // Start-up code that ends the program before the harness's main (no RUN_BEGIN).
    const std::string early = lab.program("early", "sys.stderr.write('terminate called\\n')\nsys.exit(134)");
    ctx.worker.reference.program = lab.program("reference", kCleanRun);
    ctx.worker.reference.run_dir = lab.dir + "/refrun";
    ctx.worker.reference.args = {"--variant", "v", "--size", "1"};
    TestResult r = run_correctness(ctx, lab.graded(early), correctness_test());
    CHECK(r.score == 0);
    CHECK(r.output.find("while the reference solution ran in the same sandbox") != std::string::npos);
    // Once it is known to be the program's, the next run of it is not made again.
    const int runs = lab.runs_of("early");
    CHECK(runs == static_cast<int>(ctx.setup.retry.attempts()));

    ctx.submission.program_failures.clear();
    ctx.worker.reference.program = lab.program("broken_reference", "sys.exit(77)");
    CHECK_THROWS_AS(run_correctness(ctx, lab.graded(early), correctness_test()), GraderError);
}

TEST_CASE("an unclear failure under a sanitizer is judged against the reference under the same sanitizer") {
    FakeLab lab;
    lab.verifier("PASS", "");
    // A sanitizer that cannot start its own threads in this sandbox: it stops every program it
    // runs, the reference's too, before the harness begins.
    write_file(lab.dir + "/cuda/bin/compute-sanitizer",
               "#!/bin/sh\necho \"terminate called after throwing an instance of 'std::system_error'\" >&2\n"
               "echo '  what():  Resource temporarily unavailable' >&2\nexit 134\n");
    chmod((lab.dir + "/cuda/bin/compute-sanitizer").c_str(), 0755);
    GradingContext ctx = lab.context();
    ctx.worker.reference.program = lab.program("reference", kCleanRun);  // runs well without the tool
    ctx.worker.reference.run_dir = lab.dir + "/refrun";
    ctx.worker.reference.args = {"--variant", "v", "--size", "1"};
    TestSpec t = correctness_test();
    t.id = "racecheck";
    t.kind = TestKind::Sanitizer;
    t.tool = "racecheck";
    std::string what;
    try {
        run_sanitizer(ctx, lab.graded(lab.program("correct", kCleanRun)), t);
    } catch (const GraderError& e) {
        what = e.what();
    }
    INFO(what);
    CHECK(what.find("the reference solution fails in the sandbox too") != std::string::npos);
    CHECK(what.find("under compute-sanitizer --tool racecheck") != std::string::npos);
    CHECK(lab.runs_of("reference") == 0);  // never run plain to decide a sanitizer's run
}

TEST_CASE("a sanitizer's run gets its tool's threads on top of the program's process limit") {
    FakeLab lab;
    lab.verifier("PASS", "");
    // A sanitizer that reports the process limit it was started with (and finds an error, so
    // that its report is quoted).
    write_file(lab.dir + "/cuda/bin/compute-sanitizer",
               "#!/usr/bin/env python3\nimport resource, sys\na = sys.argv[1:]\n"
               "open(a[a.index('--log-file') + 1], 'w').write('RLIMIT_NPROC %d\\n' % resource.getrlimit(resource.RLIMIT_NPROC)[0])\n"
               "sys.exit(99)\n");
    chmod((lab.dir + "/cuda/bin/compute-sanitizer").c_str(), 0755);
    GradingContext ctx = lab.context();
    lab.setup.run_limits.processes = 64;
    TestSpec t = correctness_test();
    t.kind = TestKind::Sanitizer;
    t.tool = "racecheck";
    const long expected = 64 + sanitizer_request(ctx.setup, t).tool_threads;
    const TestResult r = run_sanitizer(ctx, lab.graded(lab.program("any", kCleanRun)), t);
    INFO(r.output);
    CHECK(r.output.find("RLIMIT_NPROC " + std::to_string(expected)) != std::string::npos);
}

TEST_CASE("a sanitizer test's command: racecheck's host threads fixed where the sanitizer takes the option, the rubric's own choice kept") {
    FakeLab lab;
    GradingContext ctx = lab.context();
    TestSpec t = correctness_test();
    t.kind = TestKind::Sanitizer;
    t.tool = "racecheck";
    auto has = [](const RunRequest& r, const std::string& option) { return std::find(r.prefix.begin(), r.prefix.end(), option) != r.prefix.end(); };

    lab.setup.racecheck_workers_option = true;
    RunRequest r = sanitizer_request(ctx.setup, t);
    CHECK(r.prefix.front() == lab.dir + "/cuda/bin/compute-sanitizer");
    CHECK_FALSE(r.trace);
    REQUIRE(has(r, "--racecheck-num-workers"));
    const auto workers = std::find(r.prefix.begin(), r.prefix.end(), "--racecheck-num-workers") + 1;
    REQUIRE(workers != r.prefix.end());
    CHECK(std::stoi(*workers) > 0);
    CHECK(std::stoi(*workers) < 16);  // far below any process limit, on any machine

    t.tool_options = {"--racecheck-num-workers=2"};
    r = sanitizer_request(ctx.setup, t);
    CHECK_FALSE(has(r, "--racecheck-num-workers"));
    CHECK(r.prefix.back() == "--racecheck-num-workers=2");

    t.tool_options.clear();
    t.tool = "memcheck";
    CHECK_FALSE(has(sanitizer_request(ctx.setup, t), "--racecheck-num-workers"));
    t.tool = "racecheck";
    lab.setup.racecheck_workers_option = false;  // an older compute-sanitizer, which would refuse it
    CHECK_FALSE(has(sanitizer_request(ctx.setup, t), "--racecheck-num-workers"));
    // Whatever the tool, its own threads get room beyond the program's process limit: one per CPU.
    CHECK(sanitizer_request(ctx.setup, t).tool_threads >= 1);
}

TEST_CASE("the verifier opens the GPU with one hardware queue; the student's program with CUDA's default") {
    FakeLab lab;
    lab.verifier("PASS", "");
    const std::string verifier = lab.dir + "/verifier";
    // The verifier and the program each note the queues they were given.
    write_file(verifier, replace_all(read_file(verifier), "import json, sys\n",
                                     "import json, os, sys\nopen('" + lab.dir + "/verifier.queues', 'w').write("
                                     "os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS', 'default'))\n"));
    GradingContext ctx = lab.context();
    const std::string p = lab.program("queues", "open('" + lab.dir + "/queues.queues', 'w').write("
                                                "os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS', 'default'))\n" + kCleanRun);
    TestResult r = run_correctness(ctx, lab.graded(p), correctness_test());
    INFO(r.output);
    CHECK(r.score == 10);
    CHECK(read_file(lab.dir + "/verifier.queues") == "1");
    CHECK(read_file(lab.dir + "/queues.queues") == "default");
}

TEST_CASE("a run that needed a retry and then worked is scored in full, and says it was run again") {
    FakeLab lab;
    lab.verifier("PASS", "");
    GradingContext ctx = lab.context();
    // The first run cannot open the GPU (another process had it for a moment); the next works.
    const std::string p = lab.program("flaky", std::string("if open('") + lab.dir + "/flaky.count').read() == 'x':\n"
                                                                                    "    record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\n"
                                                                                    "    record(RUN_END)\n    sys.exit(77)\n" +
                                                   kCleanRun);
    TestResult r = run_correctness(ctx, lab.graded(p), correctness_test());
    CHECK(r.score == 10);
    CHECK(r.output.find("run again after") != std::string::npos);
    CHECK(lab.runs_of("flaky") == 2);
}

TEST_CASE("a run that timed out is made again with four times the limit: scored when it then ends, a timeout once it does not") {
    FakeLab lab;
    lab.verifier("PASS", "");
    GradingContext ctx = lab.context();
    TestSpec t = correctness_test();
    t.timeout_s = 0.5;
    // Slow the first time only (a machine busy with other grade runs): full marks, said.
    const std::string slow_once = lab.program("slow_once", std::string("import time\nif open('") + lab.dir +
                                                               "/slow_once.count').read() == 'x': time.sleep(5)\n" + kCleanRun);
    TestResult r = run_correctness(ctx, lab.graded(slow_once), t);
    INFO(r.output);
    CHECK(r.score == 10);
    CHECK(r.output.find("run again after: it timed out after 0.5 s") != std::string::npos);
    CHECK(lab.runs_of("slow_once") == 2);

    // Hangs every time: 0, said; its second variant's timeout counts at once (no longer run).
    const std::string hangs = lab.program("hangs", "import time\ntime.sleep(30)");
    t.variants = {"v", "w"};
    TestResult h = run_correctness(ctx, lab.graded(hangs), t);
    INFO(h.output);
    CHECK(h.score == 0);
    CHECK(h.output.find("it timed out after 0.5 s, and again when run with 2 s") != std::string::npos);
    CHECK(lab.runs_of("hangs") == 3);
}

TEST_CASE("machine locks: each grading run gets its own sandbox identity; a GPU grades one submission at a time") {
    grading_fixtures::TempDir scratch("grading-locks");
    const std::string folder = scratch.path;
    SandboxIdentity a = claim_sandbox_identity(64000, 64000, 3, folder);
    SandboxIdentity b = claim_sandbox_identity(64000, 64000, 3, folder);
    CHECK(a.uid == 64000);
    CHECK(b.uid == 64001);
    CHECK(b.gid == 64001);
    {
        SandboxIdentity c = claim_sandbox_identity(64000, 64000, 3, folder);
        CHECK(c.uid == 64002);
        CHECK_THROWS_WITH_AS(claim_sandbox_identity(64000, 64000, 3, folder), doctest::Contains("in use by other grading runs"),
                             std::runtime_error);
    }
    // Released with its holder: taken again.
    CHECK(claim_sandbox_identity(64000, 64000, 3, folder).uid == 64002);
    // Another process (another grading run) holds identities of its own.
    pid_t child = fork();
    if (child == 0) {
        try {
            SandboxIdentity d = claim_sandbox_identity(64000, 64000, 3, folder);
            _exit(d.uid == 64002 ? 0 : 1);
        } catch (...) {
            _exit(2);
        }
    }
    int st = 0;
    waitpid(child, &st, 0);
    CHECK(WEXITSTATUS(st) == 0);

    TurnLocks gpu = lock_gpu("GPU-1234", folder, TurnKind::Alone);
    std::atomic<bool> waited{false}, got{false};
    std::thread other([&] {
        TurnLocks second = lock_gpu("GPU-1234", folder, TurnKind::Alone, [&] { waited = true; });
        got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(waited.load());
    CHECK_FALSE(got.load());
    TurnLocks another = lock_gpu("GPU-5678", folder, TurnKind::Alone);  // another GPU is free
    CHECK(another.gpu.held());
    CHECK(another.ticket.held());
    gpu.release();
    other.join();
    CHECK(got.load());
}

TEST_CASE("results that are no grade: compile-only and grader errors show no total anywhere") {
    Rubric rubric;
    TestSpec t;
    t.id = "correct";
    t.name = "Correctness";
    t.points = 20;
    rubric.tests = {t};

    StudentResult compiled;
    compiled.student = "alice";
    compiled.file = "vector_add.cu";
    compiled.compiled = true;
    TestResult not_run{"correct", "Correctness", 0, 20, Visibility::Visible, "not run (--compile-only)"};
    not_run.not_run = true;
    compiled.tests = {not_run};

    StudentResult failed;
    failed.student = "bob";
    failed.file = "vector_add.cu";
    failed.grader_error = "the program could not get the GPU (exit 77) (4 attempts)";

    for (const StudentResult* r : {&compiled, &failed}) {
        const std::string verdict = r == &compiled ? kCompileOnlyVerdict : kGraderErrorVerdict;
        CHECK_FALSE(r->scored());
        CHECK(total_text(*r, 20) == verdict);
        const std::string feedback = feedback_markdown(*r, "Lab 01");
        CHECK(feedback.find("Score: **" + verdict + "**") != std::string::npos);
        CHECK(feedback.find("Score: **0") == std::string::npos);
        const nlohmann::json g = nlohmann::json::parse(gradescope_json(*r));
        CHECK(g["score"] == 0);
        for (const auto& test : g["tests"]) CHECK(test["max_score"] == 0);  // 0 of 0 points: no grade
        CHECK(g["output"].get<std::string>().find(r == &compiled ? "tests not run" : "the grader failed") != std::string::npos);
        const nlohmann::json audit = nlohmann::json::parse(audit_json(*r, "01", 1, "d", "i", "t", "s"));
        CHECK(audit["total"].is_null());
        const std::vector<std::string> row = summary_row(*r, rubric);
        CHECK(row[row.size() - 2] == "-");
        CHECK(row.back().find(verdict) == 0);
    }
    std::ostringstream book;
    write_gradebook(book, {compiled, failed}, rubric);
    std::istringstream lines(book.str());
    std::string head, alice, bob;
    std::getline(lines, head);
    std::getline(lines, alice);
    std::getline(lines, bob);
    CHECK(head == "student,submitted_as,sha256,\"correct\",total,max,note");
    CHECK(alice == "\"alice\",\"\",,,,20,\"" + std::string(kCompileOnlyVerdict) + "\"");
    CHECK(bob.rfind("\"bob\",\"\",,,,20,\"grader error: the program could not get the GPU", 0) == 0);
}

TEST_CASE("each GPU's UUID (its lock's name) is read from the harness's list of devices, without a context") {
    const std::string text =
        "sol01: error: --device 1023 does not exist: this machine has 2 CUDA device(s), numbered from 0 (0: NVIDIA H100 80GB HBM3, "
        "GPU-8f6e1a2b-0c3d-4e5f-8a9b-0c1d2e3f4a5b; 1: NVIDIA H100 80GB HBM3, GPU-11111111-2222-3333-4444-555555555555)";
    CHECK(parse_device_count(text) == 2);
    CHECK(parse_device_uuids(text) ==
          std::vector<std::string>{"GPU-8f6e1a2b-0c3d-4e5f-8a9b-0c1d2e3f4a5b", "GPU-11111111-2222-3333-4444-555555555555"});
    CHECK(parse_device_uuids("this machine has 1 CUDA device(s), numbered from 0").empty());  // an older harness
}

TEST_CASE("a run's start to its GPU open is timed from its DEVICE_READY record") {
    FakeLab lab;
    GradingContext ctx = lab.context();
    SubmissionTiming timing;
    timing.tests.push_back({});
    timing.current = &timing.tests[0];
    ctx.submission.timing = &timing;
    const std::string p = lab.program("slow_start", "import time\nrecord(RUN_BEGIN, struct.pack('<I', PROTOCOL))\ntime.sleep(0.3)\n"
                                                    "record(DEVICE_READY)\nrecord(RUN_END)\nsys.exit(0)");
    const ProgramRun pr = run_program(ctx, correctness_request(ctx, lab.graded(p), correctness_test(), "v", "1", 1));
    CHECK(pr.run.ok());
    REQUIRE(timing.tests[0].cuda_starts == 1);
    CHECK(timing.tests[0].cuda_start_s >= 0.3);
    CHECK(timing.tests[0].cuda_start_s <= timing.tests[0].run_s[0]);
    const std::string never = lab.program("never_opens", "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nsys.exit(77)");
    run_program(ctx, correctness_request(ctx, lab.graded(never), correctness_test(), "v", "1", 1));
    CHECK(timing.tests[0].cuda_starts == 1);  // a run that never opened the GPU has no start to count
    CHECK(timing.tests[0].runs[0] == 2);
}

namespace {
// A timed run's records around its gate: `before` (Python) runs after the GPU is open, then
// TIMING_READY, the wait for the go on descriptor 6, and the go written to gate.got.
std::string gated_program(FakeLab& lab, const std::string& name, const std::string& before) {
    return lab.program(name, "record(RUN_BEGIN, struct.pack('<I', PROTOCOL))\nrecord(DEVICE_READY)\n" + before +
                                 "record(15)\n"  // TIMING_READY
                                 "go = os.read(6, 1)\n"
                                 "open('" + lab.dir + "/" + name + ".got', 'w').write(go.decode())\n"
                                 "record(RUN_END)\nsys.exit(0)");
}
}  // namespace

TEST_CASE("a timed run's gate: the go comes once the GPU is alone, and the wait is not counted against the run's limit") {
    FakeLab lab;
    GradingContext ctx = lab.context();
    RunRequest req = correctness_request(ctx, lab.graded(gated_program(lab, "gated", "")), correctness_test(), "v", "1", 1);
    req.timeout_s = 0.5;
    TimingGate gate;
    int opened = 0;
    gate.open = [&] {
        ++opened;
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // other lanes' runs under way
    };
    req.gate = &gate;
    const ProgramRun pr = run_program(ctx, req);
    CHECK(pr.run.ok());
    CHECK_FALSE(pr.run.timed_out);
    CHECK(pr.channel_complete);
    CHECK(opened == 1);
    CHECK(gate.opened);
    CHECK(read_file(lab.dir + "/gated.got") == "g");

    // Without a gate the run is not told of one: the harness would reject --timing-gate it was not given.
    RunRequest plain = req;
    plain.gate = nullptr;
    plain.timeout_s = 5;
    const ProgramRun ungated = run_program(ctx, plain);
    CHECK_FALSE(ungated.run.ok());  // descriptor 6 is not open: the fake program fails to read it
    CHECK(opened == 1);
}

TEST_CASE("a timed run's gate stays shut for a run that began timing before it asked") {
    FakeLab lab;
    GradingContext ctx = lab.context();
    const std::string early = "record(CASE_BEGIN, text('v') + text('1'))\n"
                              "record(7, struct.pack('<II', 0, 0))\nrecord(8, struct.pack('<I', 0))\n"  // a repetition, then the request
                              "record(CASE_END)\n";
    RunRequest req = correctness_request(ctx, lab.graded(gated_program(lab, "early", early)), correctness_test(), "v", "1", 1);
    TimingGate gate;
    int opened = 0;
    gate.open = [&] { ++opened; };
    req.gate = &gate;
    const ProgramRun pr = run_program(ctx, req);
    CHECK(pr.run.ok());
    CHECK(read_file(lab.dir + "/early.got") == "g");  // it was let go on
    CHECK(opened == 0);                               // but the GPU was never taken alone for it
    CHECK_FALSE(gate.opened);                         // so its timing does not count (made again, alone)
}
