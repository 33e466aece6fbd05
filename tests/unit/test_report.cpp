#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "common/report.h"

using namespace cudalabs;

namespace {
Report sample_report() {
    Report r;
    r.lab = "01-vector-add";
    r.program = "sol01";
    r.mode = "bench";
    r.date = "2026-11-21T12:00:00Z";
    r.seed = 2026;
    r.ratio_to = "measured copy bandwidth";
    r.device.name = "Test \"GPU\"";
    r.device.compute_capability = "9.0";
    r.device.sms = 132;
    r.device.copy_gbs = 3000;
    Row pass;
    pass.variant = "fast";
    pass.size = "67108864";
    pass.time_ms = 0.25;
    pass.bytes = 750e6;
    pass.ratio = 0.95;
    pass.status = Status::Pass;
    Row fail = pass;
    fail.variant = "simple";
    fail.status = Status::Fail;
    fail.note = "wrong\tvalue\n";
    fail.ratio = -1;
    r.rows = {pass, fail};
    r.targets = {{"fast", "67108864", 0.90, "copy bandwidth"}, {"simple", "1", 0.5, "copy bandwidth"}};
    evaluate_targets(r);
    return r;
}
}  // namespace

TEST_CASE("rates and ratios") {
    Row r;
    r.time_ms = 2;
    r.bytes = 4e9;
    CHECK(r.gbs() == doctest::Approx(2000));
    CHECK(r.rate() == doctest::Approx(2000));
    r.flops = 2e9;
    CHECK(r.gflops() == doctest::Approx(1000));
    CHECK(r.rate() == doctest::Approx(1000));
    r.time_ms = -1;
    CHECK(r.rate() < 0);
}

TEST_CASE("the JSON report parses and holds every row, target and the verdict") {
    Report r = sample_report();
    std::ostringstream out;
    write_json(out, r);
    nlohmann::json j = nlohmann::json::parse(out.str());
    CHECK(j["lab"] == "01-vector-add");
    CHECK(j["device"]["name"] == "Test \"GPU\"");
    CHECK(j["device"]["copy_gbs"] == 3000);
    REQUIRE(j["results"].size() == 2);
    CHECK(j["results"][0]["status"] == "PASS");
    CHECK(j["results"][0]["gbs"].get<double>() == doctest::Approx(3000));
    // The grader's plausibility floor reads what a case moves and computes.
    CHECK(j["results"][0]["bytes"].get<double>() == doctest::Approx(750e6));
    CHECK(j["results"][0]["flops"].is_null());
    CHECK(j["results"][0]["gflops"].is_null());
    CHECK(j["results"][1]["note"] == "wrong\tvalue\n");
    CHECK(j["results"][1]["ratio"].is_null());
    CHECK(j["targets"][0]["met"] == true);
    CHECK(j["targets"][1]["met"].is_null());  // its row failed: not measured
    CHECK(j["verdict"] == "FAIL");
}

TEST_CASE("the roofline's counts are new keys of the JSON, and change no rate, ratio or column") {
    Report r = sample_report();
    std::ostringstream before_json, before_table;
    write_json(before_json, r);
    print_table(before_table, r);
    r.rows[0].roofline_bytes = 750e6;
    r.rows[0].roofline_flops = 2.5e8;
    CHECK(r.rows[0].rate() == doctest::Approx(3000));  // still the GB/s the ratio compares
    std::ostringstream after_json, after_table;
    write_json(after_json, r);
    print_table(after_table, r);
    CHECK(after_table.str() == before_table.str());
    nlohmann::json was = nlohmann::json::parse(before_json.str()), now = nlohmann::json::parse(after_json.str());
    CHECK(now["results"][0]["roofline_bytes"].get<double>() == doctest::Approx(750e6));
    CHECK(now["results"][0]["roofline_flops"].get<double>() == doctest::Approx(2.5e8));
    CHECK(was["results"][0]["roofline_flops"].is_null());  // not counted
    for (const char* key : {"bytes", "flops", "gbs", "gflops", "ratio", "time_ms", "status"})
        CHECK_MESSAGE(now["results"][0][key] == was["results"][0][key], key);
}

TEST_CASE("json_escape escapes quotes, backslashes and control characters") {
    CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
    CHECK(json_escape(std::string("x\x01y")) == "x\\u0001y");
}

TEST_CASE("the table is aligned and the verdict counts rows") {
    Report r = sample_report();
    std::ostringstream out;
    print_table(out, r);
    std::istringstream lines(out.str());
    std::string header, rule, row1, row2;
    std::getline(lines, header);
    std::getline(lines, rule);
    std::getline(lines, row1);
    std::getline(lines, row2);
    CHECK(header.find("GB/s") != std::string::npos);
    CHECK(row1.find("PASS") == header.find("check"));
    CHECK(row2.find("FAIL") == header.find("check"));
    CHECK(row1.find("3000.0") != std::string::npos);
    CHECK(verdict_line(r) == "Verdict: FAIL (1 passed, 1 failed)");
    r.rows.pop_back();
    CHECK(verdict_line(r) == "Verdict: PASS (1 passed, 0 failed)");
    r.rows.clear();
    CHECK(verdict_line(r).find("NOTHING CHECKED") != std::string::npos);
    CHECK_FALSE(r.passed());
}

