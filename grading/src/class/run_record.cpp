#include "class/run_record.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "args.h"
#include "intake/rubric.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

std::string submissions_folder(const std::string& out) { return out + "/.resume/submissions"; }

}  // namespace

// A result as its record holds it: every field the class files are made from.
void to_json(json& j, Visibility v) { j = visibility_name(v); }
void from_json(const json& j, Visibility& v) {
    for (Visibility each : {Visibility::Visible, Visibility::Hidden, Visibility::AfterDueDate, Visibility::AfterPublished})
        if (j.get<std::string>() == visibility_name(each)) v = each;
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RooflineFigures, variant, size, device, roofline_bytes, roofline_flops, copy_gbs, student_ms, reference_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TestResult, id, name, score, max_score, visibility, output, not_run, slowdown, roofline)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StudentResult, student, submitted_as, file, sha256, compiled, rejected, grader_error, compiler_output, notes,
                                   tests, execution_time_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SubmissionRecord, result, audit_line, ran, worker)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunRecord, command, seed, rubric_sha256, tree, run_line, audit_prefix, class_ids, finished)

std::string run_record_path(const std::string& out) { return out + "/.resume/run.json"; }

bool has_run_record(const std::string& out) { return exists(run_record_path(out)); }

RunRecord load_run_record(const std::string& out) {
    const std::string path = run_record_path(out);
    try {
        return json::parse(read_file(path)).get<RunRecord>();
    } catch (const json::exception&) {
        throw cudalabs::UsageError(path + " is not a grading run's record: grade the class anew into another --out");
    }
}

void save_run_record(const std::string& out, const RunRecord& r) {
    make_dirs(submissions_folder(out));
    write_file_atomic(run_record_path(out), json_text(json(r), 1) + "\n");
}

json run_command_json(const Config& c) {
    json inputs = json::array();
    for (const std::string& in : c.inputs) inputs.push_back(lossless_json(absolute(in)));
    auto path = [](const std::string& p) { return lossless_json(p.empty() ? p : absolute(p)); };
    return {{"lab", c.lab}, {"rubric", path(c.rubric_path)}, {"inputs", inputs}, {"compile_only", c.compile_only},
            {"combine_correctness", c.combine_correctness}, {"no_trace", c.no_trace}, {"isolation", c.isolation},
            {"shard", c.shard.active() ? c.shard.text() : ""},
            {"gpus", c.gpus.given ? c.gpus.text : ""}, {"roster", path(c.roster)}, {"lms_assignment", lossless_json(c.lms_assignment)},
            {"lms_points", c.lms_points}, {"regrade", path(c.regrade)}, {"gradescope", path(c.gradescope)}};
}

void apply_run_command(const json& command, Config& c) {
    c.lab = command.at("lab").get<std::string>();
    c.rubric_path = lossless_bytes(command.at("rubric"));
    c.inputs.clear();
    for (const json& in : command.at("inputs")) c.inputs.push_back(lossless_bytes(in));
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
    c.roster = lossless_bytes(command.at("roster"));
    c.lms_assignment = lossless_bytes(command.at("lms_assignment"));
    c.lms_points = command.at("lms_points").get<double>();
    c.regrade = lossless_bytes(command.at("regrade"));
    c.gradescope = lossless_bytes(command.at("gradescope"));
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

json result_record_json(const StudentResult& r) { return r; }

StudentResult result_from_record(const json& j) { return j.get<StudentResult>(); }

void save_submission_record(const std::string& out, const std::string& id, const SubmissionRecord& s) {
    const std::string path = submissions_folder(out) + "/" + id + ".json";
    if (exists(path)) throw std::logic_error(id + " is recorded already: a submission is never graded twice");
    write_file_atomic(path, json_text(json(s)) + "\n");
}

std::map<std::string, SubmissionRecord> load_submission_records(const std::string& out, std::vector<std::string>* damaged) {
    std::map<std::string, SubmissionRecord> records;
    const std::string folder = submissions_folder(out);
    for (const std::string& f : list_dir(folder)) {
        if (f.size() < 6 || f.substr(f.size() - 5) != ".json") continue;  // a temporary file a kill left
        const std::string id = f.substr(0, f.size() - 5);
        try {
            records[id] = json::parse(read_file(folder + "/" + f)).get<SubmissionRecord>();
        } catch (const json::exception&) {
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
