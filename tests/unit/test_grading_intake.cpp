// Taking a class in (grading/src/intake/submissions.h): every file read once, through no link,
// only regular files; ids that never collide; names kept as found.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "args.h"
#include "grading/src/intake/submissions.h"
#include "grading/src/util/files.h"
#include "grading/src/util/locks.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using grading_fixtures::TempDir;

namespace {

std::map<std::string, SubmissionSource> by_id(const std::vector<SubmissionSource>& subs) {
    std::map<std::string, SubmissionSource> m;
    for (const SubmissionSource& s : subs) m[s.id] = s;
    return m;
}

void write_at(const std::string& path, const std::string& text) {
    make_dirs(folder_of(path));
    write_file(path, text);
}

}  // namespace

TEST_CASE("intake: files, student folders and class folders, each file read once") {
    TempDir t("grading-intake");
    const std::string cls = t.path + "/class";
    write_at(cls + "/alice.cu", "alice's");
    write_at(cls + "/bob/vector_add.cu", "bob's");
    write_at(cls + "/carol/mine.cu", "carol's");
    write_at(cls + "/dave/a.cu", "x");
    write_at(cls + "/dave/b.cu", "x");
    write_at(cls + "/erin/notes.txt", "x");
    write_at(cls + "/results/audit.jsonl", "{}");  // looks like a grader's output: a student like any other
    write_at(cls + "/notes.txt", "not a submission");
    auto subs = by_id(take_submissions({cls}, "vector_add.cu"));
    CHECK(subs.size() == 6);
    CHECK(subs["alice"].source == "alice's");
    CHECK(subs["alice"].submitted_as == "alice.cu");
    CHECK(subs["alice"].folder.empty());
    CHECK(subs["bob"].file == "vector_add.cu");
    CHECK(subs["bob"].source == "bob's");
    CHECK(subs["bob"].folder == real_path(cls + "/bob"));
    CHECK(subs["carol"].file == "mine.cu");
    CHECK(subs["carol"].rejected.empty());
    CHECK(subs["dave"].rejected.find("several .cu files") != std::string::npos);
    CHECK(subs["erin"].rejected == "no vector_add.cu in the submission");
    CHECK(subs["results"].rejected == "no vector_add.cu in the submission");
    // Read once: what the grader builds is what it took in, whatever the file becomes after.
    write_file(cls + "/bob/vector_add.cu", "changed");
    CHECK(subs["bob"].source == "bob's");
    // A student folder given alone, and a file given alone.
    CHECK(take_submissions({cls + "/bob"}, "vector_add.cu").at(0).id == "bob");
    CHECK(take_submissions({cls + "/bob/vector_add.cu"}, "vector_add.cu").at(0).id == "bob");
    CHECK(take_submissions({cls + "/alice.cu"}, "vector_add.cu").at(0).id == "alice");
    CHECK_THROWS_AS(take_submissions({t.path + "/missing"}, "vector_add.cu"), cudalabs::UsageError);
}

TEST_CASE("intake: ids never collide, and every name is kept as it was found") {
    TempDir t("grading-intake");
    const std::string cls = t.path + "/class";
    write_at(cls + "/a b/vector_add.cu", "1");
    write_at(cls + "/a_b/vector_add.cu", "2");
    write_at(cls + "/e$vil name.cu", "3");
    write_at(cls + "/.hidden.cu", "4");
    write_at(cls + "/caf\xe9/vector_add.cu", "5");  // a Latin-1 folder name: not UTF-8
    write_at(cls + "/alice.cu", "6");
    write_at(cls + "/alice/vector_add.cu", "7");  // a file and a folder of one name
    write_at(cls + "/" + std::string(200, 'x') + "1/vector_add.cu", "8");
    write_at(cls + "/" + std::string(200, 'x') + "2/vector_add.cu", "9");
    const std::vector<SubmissionSource> list = take_submissions({cls}, "vector_add.cu");
    auto subs = by_id(list);
    REQUIRE(subs.size() == list.size());  // no id twice
    CHECK(subs.at("a%20b").source == "1");
    CHECK(subs.at("a%20b").name == "a b");
    CHECK(subs.at("a_b").source == "2");
    CHECK(subs.at("e%24vil%20name").source == "3");
    CHECK(subs.at("%2Ehidden").source == "4");
    CHECK(subs.at("caf%E9").source == "5");
    CHECK(subs.at("caf%E9").name == "caf\\xe9");  // valid UTF-8, the bad byte shown
    CHECK(subs.at("alice").source == "7");  // (the folder "alice" sorts before the file "alice.cu")
    CHECK(subs.at("alice").submitted_as == "alice");
    CHECK(subs.at("alice~2").source == "6");
    CHECK(subs.at("alice~2").submitted_as == "alice.cu");
    size_t long_ids = 0;
    for (const SubmissionSource& s : list) {
        CHECK(s.id.size() <= 100);
        CHECK(is_valid_utf8(s.name));
        long_ids += s.id.size() > 90;
    }
    CHECK(long_ids == 2);
    // The same file given twice: the second gets a suffix no name can have.
    auto twice = take_submissions({cls + "/alice.cu", cls + "/alice.cu"}, "vector_add.cu");
    REQUIRE(twice.size() == 2);
    CHECK(twice[0].id == "alice");
    CHECK(twice[1].id == "alice~2");
    CHECK(submission_id("alice~2") == "alice%7E2");
}

