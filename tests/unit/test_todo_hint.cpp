#include <doctest/doctest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/todo_hint.h"

using namespace cudalabs;

TEST_CASE("todo_hint points at the marker for the failing variant") {
    std::string path = "/tmp/cudalabs_todo_hint_test.cu";
    {
        std::ofstream f(path);
        f << "#include \"x.h\"\n"                                   // 1
          << "// TODO(lab01) simple: write the kernel\n"            // 2
          << "void f() {}\n"                                        // 3
          << "// TODO(lab01) fast: grid-stride\n"                   // 4
          << "// TODO(lab01) simpler: not the same word\n";         // 5
    }
    CHECK(todo_hint(path, "x.cu", "lab01", "fast") == "see TODO(lab01) at x.cu:4");
    CHECK(todo_hint(path, "x.cu", "lab01", "simple") == "see TODO(lab01) at x.cu:2");
    CHECK(todo_hint(path, "x.cu", "lab01", "host") == "see TODO(lab01) at x.cu:2");  // first marker
    CHECK(todo_hint(path, "x.cu", "lab02", "fast") == "");  // no marker of this lab: work done
    CHECK(todo_hint("/nonexistent/x.cu", "x.cu", "lab01", "fast") ==
          "see the TODO(lab01) markers in x.cu");
    std::remove(path.c_str());
}

TEST_CASE("todo_hint: a variant named before the marker (the file's first line names the lab) is not its marker") {
    std::string path = "/tmp/cudalabs_todo_hint_header_test.cu";
    {
        std::ofstream f(path);
        f << "// Lab 12 -- a fast matrix product. Your work goes in this file: complete every TODO(lab12).\n"  // 1
          << "// TODO(lab12) tiled: the tiled kernel\n"                                                       // 2
          << "// TODO(lab12) fast: the pipelined kernel\n";                                                   // 3
    }
    CHECK(todo_hint(path, "x.cu", "lab12", "fast") == "see TODO(lab12) at x.cu:3");
    CHECK(todo_hint(path, "x.cu", "lab12", "tiled") == "see TODO(lab12) at x.cu:2");
    CHECK(todo_hint(path, "x.cu", "lab12", "matrix") == "see TODO(lab12) at x.cu:1");  // not after a marker: the first
    std::remove(path.c_str());
}

// Every starter's "TODO(labNN) variant" marker is where the hint for that variant points (run from
// the repository's root, as make test runs the unit tests).
TEST_CASE("todo_hint: in every lab's starter, a variant's hint points at a marker of that variant") {
    namespace fs = std::filesystem;
    if (!fs::is_directory("labs")) {
        MESSAGE("no labs/ folder here: the starters' markers are not checked");
        return;
    }
    int checked = 0;
    for (const fs::directory_entry& lab : fs::directory_iterator("labs")) {
        const std::string tag = "lab" + lab.path().filename().string().substr(0, 2);
        const std::string marker = "TODO(" + tag + ") ";
        for (const fs::directory_entry& file : fs::directory_iterator(lab.path())) {
            if (file.path().extension() != ".cu" || file.path().filename() == "driver.cu") continue;
            std::ifstream in(file.path());
            std::string line;
            while (std::getline(in, line)) {
                const size_t at = line.find(marker);
                if (at == std::string::npos) continue;
                const size_t start = at + marker.size();
                size_t end = start;
                while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
                if (end == start) continue;
                const std::string variant = line.substr(start, end - start);
                const std::string hint = todo_hint(file.path().string(), "f.cu", tag, variant);
                REQUIRE_MESSAGE(hint.rfind("see " + marker.substr(0, marker.size() - 1) + " at f.cu:", 0) == 0, file.path(), " ", variant);
                const int number = std::stoi(hint.substr(hint.rfind(':') + 1));
                std::ifstream again(file.path());
                std::string pointed;
                for (int k = 0; k < number; ++k) std::getline(again, pointed);
                CHECK_MESSAGE(pointed.find(marker + variant) != std::string::npos, file.path(), ":", number, " for ", variant);
                ++checked;
            }
        }
    }
    CHECK(checked > 50);
}
