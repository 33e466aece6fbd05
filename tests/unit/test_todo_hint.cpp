#include <doctest/doctest.h>

#include <cstdio>
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
