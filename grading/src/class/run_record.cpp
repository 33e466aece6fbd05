#include "class/run_record.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "intake/rubric.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

std::string submissions_folder(const std::string& out) { return out + "/.resume/submissions"; }

Visibility visibility_named(const std::string& name) {
    for (Visibility v : {Visibility::Visible, Visibility::Hidden, Visibility::AfterDueDate, Visibility::AfterPublished})
        if (name == visibility_name(v)) return v;
    throw std::runtime_error("unknown visibility '" + name + "'");
}

json test_record_json(const TestResult& t) {
    json j = {{"id", t.id}, {"name", t.name}, {"score", t.score}, {"max_score", t.max_score},
              {"visibility", visibility_name(t.visibility)}, {"output", t.output}, {"not_run", t.not_run}, {"slowdown", t.slowdown}};
    const RooflineFigures& f = t.roofline;
    if (f.measured())  // the feedback's picture is drawn again from them
        j["roofline"] = {{"variant", f.variant}, {"size", f.size}, {"device", f.device}, {"roofline_bytes", f.roofline_bytes},
                         {"roofline_flops", f.roofline_flops}, {"copy_gbs", f.copy_gbs}, {"student_ms", f.student_ms},
                         {"reference_ms", f.reference_ms}};
    return j;
}

TestResult test_from_record(const json& j) {
    TestResult t;
    t.id = j.at("id").get<std::string>();
    t.name = j.at("name").get<std::string>();
    t.score = j.at("score").get<double>();
    t.max_score = j.at("max_score").get<double>();
    t.visibility = visibility_named(j.at("visibility").get<std::string>());
    t.output = j.at("output").get<std::string>();
    t.not_run = j.at("not_run").get<bool>();
    t.slowdown = j.at("slowdown").get<double>();
    if (j.contains("roofline")) {
        const json& f = j["roofline"];
        t.roofline = {f.at("variant").get<std::string>(), f.at("size").get<std::string>(), f.at("device").get<std::string>(),
                      f.at("roofline_bytes").get<double>(), f.at("roofline_flops").get<double>(), f.at("copy_gbs").get<double>(),
                      f.at("student_ms").get<double>(), f.at("reference_ms").get<double>()};
    }
    return t;
}

}  // namespace

std::string run_record_path(const std::string& out) { return out + "/.resume/run.json"; }

bool has_run_record(const std::string& out) { return exists(run_record_path(out)); }

RunRecord load_run_record(const std::string& out) {
    const std::string path = run_record_path(out);
    const json j = json::parse(read_file(path), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("command") || !j.contains("seed"))
        throw std::runtime_error(path + " is not a grading run's record: grade the class anew into another --out");
    RunRecord r;
    r.command = j["command"];
    // A record from before an option was recorded holds what that grader did: the default.
    if (r.command.is_object() && !r.command.contains("combine_correctness")) r.command["combine_correctness"] = true;
    r.seed = j["seed"].get<unsigned long long>();
    r.rubric_sha256 = j.value("rubric_sha256", "");
    r.tree = j.value("tree", "");
    r.run_line = j.value("run_line", "");
    r.audit_prefix = j.value("audit_prefix", -1LL);
    r.class_ids = j.value("class_ids", std::vector<std::string>());
    r.finished = j.value("finished", false);
    return r;
}

void save_run_record(const std::string& out, const RunRecord& r) {
    make_dirs(submissions_folder(out));
    const json j = {{"command", r.command}, {"seed", r.seed}, {"rubric_sha256", r.rubric_sha256}, {"tree", r.tree},
                    {"run_line", r.run_line}, {"audit_prefix", r.audit_prefix}, {"class_ids", r.class_ids}, {"finished", r.finished}};
    write_file_atomic(run_record_path(out), json_text(j, 1) + "\n");
}

json run_command_json(const Config& c) {
    std::vector<std::string> inputs;
    for (const std::string& in : c.inputs) inputs.push_back(absolute(in));
    auto path = [](const std::string& p) { return p.empty() ? p : absolute(p); };
    return {{"lab", c.lab}, {"rubric", path(c.rubric_path)}, {"inputs", inputs}, {"compile_only", c.compile_only},
            {"combine_correctness", c.combine_correctness}, {"no_trace", c.no_trace}, {"isolation", c.isolation},
            {"shard", c.shard.active() ? c.shard.text() : ""},
            {"gpus", c.gpus.given ? c.gpus.text : ""}, {"roster", path(c.roster)}, {"lms_assignment", c.lms_assignment},
            {"lms_points", c.lms_points}, {"regrade", path(c.regrade)}, {"gradescope", path(c.gradescope)}};
}

