#include "compile/lab_build.h"

#include "util/files.h"
#include "util/text.h"

namespace grading {

bool is_header(const std::string& f) {
    return (f.size() > 2 && f.substr(f.size() - 2) == ".h") || (f.size() > 4 && f.substr(f.size() - 4) == ".cuh");
}

ImportLists load_import_lists(const std::string& root) {
    return {load_glob_list(root + "/grading/allowed-imports.txt"), load_import_renames(root + "/grading/shimmed-imports.txt")};
}

void stage_submission_files(const std::string& root, const LabInfo& info, const std::string& stage, const std::string& source) {
    make_dirs(stage + "/common");
    make_dirs(stage + "/" + info.dir);
    for (const std::string& dir : {std::string("common"), info.dir})
        for (const std::string& f : list_dir(root + "/" + dir))
            if (is_header(f)) write_file(stage + "/" + dir + "/" + f, read_file(root + "/" + dir + "/" + f));
    write_file(stage + "/" + info.dir + "/" + info.topic_file, source);
}

BuildSpec lab_build_spec(const LabInfo& info, const Rubric& rubric, const ImportLists& lists, const std::string& stage) {
    BuildSpec b;
    b.stage_dir = stage;
    b.lab_dir = info.dir;
    b.topic_file = info.topic_file;
    b.nvcc = info.nvcc;
    b.cuda_home = info.cuda_home;
    b.nvcc_flags = split_ws(info.nvcc_flags);
    b.arch_flags = split_ws(info.arch_flags);
    b.ldlibs = split_ws(info.ldlibs);
    b.compile_timeout_s = rubric.compile_timeout_s;
    b.rules.forbid_symbols = rubric.forbid_symbols;
    b.rules.allowed_imports = lists.allowed;
    b.rules.allow_imports = rubric.allow_imports;
    b.import_renames = lists.renames;
    return b;
}

}  // namespace grading
