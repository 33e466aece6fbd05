// The class roster (grading/src/class/roster.h): the forms Canvas, Moodle and Gradescope export and a
// plain one; its refusals (file and line); matching submissions by the name forms, by Gradescope's
// submission_metadata.json, duplicates and what is unmatched on either side; the gradebook's
// roster columns and the LMS import files.
#include <doctest/doctest.h>
#include <unistd.h>

#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grading/src/class/results.h"
#include "grading/src/class/roster.h"
#include "grading/src/class/shard.h"
#include "grading/src/intake/submissions.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;

namespace {

std::string error_of(const std::string& text) {
    return error_from<RosterError>([&] { parse_roster(text, "roster.csv"); });
}

// The roster `text` of the file `path`, read as the export `form` with `students` rows of students.
Roster parsed_export(const std::string& text, const std::string& path, const std::string& form, size_t students) {
    const Roster r = parse_roster(text, path);
    CHECK(r.form == form);
    REQUIRE(r.entries.size() == students);
    return r;
}

SubmissionName named(const std::string& id, const std::string& name = "") { return {id, name.empty() ? id : name, false, {}}; }

const char* kPlain =
    "id,name,email,section,pseudonym\n"
    "s001,\"Doe, Jane\",jdoe@uni.edu,A,\n"
    "s002,Alice Martin,alice@uni.edu,A,Warp Speed\n"
    "s003,Bob Stone,bstone@uni.edu,B,\n"
    "s004,Carol King,ck@uni.edu,B,\n";

}  // namespace

TEST_CASE("roster: a plain id,name,email,section table") {
    const Roster r = parsed_export(kPlain, "roster.csv", "plain", 4);
    CHECK(r.entries[0].id == "s001");
    CHECK(r.entries[0].name == "Doe, Jane");
    CHECK(r.entries[0].email == "jdoe@uni.edu");
    CHECK(r.entries[0].section == "A");
    CHECK(r.entries[0].line == 2);
    CHECK(r.entries[1].pseudonym == "Warp Speed");
    CHECK(r.entries[3].line == 5);
}

TEST_CASE("roster: Canvas's gradebook export, with its byte-order mark, Points Possible row and Test Student") {
    const std::string text =
        "\xEF\xBB\xBF" "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (5521)\r\n"
        "    Points Possible,,,,,10\r\n"
        "\"Doe, Jane\",4321,S-17,jdoe@uni.edu,CS 480 A,\r\n"
        "\"Martin, Alice\",4322,,amartin,CS 480 B,\r\n"
        "\"Student, Test\",9999,,,CS 480 A,\r\n";
    const Roster r = parsed_export(text, "canvas.csv", "canvas", 2);
    CHECK(r.entries[0].id == "S-17");  // the SIS User ID where there is one
    CHECK(r.entries[0].canvas_id == "4321");
    CHECK(r.entries[0].sis_id == "S-17");
    CHECK(r.entries[0].login == "jdoe@uni.edu");
    CHECK(r.entries[0].email == "jdoe@uni.edu");
    CHECK(r.entries[0].section == "CS 480 A");
    CHECK(r.entries[0].line == 3);
    CHECK(r.entries[1].id == "4322");  // else Canvas's own id
    CHECK(r.entries[1].email.empty());
}

TEST_CASE("roster: a lone CR ends a row as LF and CR LF do") {
    const Roster r = parsed_export("id,name\rs1,Ann\r\ns2,Bo\ns3,Cy\r", "roster.csv", "plain", 3);
    CHECK(r.entries[0].name == "Ann");
    CHECK(r.entries[1].id == "s2");
    CHECK(r.entries[2].name == "Cy");
    CHECK(r.entries[2].line == 4);
}

TEST_CASE("roster: Moodle's export (semicolons, First name and Surname, ID number, Email address, Groups)") {
    const std::string text =
        "First name;Surname;ID number;Institution;Department;Email address;Groups\n"
        "Jane;Doe;20231;Uni;CS;jdoe@uni.edu;Group 1\n"
        "Alice;Martin;;Uni;CS;alice@uni.edu;Group 2\n";
    const Roster r = parsed_export(text, "moodle.csv", "moodle", 2);
    CHECK(r.entries[0].name == "Jane Doe");
    CHECK(r.entries[0].id == "20231");
    CHECK(r.entries[0].section == "Group 1");
    CHECK(r.entries[1].id == "alice@uni.edu");  // no ID number: the email identifies her
}