void apply_run_command(const json& command, Config& c) {
    c.lab = command.at("lab").get<std::string>();
    c.rubric_path = command.at("rubric").get<std::string>();
    c.inputs = command.at("inputs").get<std::vector<std::string>>();
    c.compile_only = command.at("compile_only").get<bool>();
    c.combine_correctness = command.at("combine_correctness").get<bool>();
    c.no_trace = command.at("no_trace").get<bool>();
    c.isolation = command.at("isolation").get<std::string>();
    const std::string shard = command.at("shard").get<std::string>(), gpus = command.at("gpus").get<std::string>();
    if (!shard.empty()) c.shard = parse_shard(shard);
    if (!gpus.empty()) {
        const char* shared = std::getenv(kSharedGpusVariable);
        c.gpus = parse_gpu_list(gpus, shared && std::string(shared) == "1");
    }
    c.roster = command.at("roster").get<std::string>();
    c.lms_assignment = command.at("lms_assignment").get<std::string>();
    c.lms_points = command.at("lms_points").get<double>();
    c.regrade = command.at("regrade").get<std::string>();
    c.gradescope = command.at("gradescope").get<std::string>();
}

std::string resume_refusal(const RunRecord& recorded, const json& command, const std::string& rubric_sha256,
                           unsigned long long seed_given, const std::string& out) {
    std::vector<std::string> differ;
    for (auto it = command.begin(); it != command.end(); ++it)
        if (!recorded.command.contains(it.key()) || recorded.command[it.key()] != it.value()) differ.push_back(it.key());
    for (auto it = recorded.command.begin(); it != recorded.command.end(); ++it)
        if (!command.contains(it.key())) differ.push_back(it.key());
    if (recorded.rubric_sha256 != rubric_sha256) differ.push_back("rubric's text");
    if (seed_given && seed_given != recorded.seed) differ.push_back("seed (" + std::to_string(recorded.seed) + " there)");
    if (differ.empty()) return "";
    return out + " holds the unfinished results of another run (its " + join(differ, ", ") +
           " differ from this one's): finish that run with grading/grade --resume " + out + ", or give this one another --out";
}

json result_record_json(const StudentResult& r) {
    json tests = json::array();
    for (const TestResult& t : r.tests) tests.push_back(test_record_json(t));
    return {{"student", r.student}, {"submitted_as", r.submitted_as}, {"file", r.file}, {"sha256", r.sha256}, {"compiled", r.compiled}, {"rejected", r.rejected},
            {"grader_error", r.grader_error}, {"compiler_output", r.compiler_output}, {"notes", r.notes}, {"tests", tests},
            {"execution_time_s", r.execution_time_s}};
}

StudentResult result_from_record(const json& j) {
    StudentResult r;
    r.student = j.at("student").get<std::string>();
    r.submitted_as = j.value("submitted_as", r.student);  // (a record from before the column: its id)
    r.file = j.at("file").get<std::string>();
    r.sha256 = j.at("sha256").get<std::string>();
    r.compiled = j.at("compiled").get<bool>();
    r.rejected = j.at("rejected").get<std::string>();
    r.grader_error = j.at("grader_error").get<std::string>();
    r.compiler_output = j.at("compiler_output").get<std::string>();
    r.notes = j.at("notes").get<std::vector<std::string>>();
    for (const json& t : j.at("tests")) r.tests.push_back(test_from_record(t));
    r.execution_time_s = j.at("execution_time_s").get<double>();
    return r;
}

void save_submission_record(const std::string& out, const std::string& id, const SubmissionRecord& s) {
    const std::string path = submissions_folder(out) + "/" + id + ".json";
    if (exists(path)) throw std::logic_error(id + " is recorded already: a submission is never graded twice");
    const json j = {{"result", result_record_json(s.result)}, {"audit_line", s.audit_line}, {"ran", s.ran}, {"worker", s.worker}};
    write_file_atomic(path, json_text(j) + "\n");
}

std::map<std::string, SubmissionRecord> load_submission_records(const std::string& out, std::vector<std::string>* damaged) {
    std::map<std::string, SubmissionRecord> records;
    const std::string folder = submissions_folder(out);
    for (const std::string& f : list_dir(folder)) {
        if (f.size() < 6 || f.substr(f.size() - 5) != ".json") continue;  // a temporary file a kill left
        const std::string id = f.substr(0, f.size() - 5);
        const json j = json::parse(read_file(folder + "/" + f), nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            if (damaged) damaged->push_back(id);
            continue;
        }
        try {
            SubmissionRecord s;
            s.result = result_from_record(j.at("result"));
            s.audit_line = j.at("audit_line").get<std::string>();
            s.ran = j.at("ran").get<bool>();
            s.worker = j.at("worker").get<size_t>();
            records[id] = s;
        } catch (const std::exception&) {
            if (damaged) damaged->push_back(id);  // not a whole record: its submission is graded again
        }
    }
    return records;
}

void forget_submission_record(const std::string& out, const std::string& id) {
    unlink((submissions_folder(out) + "/" + id + ".json").c_str());
}

void clear_submission_records(const std::string& out) {
    for (const std::string& f : list_dir(submissions_folder(out))) unlink((submissions_folder(out) + "/" + f).c_str());
}

}  // namespace grading
