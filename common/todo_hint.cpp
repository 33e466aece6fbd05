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
        const size_t at = line.find(marker);
        if (at == std::string::npos) continue;
        if (!first) first = number;
        // The variant after the marker ("TODO(lab12) fast: ..."): a file's first line may name the
        // lab ("a fast matrix product") before its "complete every TODO(lab12)".
        if (!variant.empty() && mentions_word(line.substr(at + marker.size()), variant))
            return "see " + marker + " at " + display_path + ":" + std::to_string(number);
    }
    if (!first) return "";
    return "see " + marker + " at " + display_path + ":" + std::to_string(first);
}

}  // namespace cudalabs
