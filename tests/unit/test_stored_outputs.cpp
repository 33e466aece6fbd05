// The verifier's view of the outputs the grader stored (grading/harness/stored_outputs.h): what
// stands in for a checked output, the timed repetitions judged after it, and the case's faults.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "grading/harness/stored_outputs.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace cudalabs;

namespace {
// The grader's folder of what a run sent, made up file by file.
struct Folder : grading_fixtures::TempDir {
    Folder() : TempDir("stored-outputs") {}
    void write(const std::string& name, const std::string& bytes) const { grading::write_file(path + "/" + name, bytes); }
};
}  // namespace

TEST_CASE("stored outputs: the stored output stands in, then the timed repetitions by number") {
    Folder dir;
    dir.write("fast_1000_0.bin", "abcd");
    dir.write("fast_1000_0.rep10.bin", "wxyz");
    dir.write("fast_1000_0.rep2.bin", "ab");  // of the wrong size
    dir.write("fast_1000_1.rep3.bin", "abcd");  // another output
    dir.write("fast_1000_0.repx.bin", "abcd");  // no repetition's name
    const StoredOutputs stored(dir.path);
    std::vector<StoredOutput> judged = stored.judged_instead("fast_1000", 0, 4, true);
    REQUIRE(judged.size() == 3);
    std::vector<unsigned char> bytes;
    CHECK(judged[0].repetition.empty());
    CHECK(judged[0].read(bytes));
    CHECK(std::string(bytes.begin(), bytes.end()) == "abcd");
    CHECK(judged[1].repetition == "timed repetition 2");
    CHECK_FALSE(judged[1].read(bytes));
    CHECK(judged[1].missing == "timed repetition 2 produced no output of the expected size");
    CHECK(judged[2].repetition == "timed repetition 10");
    CHECK(judged[2].read(bytes));

    // Fresh repetitions send samples, judged as they run: only the output itself here.
    CHECK(stored.judged_instead("fast_1000", 0, 4, false).size() == 1);
    // An output that was not stored fails the case, naming where it was looked for.
    judged = stored.judged_instead("fast_1000", 2, 4, true);
    REQUIRE(judged.size() == 1);
    CHECK_FALSE(judged[0].read(bytes));
    CHECK(judged[0].missing == "no output of the expected size in " + dir.path + "/fast_1000_2.bin");
    // ... and where the program's case failed first, its own failure says why.
    dir.write("fast_1000_faults.txt", "CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered)\n");
    judged = stored.judged_instead("fast_1000", 2, 4, true);
    CHECK(judged[0].missing == "no output of the expected size in " + dir.path + "/fast_1000_2.bin: the case failed first: CUDA error "
                               "cudaErrorIllegalAddress (an illegal memory access was encountered)");
}

TEST_CASE("stored outputs: the case's faults, one a line, and the samples' names") {
    Folder dir;
    dir.write("simple_7_faults.txt", "first\n\nsecond\n");
    const StoredOutputs stored(dir.path);
    CHECK(stored.faults("simple_7") == std::vector<std::string>{"first", "second"});
    CHECK(stored.faults("simple_8").empty());
    CHECK(stored.timed_output_path("simple_7", 1, 4) == dir.path + "/simple_7_1.rep4.bin");
}
