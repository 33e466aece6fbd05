// The grader's options of a lab program (grading/harness/grading_options.h), taken through the
// run's hooks as the grading harness takes them: same spellings, values and messages as a
// lab's own options.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/args.h"
#include "common/run_hooks.h"
#include "grading/harness/grading_options.h"
#include "grading/harness/verification_requests.h"
#include "grading/protocol/verifier_requests.h"

using namespace cudalabs;

namespace {
// The grading harness's options, taken as its RunHooks take them (grading/harness/graded_run.cu),
// installed while the test runs.
struct GradingOptionHooks : RunHooks {
    GradingOptions options;
    GradingOptionHooks() { install_run_hooks(this); }
    ~GradingOptionHooks() override { install_run_hooks(nullptr); }
    bool take_option(const std::string& flag, const std::function<std::string()>& value) override {
        return options.take(flag, value);
    }
    void options_read() override { options.check(); }
};
// A command line of a lab program, read with the hooks installed (none: the lab's own).
Options parse(std::vector<const char*> args) {
    args.insert(args.begin(), "sol01");
    return parse_args(static_cast<int>(args.size()), args.data());
}
GradingOptions parse_grading(std::vector<const char*> args) {
    GradingOptionHooks hooks;
    parse(std::move(args));
    return hooks.options;
}
}  // namespace

TEST_CASE("a lab knows no grading flag: they are unknown options, and --help does not name them") {
    for (const char* flag : {"--channel", "--verify-outputs", "--fresh-inputs"}) {
        CAPTURE(flag);
        CHECK_THROWS_WITH_AS(parse({flag, "3"}), doctest::Contains("unknown option"), UsageError);
        CHECK(common_options_help().find(flag) == std::string::npos);
    }
}

TEST_CASE("grading flags, through the run's hooks: a channel or verified outputs, not both") {
    CHECK(parse_grading({"--channel", "3"}).channel_fd == 3);
    CHECK(parse_grading({"--channel=17"}).channel_fd == 17);
    CHECK(parse_grading({}).channel_fd == -1);
    CHECK(parse_grading({"--verify-outputs=/tmp/y"}).verify_dir == "/tmp/y");
    CHECK(parse_grading({"--verify-outputs", "/tmp/y", "--fresh-inputs", "12"}).fresh_key == 12);
    CHECK_THROWS_WITH_AS(parse_grading({"--channel", "3", "--verify-outputs", "b"}),
                         doctest::Contains("cannot be combined"), UsageError);
    CHECK_THROWS_WITH_AS(parse_grading({"--channel", "1"}), doctest::Contains("of its own"), UsageError);
    CHECK_THROWS_WITH_AS(parse_grading({"--fresh-inputs", "5"}), doctest::Contains("needs --channel or --verify-outputs"),
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_grading({"--verify-outputs="}), doctest::Contains("needs a folder"), UsageError);
    CHECK(parse_grading({"--channel", "3", "--timing-gate", "6"}).timing_gate_fd == 6);
    CHECK(parse_grading({"--channel", "3"}).timing_gate_fd == -1);
    CHECK_THROWS_WITH_AS(parse_grading({"--timing-gate", "6"}), doctest::Contains("--timing-gate needs --channel"), UsageError);
    CHECK_THROWS_WITH_AS(parse_grading({"--channel", "3", "--timing-gate", "2"}), doctest::Contains("of its own"), UsageError);
    CHECK_THROWS_WITH_AS(parse_grading({"--channel"}), doctest::Contains("--channel needs a value"), UsageError);
    CHECK_THROWS_AS(parse_grading({"--channel", "x"}), UsageError);
    CHECK_THROWS_AS(parse_grading({"--channel", ""}), UsageError);
    CHECK_THROWS_AS(parse_grading({"--emit-outputs", "/tmp/x"}), UsageError);
    // The grading flags' combinations are checked before the lab's own.
    CHECK_THROWS_WITH_AS(parse_grading({"--bench", "--quick", "--fresh-inputs", "5"}),
                         doctest::Contains("--fresh-inputs needs"), UsageError);
}

// ---- options handed over on a pipe (grading/protocol/run_options.h) ----------------------------
namespace {
// A pipe holding `bytes`, its write end closed: the read end.
int pipe_holding(const std::string& bytes) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    REQUIRE(write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    close(fds[1]);
    return fds[0];
}
}  // namespace