TEST_CASE("intake: a link, a FIFO or a device is refused, and nothing it names is read") {
    TempDir t("grading-intake");
    const std::string cls = t.path + "/class", secret = t.path + "/private/secret.txt";
    write_at(secret, "root's secret");
    write_at(cls + "/bob/vector_add.cu", "bob's work");
    REQUIRE(symlink(secret.c_str(), (cls + "/eve.cu").c_str()) == 0);                         // a file link
    REQUIRE(symlink((t.path + "/private").c_str(), (cls + "/mallory").c_str()) == 0);         // a folder link
    REQUIRE(symlink((cls + "/bob/vector_add.cu").c_str(), (cls + "/trent.cu").c_str()) == 0);  // another's file
    make_dirs(cls + "/peggy");
    REQUIRE(symlink(secret.c_str(), (cls + "/peggy/vector_add.cu").c_str()) == 0);  // the lab's file a link
    REQUIRE(mkfifo((cls + "/victor.cu").c_str(), 0644) == 0);                       // would block a read
    make_dirs(cls + "/walter");
    REQUIRE(mkfifo((cls + "/walter/vector_add.cu").c_str(), 0644) == 0);
    REQUIRE(symlink("/nowhere", (cls + "/dangling.cu").c_str()) == 0);
    write_at(cls + "/big.cu", std::string(kMaxSubmissionBytes + 1, 'x'));
    auto subs = by_id(take_submissions({cls}, "vector_add.cu"));
    CHECK(subs.at("bob").source == "bob's work");
    for (const char* id : {"eve", "mallory", "trent", "peggy", "dangling"}) {
        INFO(id);
        CHECK(subs.at(id).rejected.find("is a symbolic link: the grader follows no link") != std::string::npos);
        CHECK(subs.at(id).source.empty());
    }
    for (const char* id : {"victor", "walter"}) {
        INFO(id);
        CHECK(subs.at(id).rejected.find("is not a regular file (a FIFO)") != std::string::npos);
    }
    CHECK(subs.at("big").rejected == "the file is larger than 1 MiB");
    CHECK(subs.at("big").source.empty());
    // Named on the command line, a link is refused the same way.
    const auto given = take_submissions({cls + "/eve.cu", cls + "/mallory"}, "vector_add.cu");
    REQUIRE(given.size() == 2);
    for (const SubmissionSource& s : given) CHECK(s.rejected.find("symbolic link") != std::string::npos);
    if (geteuid() == 0) {  // a device node (only root makes one)
        REQUIRE(mknod((cls + "/dev.cu").c_str(), S_IFCHR | 0644, makedev(1, 3)) == 0);
        CHECK(by_id(take_submissions({cls}, "vector_add.cu")).at("dev").rejected.find("(a device)") != std::string::npos);
    }
}

TEST_CASE("intake: a file the grader cannot read is the environment's, not the student's") {
    if (geteuid() == 0) return;  // root reads whatever the permissions say
    TempDir t("grading-intake");
    write_at(t.path + "/class/alice.cu", "x");
    chmod((t.path + "/class/alice.cu").c_str(), 0);
    const SubmissionSource s = take_submissions({t.path + "/class"}, "vector_add.cu").at(0);
    CHECK(s.rejected.empty());
    CHECK(s.unreadable.find("cannot read alice.cu") == 0);
}

