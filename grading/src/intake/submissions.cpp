#include "intake/submissions.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "args.h"
#include "intake/questions.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

void check_submission_inputs(const std::vector<std::string>& inputs) {
    for (const std::string& in : inputs) {
        struct stat st;
        if (lstat(in.c_str(), &st) != 0) throw cudalabs::UsageError("no such file or folder: " + in + ": give the folder of the submissions");
        if (!S_ISDIR(st.st_mode)) continue;  // a file, or something refused as a submission
        DIR* d = opendir(in.c_str());
        if (!d)
            throw cudalabs::UsageError("cannot read the folder " + in + " (" + std::strerror(errno) +
                                       "): let the grader's user read and enter it");
        closedir(d);
        if (list_dir(in).empty())
            throw cudalabs::UsageError("the folder " + in + " is empty: put the submissions in it, one file or folder per student");
    }
}

namespace {

constexpr const char* kMetadataFile = "submission_metadata.json";
constexpr const char* kExportFile = "submission_metadata.yml";

bool is_cu(const std::string& name) { return name.size() > 3 && ends_with(name, ".cu"); }
std::string stem(const std::string& name) { return is_cu(name) ? name.substr(0, name.size() - 3) : name; }

// What a file that is not a regular file or a folder is, for the student's sentence.
std::string kind_text(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a folder";
    return "not a regular file";
}

std::string refusal_of_kind(const std::string& shown, mode_t mode) {
    if (S_ISLNK(mode)) return shown + " is a symbolic link: the grader follows no link; submit the file itself";
    return shown + " is not a regular file (" + kind_text(mode) + "): submit the file itself";
}

// A file read through no link: its bytes, or why not (the student's doing: `refused`; the
// environment's: `unreadable`).
struct FileRead {
    std::string bytes, refused, unreadable;
    bool ok() const { return refused.empty() && unreadable.empty(); }
};

// Regular file `name` of folder `dir`, at most `max` bytes; `shown` names it in the sentences.
FileRead read_at(int dir, const std::string& name, const std::string& shown, size_t max) {
    FileRead r;
    struct stat before;
    if (fstatat(dir, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
        r.unreadable = "cannot read " + shown + " (" + std::strerror(errno) + ")";
        return r;
    }
    if (!S_ISREG(before.st_mode)) {
        r.refused = refusal_of_kind(shown, before.st_mode);
        return r;
    }
    if (static_cast<unsigned long long>(before.st_size) > max) {
        r.refused = "the file is larger than " + std::to_string(max >> 20) + " MiB";
        return r;
    }
    const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP) r.refused = refusal_of_kind(shown, S_IFLNK);
        else r.unreadable = "cannot read " + shown + " (" + std::strerror(errno) + ")";
        return r;
    }
    struct stat now;
    if (fstat(fd, &now) != 0 || now.st_dev != before.st_dev || now.st_ino != before.st_ino || !S_ISREG(now.st_mode)) {
        ::close(fd);
        r.unreadable = shown + " changed while the grader read it";
        return r;
    }
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            r.unreadable = "cannot read " + shown + " (" + std::strerror(errno) + ")";
            break;
        }
        if (n == 0) break;
        r.bytes.append(buf, static_cast<size_t>(n));
        if (r.bytes.size() > max) {
            r.refused = "the file is larger than " + std::to_string(max >> 20) + " MiB";
            break;
        }
    }
    ::close(fd);
    if (!r.ok()) r.bytes.clear();
    return r;
}

// The entries of folder `dir` (sorted by name), each with its mode as lstat sees it.
std::vector<std::pair<std::string, mode_t>> entries_of(int dir) {
    std::vector<std::pair<std::string, mode_t>> out;
    const int copy = dup(dir);
    DIR* d = copy >= 0 ? fdopendir(copy) : nullptr;
    if (!d) {
        if (copy >= 0) ::close(copy);
        return out;
    }
    while (dirent* e = readdir(d)) {
        if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) out.emplace_back(e->d_name, st.st_mode);
    }
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

// An open folder, closed with this object.
struct Folder {
    int fd = -1;
    explicit Folder(int f) : fd(f) {}
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder() {
        if (fd >= 0) ::close(fd);
    }
};

