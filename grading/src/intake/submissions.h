// Taking in a class's submissions: files named after students, or one folder per student holding
// the lab's file. Every file is read once, here, through descriptors that follow no link, and
// only a regular file is read at all: a link (to a file or a folder), a FIFO, a device or a socket
// is that student's refusal, and no byte of what it names is read. Nothing in one student's
// folder changes how another is read. Host-only: unit-tested with g++ on temporary folders.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace grading {

// The largest student file the grader reads.
constexpr size_t kMaxSubmissionBytes = 1 << 20;

struct SubmissionSource {
    std::string id;            // the grader's id: unique, safe as a file name (submission_id of the name)
    std::string name;          // the name the id comes from: the folder's, or the file's without .cu (valid UTF-8)
    std::string submitted_as;  // the entry as found: its name in its class folder, or the path given (valid UTF-8)
    std::string path;          // where it was found (absolute): the file, else the folder or the entry
    std::string folder;        // the student's folder (absolute), "" for a file in a class folder
    std::string file;          // the file's name as submitted (valid UTF-8), "(none)" when there is none
    std::string source;        // the file's bytes, read once
    std::string rejected;      // non-empty: not gradable, and why (a sentence for the student)
    std::string unreadable;    // non-empty: the grader could not read it (the environment's doing: a grader error)
    // Gradescope's submission_metadata.json in the student's folder, read the same way ("": none),
    // and why one there was not read.
    std::string metadata, metadata_problem;
    // The answers file handed in beside the code (intake/questions.h), read the same way, and why
    // there is none to read (a sentence for the student; the questions then give 0, nothing else).
    std::string answers, answers_problem = "no answers.txt: a single file was handed in, not a folder with answers.txt beside it";
    // Gradescope's export list (submission_metadata.yml) of the class folder it was found in.
    std::shared_ptr<const std::string> class_export;
};

// Before anything is built: each input exists (a link too: it is refused as a submission) and,
// where it is a folder, can be read and is not empty. Throws cudalabs::UsageError naming the
// first that is not, and what to do.
void check_submission_inputs(const std::vector<std::string>& inputs);

// `inputs` are files, student folders, or folders of those. `topic_file` is the lab's file name
// ("vector_add.cu"). A folder that holds `topic_file` is a student's; any other folder is a class
// folder, whose sub-folders are students' and whose .cu files are students' files (its other
// files are not read, but for Gradescope's submission_metadata.yml). Ids follow the order found
// (inputs in order, each folder's entries sorted); a name found twice gets "~2", "~3" after its
// id. Throws cudalabs::UsageError for an input that does not exist.
std::vector<SubmissionSource> take_submissions(const std::vector<std::string>& inputs, const std::string& topic_file);

}  // namespace grading
