#include "class/class_results.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "class/leaderboard.h"
#include "util/util.h"

namespace grading {

ClassResults::ClassResults(std::string out, const Rubric& rubric, std::string title, std::vector<std::string> ids)
    : out_(std::move(out)), title_(std::move(title)), rubric_(rubric), ids_(std::move(ids)),
      done_(ids_.size(), false), results_(ids_.size()), lines_(ids_.size()), rows_(ids_.size()) {}

void ClassResults::begin(const std::string& run_line) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string path = out_ + "/audit.jsonl";
    audit_.open(path, std::ios::app);
    audit_ << run_line << "\n" << std::flush;
    if (!audit_) throw std::runtime_error("cannot write " + path);
    struct stat st;
    block_start_ = stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

size_t ClassResults::finish(size_t index, const StudentResult& result, const std::string& audit_line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (index >= ids_.size() || done_[index]) throw std::logic_error("submission " + std::to_string(index) + " finished twice or out of range");
    done_[index] = true;
    results_[index] = result;
    lines_[index] = audit_line;
    finish_order_.push_back(index);
    audit_ << audit_line << "\n" << std::flush;
    write_file(out_ + "/feedback/" + ids_[index] + ".md", feedback_markdown(result, title_));
    write_file(out_ + "/results/" + ids_[index] + ".json", with_gradescope_leaderboard(gradescope_json(result), result, rubric_));
    add_gradebook_row_locked(index);
    return finish_order_.size();
}

std::string ClassResults::gradebook_head_locked() const {
    return gradebook_head(rubric_, roster_ ? roster_column_names() : std::vector<std::string>());
}

void ClassResults::add_gradebook_row_locked(size_t index) {
    rows_[index] = gradebook_row(results_[index], rubric_, roster_ ? roster_cells(*roster_, *match_, ids_[index]) : std::vector<std::string>());
    const std::string path = out_ + "/gradebook.csv";
    // The first row, or one that lands before the last: the file is written again, from the rows.
    const bool appends = finish_order_.size() > 1 && index > last_row_in_file_;
    std::ofstream csv(path, appends ? std::ios::app : std::ios::trunc);
    if (!appends) {
        csv << gradebook_head_locked();
        for (size_t i = 0; i < ids_.size(); ++i)
            if (done_[i]) csv << rows_[i];
    } else {
        csv << rows_[index];
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
        write_file(out_ + "/gradebook.csv", gradebook_head_locked());
    if (std::is_sorted(finish_order_.begin(), finish_order_.end())) return;  // written in class order already
    // Rewritten whole into a new file that then replaces the log: a run cut short here still
    // leaves a complete log, in one order or the other.
    audit_.close();
    const std::string path = out_ + "/audit.jsonl", fresh = path + ".tmp";
    const std::string before = read_file(path);
    if (block_start_ < 0 || static_cast<size_t>(block_start_) > before.size())
        throw std::runtime_error(path + " changed while the class was graded");
    std::string text = before.substr(0, static_cast<size_t>(block_start_));
    for (const std::string& line : lines_) text += line + "\n";
    write_file(fresh, text);
    if (std::rename(fresh.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace " + path);
}

std::vector<StudentResult> ClassResults::results() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<StudentResult> finished;
    for (size_t i = 0; i < ids_.size(); ++i)
        if (done_[i]) finished.push_back(results_[i]);
    return finished;
}

}  // namespace grading
