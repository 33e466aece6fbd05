// Finding the submissions of a class: files named after students, or one folder per student
// holding the lab's file. Host-only: unit-tested with g++ on temporary folders.
#pragma once
#include <string>
#include <vector>

namespace grading {

struct SubmissionSource {
    std::string id;        // the student: unique, safe as a file name
    std::string path;      // the file to grade (absolute), or the folder when rejected
    std::string file;      // its name as submitted, "(none)" when there is none
    std::string rejected;  // non-empty: not gradable, and why
    std::string name;      // the folder's or file's name as submitted (the id before it was made safe)
    std::string folder;    // the student's folder (absolute), "" for a file in a class folder
};

// Before anything is built: each input exists and can be read, and a folder is not empty.
// Throws cudalabs::UsageError naming the first that is not, and what to do.
void check_submission_inputs(const std::vector<std::string>& inputs);

// `inputs` are files, student folders, or folders of those. `topic_file` is the lab's file
// name ("vector_add.cu"); `skip_dir` (the grader's own output folder) is never taken for a
// student. Throws cudalabs::UsageError for an input that does not exist.
std::vector<SubmissionSource> collect_submissions(const std::vector<std::string>& inputs,
                                                  const std::string& topic_file,
                                                  const std::string& skip_dir);

}  // namespace grading