int open_folder(int dir, const std::string& name) {
    return openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// The class's submissions as they are found; names raw, made valid and given ids at the end.
class Intake {
public:
    explicit Intake(std::string topic) : topic_(std::move(topic)) {}
    void add_input(const std::string& input);
    std::vector<SubmissionSource> finish();

private:
    std::string topic_;
    std::vector<SubmissionSource> subs_;

    SubmissionSource& add(const std::string& raw_name, const std::string& submitted_as, const std::string& path) {
        SubmissionSource s;
        s.name = raw_name;
        s.submitted_as = valid_utf8(submitted_as);
        s.path = path;
        s.file = "(none)";
        subs_.push_back(s);
        return subs_.back();
    }
    void take_file(SubmissionSource& s, int dir, const std::string& name, const std::string& path);
    void add_student_folder(int dir, const std::string& raw_name, const std::string& submitted_as, const std::string& path,
                            const std::shared_ptr<const std::string>& class_export);
    void add_class_folder(int dir, const std::string& path);
};

void Intake::take_file(SubmissionSource& s, int dir, const std::string& name, const std::string& path) {
    s.file = valid_utf8(name);
    s.path = path;
    const FileRead r = read_at(dir, name, s.file, kMaxSubmissionBytes);
    s.source = r.bytes;
    s.rejected = r.refused;
    s.unreadable = r.unreadable;
}

// The student's answers file, `present` where the folder lists one: its bytes, or why not (a
// link, not a regular file, too large, unreadable: never more than a sentence for the student).
void read_answers(SubmissionSource& s, int dir, bool present, const std::string& topic) {
    if (!present) {
        s.answers_problem = std::string("no ") + kAnswersFile + " beside " + topic + " in the submission";
        return;
    }
    const FileRead r = read_at(dir, kAnswersFile, kAnswersFile, kMaxSubmissionBytes);
    s.answers = r.bytes;
    s.answers_problem = r.refused.empty() ? r.unreadable : r.refused;
    if (!s.answers_problem.empty() && !starts_with(s.answers_problem, kAnswersFile))
        s.answers_problem = std::string(kAnswersFile) + ": " + s.answers_problem;
}

void Intake::add_student_folder(int dir, const std::string& raw_name, const std::string& submitted_as, const std::string& path,
                                const std::shared_ptr<const std::string>& class_export) {
    SubmissionSource& s = add(raw_name, submitted_as, path);
    s.folder = path;
    s.class_export = class_export;
    std::vector<std::string> cu;
    bool has_topic = false;
    bool has_metadata = false, has_answers = false;
    for (const auto& [name, mode] : entries_of(dir)) {
        has_topic |= name == topic_;
        has_metadata |= name == kMetadataFile;
        has_answers |= name == kAnswersFile;
        if (is_cu(name) && !S_ISDIR(mode)) cu.push_back(name);
    }
    if (has_metadata) {
        const FileRead meta = read_at(dir, kMetadataFile, kMetadataFile, 1 << 20);
        s.metadata = meta.bytes;
        s.metadata_problem = meta.ok() ? "" : meta.refused + meta.unreadable;
    }
    read_answers(s, dir, has_answers, topic_);
    if (has_topic) take_file(s, dir, topic_, path + "/" + topic_);
    else if (cu.size() == 1) take_file(s, dir, cu[0], path + "/" + cu[0]);
    else if (cu.empty()) s.rejected = "no " + topic_ + " in the submission";
    else s.rejected = "several .cu files and none named " + topic_ + ": submit only " + topic_;
}

void Intake::add_class_folder(int dir, const std::string& path) {
    std::shared_ptr<const std::string> class_export;
    const std::vector<std::pair<std::string, mode_t>> entries = entries_of(dir);
    for (const auto& [name, mode] : entries)
        if (name == kExportFile) {
            const FileRead r = read_at(dir, name, name, 16 << 20);
            if (r.ok()) class_export = std::make_shared<const std::string>(r.bytes);
        }
    for (const auto& [name, mode] : entries) {
        const std::string at = path + "/" + name;
        if (S_ISDIR(mode)) {
            const Folder sub(open_folder(dir, name));
            if (sub.fd >= 0) {
                add_student_folder(sub.fd, name, name, at, class_export);
            } else {
                SubmissionSource& s = add(name, name, at);
                if (errno == ELOOP || errno == ENOTDIR) s.rejected = refusal_of_kind(valid_utf8(name), S_IFLNK);
                else s.unreadable = "cannot read the folder " + valid_utf8(name) + " (" + std::strerror(errno) + ")";
            }
        } else if (S_ISREG(mode) && is_cu(name)) {
            take_file(add(stem(name), name, at), dir, name, at);
        } else if (S_ISLNK(mode) || (!S_ISREG(mode) && is_cu(name))) {
            // Not a file of the class's to pass over: a link (to a file or a folder) and anything
            // named like a student's file is that student's refusal.
            SubmissionSource& s = add(stem(name), name, at);
            s.rejected = refusal_of_kind(valid_utf8(name), mode);
        }
    }
}

void Intake::add_input(const std::string& input) {
    struct stat st;
    if (lstat(input.c_str(), &st) != 0) throw cudalabs::UsageError("no such file or folder: " + input);
    const std::string abs = absolute(folder_of(input)) + "/" + basename_of(input);
    const std::string name = basename_of(input);
    if (S_ISDIR(st.st_mode)) {
        const Folder dir(::open(input.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (dir.fd < 0) throw cudalabs::UsageError("cannot read the folder " + input + " (" + std::strerror(errno) + ")");
        struct stat topic;
        if (fstatat(dir.fd, topic_.c_str(), &topic, AT_SYMLINK_NOFOLLOW) == 0) add_student_folder(dir.fd, name, input, abs, nullptr);
        else add_class_folder(dir.fd, abs);
        return;
    }
    const bool own_name = name == topic_;  // the lab's file in its student's folder: the student is the folder
    const std::string folder = folder_of(abs);
    SubmissionSource& s = add(own_name ? basename_of(folder) : stem(name), input, abs);
    if (own_name) s.folder = folder;
    if (!S_ISREG(st.st_mode)) {
        s.rejected = refusal_of_kind(valid_utf8(name), st.st_mode);
        return;
    }
    const Folder parent(::open(folder_of(input).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (parent.fd < 0) s.unreadable = "cannot read the folder of " + valid_utf8(input) + " (" + std::strerror(errno) + ")";
    else take_file(s, parent.fd, name, abs);
}

std::vector<SubmissionSource> Intake::finish() {
    std::map<std::string, int> seen;
    for (SubmissionSource& s : subs_) {
        const std::string id = submission_id(s.name);
        const int n = ++seen[id];
        s.id = n == 1 ? id : id + "~" + std::to_string(n);
        s.name = valid_utf8(s.name);
        s.path = valid_utf8(s.path);
        s.folder = valid_utf8(s.folder);
    }
    return std::move(subs_);
}

}  // namespace

std::vector<SubmissionSource> take_submissions(const std::vector<std::string>& inputs, const std::string& topic_file) {
    Intake intake(topic_file);
    for (const std::string& in : inputs) intake.add_input(in);
    return intake.finish();
}

}  // namespace grading