TEST_CASE("targets are met, missed or not measured") {
    Report r = sample_report();
    CHECK(r.targets[0].measured);
    CHECK(r.targets[0].met);
    r.targets[0].min_ratio = 1.01;  // 3000 GB/s over a 3000 GB/s copy is 1.00
    evaluate_targets(r);
    CHECK_FALSE(r.targets[0].met);
    std::ostringstream out;
    print_targets(out, r);
    CHECK(out.str().find("MISSED") != std::string::npos);
    CHECK(out.str().find("not measured") != std::string::npos);
    std::ostringstream md;
    write_markdown(md, r);
    CHECK(md.str().find("| fast | 67108864 |") != std::string::npos);
}

TEST_CASE("copy-bandwidth targets use GB/s over the measured copy, whatever the ratio column") {
    Report r = sample_report();  // fast: 3000 GB/s, copy 3000 GB/s, ratio column 0.95
    r.targets = {{"fast", "67108864", 0.9, kCopyYardstick}};
    evaluate_targets(r);
    CHECK(r.targets[0].ratio == doctest::Approx(1.0));
    CHECK(copy_ratio(r.rows[0], r.device) == doctest::Approx(1.0));
    r.device.copy_gbs = 6000;
    evaluate_targets(r);
    CHECK(r.targets[0].ratio == doctest::Approx(0.5));
    CHECK_FALSE(r.targets[0].met);
    r.device.copy_gbs = 0;
    CHECK(copy_ratio(r.rows[0], r.device) < 0);
}

TEST_CASE("a target against another variant is rate over its rate at the same size; a failed one is not measured") {
    Report r = sample_report();
    Row slow = r.rows[0];
    slow.variant = "simple_ok";
    slow.time_ms = 0.5;  // half the rate of fast
    r.rows.push_back(slow);
    Row ref = r.rows[0];
    ref.variant = "cublas";
    ref.time_ms = 0.2;
    ref.status = Status::Reference;
    r.rows.push_back(ref);
    r.targets = {{"fast", "67108864", 1.5, "simple_ok"}, {"fast", "67108864", 0.9, "cublas"},
                 {"fast", "67108864", 1.0, "simple"}, {"fast", "1", 1.0, "simple_ok"}};
    evaluate_targets(r);
    CHECK(r.targets[0].measured);
    CHECK(r.targets[0].ratio == doctest::Approx(2.0));
    CHECK(r.targets[0].met);
    CHECK(r.targets[1].ratio == doctest::Approx(0.8));
    CHECK_FALSE(r.targets[1].met);
    CHECK_FALSE(r.targets[2].measured);  // simple failed
    CHECK_FALSE(r.targets[3].measured);  // no such size
}

TEST_CASE("contrasts show the gain at every size where both variants passed, in the table's order") {
    Report r = sample_report();
    Row slow = r.rows[0];
    slow.variant = "conflict";
    slow.time_ms = 1.0;
    r.rows.push_back(slow);
    Row fast_small = r.rows[0];
    fast_small.size = "1000";  // no partner at this size
    r.rows.push_back(fast_small);
    r.contrasts = {{"fast", "conflict", "padding"}, {"fast", "simple", "vectorising"}};
    evaluate_contrasts(r);
    REQUIRE(r.contrast_results.size() == 1);
    CHECK(r.contrast_results[0].gain == doctest::Approx(4.0));
    CHECK(r.contrast_results[0].size == "67108864");
    std::ostringstream text, json, md;
    print_contrasts(text, r);
    CHECK(text.str().find("padding: fast over conflict") != std::string::npos);
    CHECK(text.str().find("4.00x") != std::string::npos);
    write_json(json, r);
    CHECK(json.str().find("\"gain\": 4") != std::string::npos);
    write_markdown(md, r);
    CHECK(md.str().find("| padding (fast over conflict) | 67108864 | 4.00x |") != std::string::npos);
}

TEST_CASE("a yardstick (a REF row) can have a target against another variant") {
    Report r = sample_report();  // fast: 3000 GB/s
    Row pinned = r.rows[0];
    pinned.variant = "pinned";
    pinned.time_ms = 0.2;  // 3750 GB/s
    pinned.status = Status::Reference;
    r.rows.push_back(pinned);
    r.targets = {{"pinned", "67108864", 1.0, "fast"}, {"pinned", "67108864", 0.5, kCopyYardstick}};
    evaluate_targets(r);
    REQUIRE(r.targets[0].measured);
    CHECK(r.targets[0].ratio == doctest::Approx(1.25));
    CHECK(r.targets[0].met);
    CHECK(r.targets[1].ratio == doctest::Approx(1.25));
}