TEST_CASE("roster: Gradescope's roster export keeps the students only") {
    const std::string text =
        "First Name,Last Name,SID,Email,Role,Sections\n"
        "Jane,Doe,S-17,jdoe@uni.edu,Student,Lab A\n"
        "Terry,Assist,,ta@uni.edu,TA,\n";
    const Roster r = parsed_export(text, "gs.csv", "gradescope", 1);
    CHECK(r.entries[0].id == "S-17");
    CHECK(r.entries[0].section == "Lab A");
}

TEST_CASE("roster: refusals name the file and the line") {
    CHECK(error_of("id,name\ns1,A\ns2,B\nS1,C\n").find("roster.csv:4: the id 'S1' is already on line 2") == 0);
    CHECK(error_of("name,section\nJane,A\n").find("roster.csv:1: the header names no column of student ids") == 0);
    CHECK(error_of("id,name\ns1,\"Jane\ns2,B\n").find("roster.csv:2: a quoted cell is never closed") == 0);
    CHECK(error_of("id,name,email\ns1,A,a@x\n,B,\n").find("roster.csv:3: this student has no id, login or email") == 0);
    CHECK(error_of("id,name,pseudonym\ns1,A,Fast\ns2,B,fast\n").find("roster.csv:3: the pseudonym 'fast' is already on line 2") == 0);
    CHECK(error_of("id,name\ns1,A,extra\n").find("roster.csv:2: this row has 3 cells") == 0);
    CHECK(error_of("").find("roster.csv:1: the roster is empty") == 0);
    CHECK(error_of(kPlain).empty());
    // Columns the grader does not read are named where the key columns are missing.
    CHECK(error_of("Stdent,E-mial,name\nJane,j@x,Jane\n") ==
          "roster.csv:1: the header names no column of student ids, logins or emails, and its columns 'Stdent', "
          "'E-mial' are none the grader reads: the first row must name the columns (id, name, email, section; or a "
          "Canvas, Moodle or Gradescope export's own)");
    CHECK(error_of("name,section\nJane,A\n").find("emails: the first row") != std::string::npos);  // every column read
}

TEST_CASE("roster matching: a roster that matches no submission stops the run") {
    const Roster r = parse_roster(kPlain, "roster.csv");
    const std::string none = error_from<std::runtime_error>([&] {
        require_some_match(r, match_roster(r, {named("x1"), named("x2"), named("x3")}), 3);
    });
    CHECK(none.find("the roster roster.csv matches none of the 3 submissions: ") == 0);
    CHECK(none.find("--allow-unmatched-roster") != std::string::npos);
    CHECK(error_from<std::runtime_error>([&] { require_some_match(r, match_roster(r, {named("x1"), named("s002")}), 2); })
              .empty());
}

TEST_CASE("roster matching: the name forms of folders and files") {
    const std::string text =
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "\"Doe, Jane\",4321,S-17,jdoe@uni.edu,A\n"
        "\"Martin, Alice\",4322,S-18,amartin,A\n"
        "\"Stone, Bob\",4323,S-19,bstone@uni.edu,B\n"
        "\"King, Carol\",4324,S-20,cking@uni.edu,B\n"
        "\"Lee, Dan\",4325,S-21,dlee@uni.edu,B\n"
        "\"Ng, Eve\",4326,S-22,eng@uni.edu,B\n"
        "\"Ruiz, Fay\",4327,S-23,fruiz@uni.edu,C\n"
        "\"Park, Gus\",4328,S-24,gpark@uni.edu,C\n";
    const Roster r = parse_roster(text, "canvas.csv");
    const std::vector<SubmissionName> subs = {
        named("S-17"),                                                   // the SIS id
        named("amartin"),                                                // the login
        named("bstone_uni.edu", "bstone@uni.edu"),                       // the email (the id made safe, the name as submitted)
        named("cking"),                                                  // the email's part before '@'
        named("leedan_late_4325_991_vector_add"),                        // Canvas's download name (late)
        named("Eve_Ng_77_assignsubmission_file_", "Eve Ng_77_assignsubmission_file_"),  // Moodle's download folder
        named("fay-ruiz"),                                               // the name, first then last
        named("parkgus"),                                                // run together, last then first
    };
    const RosterMatch m = match_roster(r, subs);
    CHECK(m.unmatched.empty());
    CHECK(m.without_submission.empty());
    CHECK(m.contested.empty());
    for (size_t i = 0; i < subs.size(); ++i) {
        INFO(subs[i].id);
        REQUIRE(m.students.count(subs[i].id));
        CHECK(m.students.at(subs[i].id) == std::vector<size_t>{i});
    }
}

