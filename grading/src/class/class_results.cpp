#include "class/class_results.h"

#include <algorithm>
#include <stdexcept>

#include "class/leaderboard.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

ClassResults::ClassResults(std::string out, const Rubric& rubric, std::string title, std::vector<std::string> ids)
    : out_(std::move(out)), title_(std::move(title)), rubric_(rubric), ids_(std::move(ids)),
      done_(ids_.size(), false), results_(ids_.size()), lines_(ids_.size()), rows_(ids_.size()), pictures_(ids_.size()) {}

long long ClassResults::audit_prefix() const {
    const std::string path = out_ + "/audit.jsonl";
    return exists(path) ? static_cast<long long>(complete_lines(read_file(path)).size()) : 0;  // a line a kill cut is no record
}

long long ClassResults::begin(const std::string& run_line) {
    const long long prefix = audit_prefix();
    resume(prefix, run_line, {});
    return prefix;
}

void ClassResults::resume(long long audit_prefix, const std::string& run_line, const std::map<size_t, Restored>& restored) {
    std::lock_guard<std::mutex> lock(mutex_);
    audit_path_ = out_ + "/audit.jsonl";
    const std::string before = read_file(audit_path_);
    if (audit_prefix < 0 || static_cast<size_t>(audit_prefix) > before.size())
        throw std::runtime_error(audit_path_ + " is shorter than when the run began: it cannot be resumed (grade the class anew into another --out)");
    std::string text = before.substr(0, static_cast<size_t>(audit_prefix)) + run_line + "\n";
    block_start_ = static_cast<long long>(text.size());
    for (const auto& [index, r] : restored) {
        record_locked(index, r.result, r.audit_line);
        text += r.audit_line + "\n";
    }
    write_file_atomic(audit_path_, text);
    for (const auto& entry : restored) write_submission_files_locked(entry.first);
    std::string gradebook = gradebook_head_locked();
    for (const auto& entry : restored) {
        rows_[entry.first] = gradebook_row_locked(entry.first);
        gradebook += rows_[entry.first];
        last_row_in_file_ = entry.first;
    }
    write_file_atomic(out_ + "/gradebook.csv", gradebook);
}

void ClassResults::record_locked(size_t index, const StudentResult& result, const std::string& audit_line) {
    if (index >= ids_.size() || done_[index]) throw std::logic_error("submission " + std::to_string(index) + " finished twice or out of range");
    done_[index] = true;
    results_[index] = result;
    lines_[index] = audit_line;
    finish_order_.push_back(index);
}

void ClassResults::write_submission_files_locked(size_t index) {
    const StudentResult& result = results_[index];
    pictures_[index] = draw_roofline_picture(result, title_, out_ + "/feedback", ids_[index], draw_roofline_);
    write_file_atomic(out_ + "/feedback/" + ids_[index] + ".md", with_roofline_markdown(feedback_markdown(result, title_), pictures_[index]));
    write_file_atomic(out_ + "/results/" + ids_[index] + ".json",
                      with_gradescope_roofline(with_gradescope_leaderboard(gradescope_json(result), result, rubric_), pictures_[index]));
}

void ClassResults::use_roofline_drawer(RooflineDrawer draw) {
    std::lock_guard<std::mutex> lock(mutex_);
    draw_roofline_ = std::move(draw);
}

RooflinePicture ClassResults::roofline_picture(size_t index) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return index < pictures_.size() ? pictures_[index] : RooflinePicture{};
}

size_t ClassResults::finish(size_t index, const StudentResult& result, const std::string& audit_line) {
    std::lock_guard<std::mutex> lock(mutex_);
    record_locked(index, result, audit_line);
    append_line_synced(audit_path_, audit_line);
    write_submission_files_locked(index);
    add_gradebook_row_locked(index);
    return finish_order_.size();
}

std::string ClassResults::gradebook_head_locked() const {
    return gradebook_head(rubric_, roster_ ? roster_column_names() : std::vector<std::string>());
}

std::string ClassResults::gradebook_row_locked(size_t index) const {
    return gradebook_row(results_[index], rubric_, roster_ ? roster_cells(*roster_, *match_, ids_[index]) : std::vector<std::string>());
}

void ClassResults::add_gradebook_row_locked(size_t index) {
    rows_[index] = gradebook_row_locked(index);
    const std::string path = out_ + "/gradebook.csv";
    // The first row, or one that lands before the last: the file is written again, from the rows.
    const bool appends = finish_order_.size() > 1 && index > last_row_in_file_;
    if (appends) {
        append_line_synced(path, rows_[index].substr(0, rows_[index].size() - 1));  // the row ends with its line break
    } else {
        std::string text = gradebook_head_locked();
        for (size_t i = 0; i < ids_.size(); ++i)
            if (done_[i]) text += rows_[i];
        write_file_atomic(path, text);
    }
    last_row_in_file_ = std::max(last_row_in_file_, index);
}

void ClassResults::use_roster(const Roster* roster, const RosterMatch* match) {
    std::lock_guard<std::mutex> lock(mutex_);
    roster_ = roster;
    match_ = match;
}

void ClassResults::end() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(done_.begin(), done_.end(), false) != done_.end()) throw std::logic_error("the class has not finished");
    // An empty class (a shard of a class smaller than N) has a gradebook too: its head alone.
    if (finish_order_.empty())
        write_file_atomic(out_ + "/gradebook.csv", gradebook_head_locked());
    if (std::is_sorted(finish_order_.begin(), finish_order_.end())) return;  // written in class order already
    // Rewritten whole into a new file that then replaces the log: a run cut short here still
    // leaves a complete log, in one order or the other.
    const std::string& path = audit_path_;
    const std::string before = read_file(path);
    if (block_start_ < 0 || static_cast<size_t>(block_start_) > before.size())
        throw std::runtime_error(path + " changed while the class was graded");
    std::string text = before.substr(0, static_cast<size_t>(block_start_));
    for (const std::string& line : lines_) text += line + "\n";
    write_file_atomic(path, text);
}

std::vector<StudentResult> ClassResults::results() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<StudentResult> finished;
    for (size_t i = 0; i < ids_.size(); ++i)
        if (done_[i]) finished.push_back(results_[i]);
    return finished;
}

}  // namespace grading
