// Watches generated text for stop strings. Text that might still turn into a stop string is
// held back, so a caller streaming the text never shows a stop string or a piece of one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth {

class StopStringFilter {
public:
    explicit StopStringFilter(std::vector<std::string> stopStrings);

    // Adds generated text. Returns the text that is now safe to show.
    std::string push(std::string_view piece);
    // True once a stop string has appeared; the text ends before it.
    bool stopped() const { return m_stopped; }
    // Everything still held back (call at the end when no stop string appeared).
    std::string flush();
    // All text accepted so far, up to a stop string if one appeared.
    const std::string& text() const { return m_text; }

private:
    std::vector<std::string> m_stops;
    std::string m_text;       // everything kept (shown + held)
    size_t m_shown = 0;       // bytes of m_text already returned
    bool m_stopped = false;
};

} // namespace hearth