TEST_CASE("roster matching: unmatched on both sides, duplicates, and what the report says") {
    const std::string text =
        "id,name,email,section\n"
        "s1,Sam Lee,slee1@uni.edu,A\n"
        "s2,Sam Lee,slee2@uni.edu,A\n"
        "s3,Alice Martin,alice@uni.edu,A\n"
        "s4,Bob Stone,bob@uni.edu,B\n";
    const Roster r = parse_roster(text, "roster.csv");
    const RosterMatch m = match_roster(r, {named("sam_lee"), named("alice"), named("s3"), named("mallory")});
    // Two Sam Lees: the name fits both, so it matches neither.
    REQUIRE(m.unmatched.size() == 2);
    CHECK(m.unmatched[0].first == "sam_lee");
    CHECK(m.unmatched[0].second.find("fits several students of the roster (lines 2, 3)") != std::string::npos);
    CHECK(m.unmatched[1].first == "mallory");
    CHECK(m.unmatched[1].second.find("is no id, email, login or name on the roster") != std::string::npos);
    // alice and s3 are both Alice: contested, and out of the LMS files.
    REQUIRE(m.contested.count(2));
    CHECK(m.contested.at(2) == std::vector<std::string>{"alice", "s3"});
    CHECK(m.without_submission == std::vector<size_t>{0, 1, 3});
    const std::string report = roster_report(r, m);
    CHECK(report.find("submissions not matched to the roster") != std::string::npos);
    CHECK(report.find("  mallory: ") != std::string::npos);
    CHECK(report.find("students on the roster without a submission: 3") != std::string::npos);
    CHECK(report.find("line 5: s4, Bob Stone, bob@uni.edu, B") != std::string::npos);
    CHECK(report.find("line 4: s3: alice, s3") != std::string::npos);
    const std::string lms = lms_canvas_csv(r, m, {"Lab 01", 10, 60}, {{"alice", {60, true}}, {"s3", {30, true}}});
    CHECK(lms == "Student,ID,SIS User ID,SIS Login ID,Section,\"Lab 01\"\nPoints Possible,,,,,10\n");
}

TEST_CASE("roster matching: Gradescope's submission_metadata.json, a group, and an unknown user") {
    const std::string meta = R"({"id": 123456, "created_at": "2026-03-01T14:22:32.365935-07:00",
        "assignment": {"title": "Lab 1", "total_points": "60.0"}, "submission_method": "upload",
        "users": [{"email": "ALICE@uni.edu", "id": 1234, "name": "Alice M."},
                  {"email": "other@uni.edu", "id": 1235, "name": "Bob Stone", "sid": "s4"}],
        "previous_submissions": []})";
    const std::vector<GradescopeUser> users = parse_gradescope_metadata(meta, "submission_metadata.json");
    REQUIRE(users.size() == 2);
    CHECK(users[0].email == "ALICE@uni.edu");
    CHECK(users[0].id == "1234");
    CHECK(users[1].sid == "s4");
    const Roster r = parse_roster(kPlain, "roster.csv");
    SubmissionName group{"submission_123456", "submission_123456", true, users};
    SubmissionName stranger{"submission_9", "submission_9", true, {{"Zed Zed", "zed@elsewhere.org", "", "77"}}};
    SubmissionName by_name{"submission_10", "submission_10", true, {{"Carol King", "", "", "78"}}};
    const RosterMatch m = match_roster(r, {group, stranger, by_name});
    // Alice by her email (any case, whatever her name says); Bob's SID and email are not on this
    // roster, his name is.
    REQUIRE(m.students.count("submission_123456"));
    CHECK(m.students.at("submission_123456") == std::vector<size_t>{1, 2});
    REQUIRE(m.unmatched.size() == 1);
    CHECK(m.unmatched[0].first == "submission_9");
    CHECK(m.unmatched[0].second.find("Gradescope's user Zed Zed <zed@elsewhere.org> is not on the roster") != std::string::npos);
    CHECK(m.students.at("submission_10") == std::vector<size_t>{3});
    CHECK_THROWS_AS(parse_gradescope_metadata("{\"id\": 1}", "m.json"), RosterError);
    CHECK_THROWS_AS(parse_gradescope_metadata("not json", "m.json"), RosterError);

    // A group: both students' cells in one gradebook row, and a row each in the LMS files.
    const std::string roster4 = std::string(kPlain);
    const Roster r2 = parse_roster(roster4, "roster.csv");
    SubmissionName pair{"team", "team", true, {{"Alice Martin", "alice@uni.edu", "", "1"}, {"", "", "s003", "2"}}};
    const RosterMatch m2 = match_roster(r2, {pair});
    CHECK(roster_cells(r2, m2, "team") == std::vector<std::string>{"s002; s003", "Alice Martin; Bob Stone", "alice@uni.edu; bstone@uni.edu", "A; B"});
    const std::string moodle = lms_moodle_csv(r2, m2, {"Lab 01", 20, 60}, {{"team", {45, true}}});
    CHECK(moodle ==
          "ID number,Email address,Username,Full name,\"Lab 01\"\n"
          "\"s002\",\"alice@uni.edu\",\"\",\"Alice Martin\",15\n"
          "\"s003\",\"bstone@uni.edu\",\"\",\"Bob Stone\",15\n");
}

