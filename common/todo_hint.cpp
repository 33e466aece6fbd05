#include "todo_hint.h"

#include <cctype>
#include <fstream>

namespace cudalabs {

namespace {
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool mentions_word(const std::string& line, const std::string& word) {
    for (size_t pos = line.find(word); pos != std::string::npos; pos = line.find(word, pos + 1)) {
        bool start_ok = pos == 0 || !is_word_char(line[pos - 1]);
        size_t end = pos + word.size();
        bool end_ok = end >= line.size() || !is_word_char(line[end]);
        if (start_ok && end_ok) return true;
    }
    return false;
}
}  // namespace

std::string todo_hint(const std::string& source_path, const std::string& display_path,
                      const std::string& lab_tag, const std::string& variant) {
    const std::string marker = "TODO(" + lab_tag + ")";
    std::ifstream in(source_path);
    if (!in) return "see the " + marker + " markers in " + display_path;
    std::string line;
    int number = 0, first = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find(marker) == std::string::npos) continue;
        if (!first) first = number;
        if (!variant.empty() && mentions_word(line, variant))
            return "see " + marker + " at " + display_path + ":" + std::to_string(number);
    }
    if (!first) return "";
    return "see " + marker + " at " + display_path + ":" + std::to_string(first);
}

}  // namespace cudalabs
