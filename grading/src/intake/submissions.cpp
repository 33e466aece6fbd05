#include "intake/submissions.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "args.h"
#include "util/util.h"

namespace grading {

void check_submission_inputs(const std::vector<std::string>& inputs) {
    for (const std::string& in : inputs) {
        if (!exists(in)) throw cudalabs::UsageError("no such file or folder: " + in + ": give the folder of the submissions");
        if (!is_dir(in)) {
            if (access(in.c_str(), R_OK) != 0)
                throw cudalabs::UsageError("cannot read " + in + " (" + std::strerror(errno) + "): let the grader's user read it");
            continue;
        }
        DIR* d = opendir(in.c_str());
        if (!d)
            throw cudalabs::UsageError("cannot read the folder " + in + " (" + std::strerror(errno) +
                                       "): let the grader's user read and enter it");
        closedir(d);
        if (list_dir(in).empty())
            throw cudalabs::UsageError("the folder " + in + " is empty: put the submissions in it, one file or folder per student");
    }
}

std::vector<SubmissionSource> collect_submissions(const std::vector<std::string>& inputs, const std::string& topic_file,
                                                  const std::string& skip_dir) {
    std::vector<SubmissionSource> subs;
    auto ends_with_cu = [](const std::string& f) { return f.size() > 3 && f.compare(f.size() - 3, 3, ".cu") == 0; };
    auto add_file = [&](const std::string& path, const std::string& id) {
        subs.push_back({safe_id(id), absolute(path), basename_of(path), "", id, ""});
    };
    auto add_folder = [&](const std::string& dir) {
        std::string id = basename_of(absolute(dir));
        std::vector<std::string> cu;
        if (!exists(dir + "/" + topic_file))
            for (const std::string& f : list_dir(dir))
                if (ends_with_cu(f) && !is_dir(dir + "/" + f)) cu.push_back(f);
        if (exists(dir + "/" + topic_file)) add_file(dir + "/" + topic_file, id);
        else if (cu.size() == 1) add_file(dir + "/" + cu[0], id);
        else
            subs.push_back({safe_id(id), absolute(dir), "(none)",
                            cu.empty() ? "no " + topic_file + " in the submission"
                                       : "several .cu files and none named " + topic_file + ": submit only " + topic_file,
                            id, ""});
        subs.back().folder = absolute(dir);
    };
    for (const std::string& in : inputs) {
        if (!exists(in)) throw cudalabs::UsageError("no such file or folder: " + in);
        if (!is_dir(in)) {
            std::string name = basename_of(in);
            std::string stem = ends_with_cu(name) ? name.substr(0, name.size() - 3) : name;
            std::string abs = absolute(in);
            std::string parent = basename_of(abs.substr(0, abs.find_last_of('/')));
            add_file(in, name == topic_file ? parent : stem);
            if (name == topic_file) subs.back().folder = abs.substr(0, abs.find_last_of('/'));
        } else if (exists(in + "/" + topic_file)) {
            add_folder(in);
        } else {
            for (const std::string& f : list_dir(in)) {
                std::string p = in + "/" + f;
                // Never the grader's own results (--out inside the submissions folder).
                if (is_dir(p) && (absolute(p) == skip_dir || exists(p + "/audit.jsonl"))) continue;
                if (is_dir(p)) add_folder(p);
                else if (ends_with_cu(f)) add_file(p, f.substr(0, f.size() - 3));
            }
        }
    }
    std::set<std::string> ids;
    for (SubmissionSource& s : subs) {
        std::string id = s.id;
        for (int k = 2; ids.count(id); ++k) id = s.id + "-" + std::to_string(k);
        s.id = id;
        ids.insert(id);
    }
    return subs;
}

}  // namespace grading
