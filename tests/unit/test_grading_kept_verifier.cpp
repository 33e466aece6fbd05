// A lane's kept verifier (grading/src/runs/kept_verifier.h) and the runner's processes that run
// beside the grader (RunningProcess), with a bash stand-in that speaks the verifier's protocol
// (grading/protocol/verifier_requests.h): the first word of a request says how it answers.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "grading/src/runs/kept_verifier.h"
#include "grading/src/isolation/isolation.h"
#include "tests/unit/grading_fixtures.h"

using namespace grading;

namespace {

// Answers each request by its first word: pass (exit 0), fail (exit 1), junk (no reply), hang,
// die; and counts its requests in the file `requests`, its starts in `starts`.
const char kStandIn[] = R"(#!/bin/bash
[ "$1" = --verifier-requests ] || exit 9
echo start >> starts
first=
while IFS= read -r -d '' word <&3; do
    if [ -n "$word" ]; then [ -z "$first" ] && first=$word; continue; fi
    echo "$first" >> requests
    case "$first" in
        pass) printf 'EXIT 0\n' >&3 ;;
        fail) printf 'EXIT 1\n' >&3 ;;
        junk) printf 'hello\n' >&3 ;;
        hang) sleep 30 ;;
        die) exit 3 ;;
    esac
    first=
done
)";

struct StandIn {
    grading_fixtures::TempDir dir{"kept-verifier"};
    std::string program = dir.path + "/verifier";
    StandIn() {
        std::ofstream(program) << kStandIn;
        chmod(program.c_str(), 0755);
    }
    RunSpec request(const std::string& how, double wall_s = 10) const {
        RunSpec s;
        s.argv = {program, how, "--verify-outputs", dir.path + "/outputs dir", "--seed", "7"};
        s.cwd = dir.path;
        s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
        s.stdout_path = dir.path + "/verifier.out";
        s.stderr_path = dir.path + "/verifier.err";
        s.limits.wall_s = wall_s;
        return s;
    }
    size_t lines(const std::string& name) const {
        std::ifstream f(dir.path + "/" + name);
        size_t n = 0;
        for (std::string line; std::getline(f, line);) ++n;
        return n;
    }
};

}  // namespace

TEST_CASE("a kept verifier answers one request after another from one process") {
    StandIn v;
    KeptVerifier kept;
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK(kept.verify(v.request("fail")) == 1);
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK(kept.starts() == 1);
    CHECK(v.lines("starts") == 1);
    CHECK(v.lines("requests") == 3);
}

TEST_CASE("a kept verifier that ends, hangs or answers no reply is stopped, and the next request starts another") {
    StandIn v;
    KeptVerifier kept;
    CHECK_FALSE(kept.verify(v.request("die")).has_value());
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK_FALSE(kept.verify(v.request("junk")).has_value());
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(kept.verify(v.request("hang", 0.5)).has_value());
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK(kept.starts() == 4);
    CHECK(v.lines("starts") == 4);
}

TEST_CASE("a kept verifier is started afresh after its requests' bound, or for another environment") {
    StandIn v;
    KeptVerifier kept(2);
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK(kept.verify(v.request("pass")) == 0);
    CHECK(kept.starts() == 1);
    CHECK(kept.verify(v.request("pass")) == 0);  // the third: a new process
    CHECK(kept.starts() == 2);
    RunSpec other = v.request("pass");
    other.env.push_back("CUDA_VISIBLE_DEVICES=1");
    CHECK(kept.verify(other) == 0);
    CHECK(kept.starts() == 3);
}

TEST_CASE("a kept verifier that cannot start answers nothing, and a request that cannot be sent is not sent") {
    StandIn v;
    KeptVerifier kept;
    RunSpec missing = v.request("pass");
    missing.argv[0] = v.dir.path + "/no-such-verifier";
    CHECK_FALSE(kept.verify(missing).has_value());
    RunSpec empty_word = v.request("pass");
    empty_word.argv.push_back("");
    CHECK_FALSE(kept.verify(empty_word).has_value());
    CHECK(kept.verify(v.request("pass")) == 0);
}

TEST_CASE("a process running beside the grader survives the sweeps of strays, and is killed when stopped") {
    grading_fixtures::TempDir dir("running");
    RunSpec s;
    s.argv = {"/bin/sh", "-c", "echo $$ > pid; exec sleep 30"};
    s.cwd = dir.path;
    s.env = scrubbed_env(s.cwd, "/usr/local/cuda/bin");
    RunningProcess p(s);
    REQUIRE(p.running());
    for (int i = 0; i < 100 && grading::read_file(dir.path + "/pid").empty(); ++i) usleep(10000);
    reap_strays();  // another lane's sweep after its run
    CHECK(p.running());
    const long pid = std::stol(grading::read_file(dir.path + "/pid"));
    CHECK(kill(static_cast<pid_t>(pid), 0) == 0);
    const RunResult r = p.stop();
    CHECK(r.started);
    CHECK(r.signal == SIGKILL);
    CHECK_FALSE(p.running());
    CHECK(kill(static_cast<pid_t>(pid), 0) != 0);

    RunSpec bad = s;
    bad.argv = {dir.path + "/missing"};
    RunningProcess q(bad);
    CHECK_FALSE(q.running());
    CHECK(q.error().find("cannot run") != std::string::npos);
    CHECK_FALSE(q.wait().started);
}
