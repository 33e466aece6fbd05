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
      done_(ids_.size(), false), results_(ids_.size()), lines_(ids_.size()) {}

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
    write_gradebook_locked();
    return finish_order_.size();
}

void ClassResults::write_gradebook_locked() const {
    std::vector<StudentResult> finished;
    std::vector<std::string> finished_ids;
    for (size_t i = 0; i < ids_.size(); ++i)
        if (done_[i]) {
            finished.push_back(results_[i]);
            finished_ids.push_back(ids_[i]);
        }
    std::ofstream csv(out_ + "/gradebook.csv");
    if (!roster_) return write_gradebook(csv, finished, rubric_);
    std::ostringstream plain;
    write_gradebook(plain, finished, rubric_);
    csv << add_roster_columns(plain.str(), finished_ids, *roster_, *match_);
}

void ClassResults::use_roster(const Roster* roster, const RosterMatch* match) {
    std::lock_guard<std::mutex> lock(mutex_);
    roster_ = roster;
    match_ = match;
}

void ClassResults::end() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(done_.begin(), done_.end(), false) != done_.end()) throw std::logic_error("the class has not finished");
    write_gradebook_locked();
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