TEST_CASE("text: bytes from outside made valid UTF-8, and read in the encodings rosters come in") {
    CHECK(valid_utf8("plain") == "plain");
    CHECK(valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(valid_utf8("caf\xe9!") == "caf\\xe9!");
    CHECK(valid_utf8("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
    CHECK(valid_utf8("\xc0\xaf") == "\\xc0\\xaf");           // overlong
    CHECK(valid_utf8("\xe2\x82") == "\\xe2\\x82");           // cut short
    CHECK(is_valid_utf8(valid_utf8(std::string("\x80\xff\xfe\x00z", 5))));
    std::string out;
    size_t bad = 0;
    REQUIRE(windows1252_to_utf8("Jos\xe9 \x80 \x93x\x94", out, bad));
    CHECK(out == "Jos\xc3\xa9 \xe2\x82\xac \xe2\x80\x9cx\xe2\x80\x9d");
    CHECK_FALSE(windows1252_to_utf8("ok\x81", out, bad));
    CHECK(bad == 2);
    REQUIRE(utf16_to_utf8(std::string("h\0\xe9\0", 4), false, out, bad));
    CHECK(out == "h\xc3\xa9");
    REQUIRE(utf16_to_utf8(std::string("\xd8\x3d\xde\x00", 4), true, out, bad));
    CHECK(out == "\xf0\x9f\x98\x80");
    CHECK_FALSE(utf16_to_utf8(std::string("\x00\xd8", 2), false, out, bad));
    CHECK(line_of_offset("a\nb\nc", 4) == 3);
    CHECK(clip("\xc3\xa9\xc3\xa9", 3).compare(0, 2, "\xc3\xa9") == 0);  // never half a character
}

TEST_CASE("intake: one make at a time in a build folder; a second waits until the first lets go") {
    TempDir t("grading-build-lock");
    const std::string build = t.path + "/build";  // made by the lock
    HeldLock first = lock_build_folder(build);
    REQUIRE(first.held());
    std::atomic<bool> second_held{false};
    std::thread second([&] {
        HeldLock lock = lock_build_folder(build);
        second_held = lock.held();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK_FALSE(second_held.load());  // still waiting: the first holds the folder
    first.release();
    second.join();
    CHECK(second_held.load());
}

TEST_CASE("intake: the build folder is $BUILD as the Makefile reads it, else build, against the root") {
    const char* before = std::getenv("BUILD");
    const std::string saved = before ? before : "";
    unsetenv("BUILD");
    CHECK(build_folder_of("/r") == "/r/build");
    setenv("BUILD", "out/b", 1);
    CHECK(build_folder_of("/r") == "/r/out/b");
    setenv("BUILD", "/abs/b", 1);
    CHECK(build_folder_of("/r") == "/abs/b");
    if (before) setenv("BUILD", saved.c_str(), 1);
    else unsetenv("BUILD");
}

TEST_CASE("intake: answers.txt beside the code is read through no link; each odd one is a sentence, never a refusal") {
    TempDir t("grading-intake");
    const std::string cls = t.path + "/class", secret = t.path + "/private/secret.txt";
    write_at(secret, "q1 = B");
    write_at(cls + "/alice.cu", "alice's");
    for (const char* who : {"bob", "carol", "dave", "erin", "frank"}) write_at(cls + "/" + who + "/vector_add.cu", "code");
    write_at(cls + "/bob/answers.txt", "q1 = B\n");
    REQUIRE(symlink(secret.c_str(), (cls + "/dave/answers.txt").c_str()) == 0);
    write_at(cls + "/erin/answers.txt", std::string(kMaxSubmissionBytes + 1, 'x'));
    REQUIRE(mkfifo((cls + "/frank/answers.txt").c_str(), 0644) == 0);
    auto subs = by_id(take_submissions({cls}, "vector_add.cu"));
    CHECK(subs.at("bob").answers == "q1 = B\n");
    CHECK(subs.at("bob").answers_problem.empty());
    CHECK(subs.at("alice").answers_problem.find("a single file was handed in") != std::string::npos);
    CHECK(subs.at("carol").answers_problem == "no answers.txt beside vector_add.cu in the submission");
    CHECK(subs.at("dave").answers_problem.find("answers.txt is a symbolic link") == 0);
    CHECK(subs.at("dave").answers.empty());
    CHECK(subs.at("erin").answers_problem == "answers.txt: the file is larger than 1 MiB");
    CHECK(subs.at("frank").answers_problem.find("answers.txt is not a regular file (a FIFO)") == 0);
    for (const char* who : {"alice", "bob", "carol", "dave", "erin", "frank"}) CHECK(subs.at(who).rejected.empty());
}