TEST_CASE("a run started as `--options-from FD` reads its options from the pipe, which it closes") {
    std::string handed;
    for (const char* w : {"--variant", "host", "--seed", "77", "--channel", "3"}) handed += std::string(w) + '\0';
    const int fd = pipe_holding(handed);
    const std::vector<std::string> args = arguments_to_read({"--options-from", std::to_string(fd)});
    CHECK(args == std::vector<std::string>{"--variant", "host", "--seed", "77", "--channel", "3"});
    CHECK(fcntl(fd, F_GETFD) == -1);  // closed: nothing of the seed stays open to the program
    // Any other command line is read as it is, and a lab reads the words handed over as its own.
    CHECK(arguments_to_read({"--variant", "host"}) == std::vector<std::string>{"--variant", "host"});
    CHECK(arguments_to_read({"--options-from"}) == std::vector<std::string>{"--options-from"});
    GradingOptionHooks hooks;
    std::vector<const char*> words = {"lab"};
    for (const std::string& a : args) words.push_back(a.c_str());
    const Options opt = parse_args(static_cast<int>(words.size()), words.data());
    CHECK(opt.seed == 77);
    CHECK(hooks.options.channel_fd == 3);
}

TEST_CASE("handed-over options that cannot be read are a usage error") {
    CHECK_THROWS_AS(split_handed_options(std::string("--seed\0" "12", 9)), UsageError);  // cut mid-word
    CHECK(split_handed_options("").empty());
    CHECK(split_handed_options(std::string("\0", 1)) == std::vector<std::string>{""});
    CHECK_THROWS_AS(arguments_to_read({"--options-from", "1"}), UsageError);  // the terminal's
    CHECK_THROWS_AS(arguments_to_read({"--options-from", "x"}), UsageError);
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    close(fds[0]);  // a descriptor that cannot be read
    CHECK_THROWS_AS(arguments_to_read({"--options-from", std::to_string(fds[0])}), UsageError);
    close(fds[1]);
}

TEST_CASE("a kept verifier's requests: words each ended by a NUL and one more NUL; replies EXIT n") {
    namespace vr = verifier_requests;
    const std::vector<std::string> words = {"--variant", "simple", "--size", "7x13", "--verify-outputs", "/out dir"};
    const std::string bytes = vr::encode_request(words);
    CHECK(bytes.size() == 56);  // 50 letters, a NUL after each of the 6 words, one more
    CHECK(vr::request_end(bytes) == bytes.size());
    CHECK(vr::request_end(bytes.substr(0, bytes.size() - 1)) == 0);  // not whole yet
    CHECK(vr::request_end(bytes + "--x") == bytes.size());          // the next one's start is not this one's
    CHECK(split_handed_options(bytes.substr(0, bytes.size() - 1)) == words);  // what the verifier reads
    CHECK_THROWS_AS(vr::encode_request({}), std::invalid_argument);
    CHECK_THROWS_AS(vr::encode_request({"--size", ""}), std::invalid_argument);
    CHECK_THROWS_AS(vr::encode_request({std::string("a\0b", 3)}), std::invalid_argument);
    CHECK(vr::request_end(std::string(1, '\0')) == 1);

    CHECK(vr::encode_reply(77) == "EXIT 77\n");
    for (int code : {0, 1, 2, 77, 255}) CHECK(vr::decode_reply(vr::encode_reply(code)) == code);
    for (const char* bad : {"EXIT \n", "EXIT 0", "EXIT 256\n", "EXIT -1\n", "exit 0\n", "EXIT 1x\n", "EXIT 99999999999\n"})
        CHECK_FALSE(vr::decode_reply(bad).has_value());
}

TEST_CASE("a kept verifier reads requests one after another, replies to each, and ends with the grader's end") {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    const std::vector<std::string> first = {"--verify-outputs", "a"}, second = {"--verify-outputs", "b", "--seed", "9"};
    // Both at once, the second split across writes: each is handed out whole, in order.
    const std::string both = verifier_requests::encode_request(first) + verifier_requests::encode_request(second);
    REQUIRE(write(sv[0], both.data(), 10) == 10);
    REQUIRE(write(sv[0], both.data() + 10, both.size() - 10) == static_cast<ssize_t>(both.size() - 10));
    VerificationRequests requests(sv[1]);
    std::vector<std::string> got;
    REQUIRE(requests.next(got));
    CHECK(got == first);
    CHECK(requests.reply(0));
    REQUIRE(requests.next(got));
    CHECK(got == second);
    CHECK(requests.reply(1));
    char reply[32] = {};
    CHECK(read(sv[0], reply, sizeof reply) == 14);
    CHECK(std::string(reply) == "EXIT 0\nEXIT 1\n");
    shutdown(sv[0], SHUT_WR);  // the grader is done
    CHECK_FALSE(requests.next(got));
    close(sv[0]);
    CHECK_FALSE(requests.reply(0));  // the grader is gone: no SIGPIPE, just false
    close(sv[1]);
}

TEST_CASE("a kept verifier's request cut short, or of no word, is a usage error") {
    for (const std::string& bytes : {std::string("--seed\0", 7), std::string(1, '\0')}) {
        int sv[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        REQUIRE(write(sv[0], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        close(sv[0]);
        VerificationRequests requests(sv[1]);
        std::vector<std::string> got;
        CHECK_THROWS_AS(requests.next(got), UsageError);
        close(sv[1]);
    }
}
