#include "chat/stop_strings.h"

#include <algorithm>

namespace hearth {

StopStringFilter::StopStringFilter(std::vector<std::string> stopStrings) : m_stops(std::move(stopStrings)) {
    std::erase_if(m_stops, [](const std::string& s) { return s.empty(); });
}

std::string StopStringFilter::push(std::string_view piece) {
    if (m_stopped) return {};
    const size_t before = m_text.size();
    m_text.append(piece);
    // A stop string can only start where it would overlap the new text.
    size_t cut = std::string::npos;
    for (const std::string& stop : m_stops) {
        const size_t from = before >= stop.size() ? before - stop.size() + 1 : 0;
        const size_t at = m_text.find(stop, from);
        if (at != std::string::npos) cut = std::min(cut, at);
    }
    if (cut != std::string::npos) {
        m_stopped = true;
        m_text.resize(cut);
        std::string out = m_text.substr(std::min(m_shown, m_text.size()));
        m_shown = m_text.size();
        return out;
    }
    // Hold back the longest tail that is a prefix of some stop string.
    size_t hold = 0;
    for (const std::string& stop : m_stops)
        for (size_t len = std::min(stop.size() - 1, m_text.size()); len > hold; --len)
            if (m_text.compare(m_text.size() - len, len, stop, 0, len) == 0) {
                hold = len;
                break;
            }
    const size_t safe = m_text.size() - hold;
    std::string out;
    if (safe > m_shown) {
        out = m_text.substr(m_shown, safe - m_shown);
        m_shown = safe;
    }
    return out;
}

std::string StopStringFilter::flush() {
    std::string out = m_text.substr(std::min(m_shown, m_text.size()));
    m_shown = m_text.size();
    return out;
}

} // namespace hearth