TEST_CASE("roster: Gradescope's Export Submissions metadata (submission_metadata.yml)") {
    const std::string yml =
        "---\n"
        "submission_1001:\n"
        "  :submitters:\n"
        "  - :name: Jane Doe\n"
        "    :sid: 'S-17'\n"
        "    :email: jdoe@uni.edu\n"
        "  - :name: \"O'Neil, Sam\"\n"
        "    :sid: '123'\n"
        "    :email: sam@uni.edu\n"
        "  :created_at: 2026-03-01 14:22:32.365935000 -07:00\n"
        "  :score: 10.0\n"
        "submission_1002:\r\n"
        "  :submitters:\r\n"
        "  - :name: Bob Stone\r\n"
        "    :email: bstone@uni.edu\r\n"
        "  :status: processed\r\n";
    auto e = parse_gradescope_export(yml);
    REQUIRE(e.size() == 2);
    REQUIRE(e["submission_1001"].size() == 2);
    CHECK(e["submission_1001"][0].name == "Jane Doe");
    CHECK(e["submission_1001"][0].sid == "S-17");
    CHECK(e["submission_1001"][0].email == "jdoe@uni.edu");
    CHECK(e["submission_1001"][1].name == "O'Neil, Sam");
    CHECK(e["submission_1001"][1].sid == "123");
    REQUIRE(e["submission_1002"].size() == 1);
    CHECK(e["submission_1002"][0].email == "bstone@uni.edu");
    CHECK(e["submission_1002"][0].sid.empty());
    const Roster r = parse_roster(kPlain, "roster.csv");
    const RosterMatch m = match_roster(r, {{"submission_1002", "submission_1002", true, e["submission_1002"]}});
    CHECK(m.students.at("submission_1002") == std::vector<size_t>{2});
}

TEST_CASE("roster: the gradebook's columns, the LMS files' scaling, and roster.json back and forth") {
    const Roster r = parse_roster(kPlain, "roster.csv");
    const RosterMatch m = match_roster(r, {named("jane_doe"), named("alice"), named("=evil()")});
    // The gradebook's rows, each with its submission's roster cells after "student".
    Rubric rubric;
    rubric.tests.push_back(TestSpec());
    rubric.tests[0].id = "correct";
    rubric.tests[0].points = 60;
    auto result = [](const std::string& id, const std::string& sha, double score, bool not_run, const std::string& rejected) {
        StudentResult s;
        s.student = id;
        s.submitted_as = id + ".cu";
        s.sha256 = sha;
        s.rejected = rejected;
        s.tests = {{"correct", "Correctness", score, 60, Visibility::Visible, "", not_run}};
        return s;
    };
    std::string with = gradebook_head(rubric, roster_column_names());
    for (const StudentResult& s : {result("jane_doe", "abc", 20, false, ""), result("alice", "def", 0, true, ""),
                                   result("=evil()", "0a", 0, false, "no vector_add.cu")})
        with += gradebook_row(s, rubric, roster_cells(r, m, s.student));
    std::vector<std::string> rec = csv_records(with);
    REQUIRE(rec.size() == 4);
    CHECK(rec[0] == "student,submitted_as,roster_id,name,email,section,sha256,\"correct\",total,max,note\n");
    CHECK(rec[1] == "\"jane_doe\",\"jane_doe.cu\",\"s001\",\"Doe, Jane\",\"jdoe@uni.edu\",\"A\",abc,20,20,60,\"\"\n");
    CHECK(rec[2] == "\"alice\",\"alice.cu\",\"s002\",\"Alice Martin\",\"alice@uni.edu\",\"A\",def,,,60,\"" + std::string(kCompileOnlyVerdict) + "\"\n");
    CHECK(rec[3] == "\"'=evil()\",\"'=evil().cu\",\"\",\"\",\"\",\"\",0a,0,0,60,\"no vector_add.cu\"\n");

    const LmsAssignment a{"Lab 01: vector add", 10, 60};
    const std::map<std::string, SubmissionGrade> grades = {{"jane_doe", {45, true}}, {"alice", {0, false}}};
    CHECK(lms_canvas_csv(r, m, a, grades) ==
          "Student,ID,SIS User ID,SIS Login ID,Section,\"Lab 01: vector add\"\n"
          "Points Possible,,,,,10\n"
          "\"Doe, Jane\",\"\",\"s001\",\"jdoe@uni.edu\",\"A\",7.5\n"
          "\"Alice Martin\",\"\",\"s002\",\"alice@uni.edu\",\"A\",\n");

    Roster r2;
    RosterMatch m2;
    LmsAssignment a2;
    parse_roster_record(roster_record_json(r, m, a), "roster.json", r2, m2, a2);
    CHECK(roster_record_json(r2, m2, a2) == roster_record_json(r, m, a));
    CHECK(a2.points == 10);
    CHECK(r2.entries[1].pseudonym == "Warp Speed");
    CHECK_THROWS_AS(parse_roster_record("{}", "roster.json", r2, m2, a2), RosterError);
}

TEST_CASE("roster: grades from the audit log's last run; a compile-only run grades only the rejected") {
    const std::string audit =
        R"({"event":"run","compile_only":false})" "\n"
        R"({"event":"submission","student":"a","total":60,"rejected":""})" "\n"
        R"({"event":"run","compile_only":true})" "\n"
        R"({"event":"submission","student":"a","total":0,"rejected":""})" "\n"
        R"({"event":"submission","student":"b","total":0,"rejected":"compile error"})" "\n";
    const auto g = audit_grades(audit, "audit.jsonl");
    REQUIRE(g.size() == 2);
    CHECK_FALSE(g.at("a").graded);
    CHECK(g.at("b").graded);
    CHECK(roster_of_run(R"({"event":"run","roster":"/c/roster.csv"})" "\n") == "/c/roster.csv");
    CHECK(roster_of_run(R"({"event":"run"})" "\n").empty());
}

TEST_CASE("roster: the class's names and metadata as collected: a folder's submission_metadata.json, an export's .yml") {
    TempDir t("grading-roster");
    const std::string& dir = t.path;
    const std::string cls = dir + "/class";
    for (const char* f : {"submission_1/vector_add.cu", "submission_2/vector_add.cu", "jane_doe/vector_add.cu", "bob@uni.edu.cu"}) {
        const std::string path = cls + "/" + f;
        make_dirs(path.substr(0, path.find_last_of('/')));
        write_file(path, "// a submission\n");
    }
    write_file(cls + "/submission_1/submission_metadata.json", R"({"id": 1, "users": [{"name": "Ann", "email": "ann@uni.edu"}]})");
    write_file(cls + "/submission_metadata.yml", "submission_2:\n  :submitters:\n  - :name: Ben\n    :sid: '42'\n");
    const std::vector<SubmissionName> names = submission_names(take_submissions({cls}, "vector_add.cu"));
    REQUIRE(names.size() == 4);
    std::map<std::string, SubmissionName> by_id;
    for (const SubmissionName& n : names) by_id[n.id] = n;
    REQUIRE(by_id.count("bob%40uni.edu"));
    CHECK(by_id["bob%40uni.edu"].name == "bob@uni.edu");  // the name as submitted, not the id made safe
    CHECK_FALSE(by_id["bob%40uni.edu"].has_metadata);
    CHECK_FALSE(by_id["jane_doe"].has_metadata);
    REQUIRE(by_id["submission_1"].users.size() == 1);
    CHECK(by_id["submission_1"].users[0].email == "ann@uni.edu");
    REQUIRE(by_id["submission_2"].users.size() == 1);
    CHECK(by_id["submission_2"].users[0].sid == "42");
    // A submission_metadata.json uploaded into an exported folder does not override the export's.
    write_file(cls + "/submission_2/submission_metadata.json", R"({"id": 2, "users": [{"name": "Someone Else", "sid": "1"}]})");
    const std::vector<SubmissionName> again = submission_names(take_submissions({cls}, "vector_add.cu"));
    for (const SubmissionName& n : again)
        if (n.id == "submission_2") CHECK(n.users.at(0).name == "Ben");
    // One student's metadata that is not Gradescope's is that student's alone: matched by name.
    write_file(cls + "/submission_1/submission_metadata.json", "[1, 2]");
    for (const SubmissionName& n : submission_names(take_submissions({cls}, "vector_add.cu")))
        if (n.id == "submission_1") {
            CHECK_FALSE(n.has_metadata);
            CHECK(n.metadata_problem.find("submission_metadata.json is not Gradescope's submission metadata") != std::string::npos);
        }
    // Nor is a link in its place read: its problem says so.
    unlink((cls + "/submission_1/submission_metadata.json").c_str());
    REQUIRE(symlink((cls + "/submission_2/submission_metadata.json").c_str(), (cls + "/submission_1/submission_metadata.json").c_str()) == 0);
    for (const SubmissionName& n : submission_names(take_submissions({cls}, "vector_add.cu")))
        if (n.id == "submission_1") {
            CHECK_FALSE(n.has_metadata);
            CHECK(n.metadata_problem.find("symbolic link") != std::string::npos);
        }
}

TEST_CASE("roster: a column one or two letters from one the grader looks for is named, with the column meant") {
    const Roster r = parse_roster("id,Naem,Emial,Section,Lab 1: vector add,Notes\ns1,Ann,a@x,A,10,\n", "r.csv");
    REQUIRE(r.entries.size() == 1);
    CHECK(r.entries[0].email.empty());  // read as it is: nothing guessed
    REQUIRE(r.notes.size() == 2);
    CHECK(r.notes[0] == "r.csv:1: the column 'Naem' is none the grader reads: is it 'name'?");
    CHECK(r.notes[1] == "r.csv:1: the column 'Emial' is none the grader reads: is it 'email'?");
    CHECK(parse_roster("id,name,email,section,Lab 1,Notes\ns1,Ann,a@x,A,10,\n", "r.csv").notes.empty());  // an export's other columns
}

TEST_CASE("roster: UTF-8 with or without a byte-order mark, UTF-16 with one, or Windows-1252; a byte none reads is refused by line") {
    const std::string plain = "id,name\ns1,Jos\xc3\xa9\n";
    CHECK(parse_roster(plain, "r.csv").entries.at(0).name == "Jos\xc3\xa9");
    CHECK(parse_roster("\xEF\xBB\xBF" + plain, "r.csv").entries.at(0).name == "Jos\xc3\xa9");
    const Roster cp1252 = parse_roster("id,name\ns1,Jos\xe9\n", "r.csv");
    CHECK(cp1252.encoding == "Windows-1252");
    CHECK(cp1252.entries.at(0).name == "Jos\xc3\xa9");
    std::string utf16 = "\xFF\xFE";
    for (char ch : std::string("id,name\ns1,Ann\n")) utf16 += std::string(1, ch) + '\0';
    CHECK(parse_roster(utf16, "r.csv").entries.at(0).name == "Ann");
    CHECK_THROWS_WITH_AS(parse_roster("id,name\ns1,A\ns2,B\x81\n", "r.csv"), doctest::Contains("r.csv:3: a byte that is neither UTF-8 nor Windows-1252 (byte 0x81)"),
                         RosterError);
    CHECK_THROWS_WITH_AS(parse_roster(std::string("id,name\ns1,A\0B\n", 13), "r.csv"), doctest::Contains("r.csv:2: the roster holds a NUL byte"), RosterError);
}
