#include "chat/protected_render.h"

#include "base/utf8.h"

#include <optional>
#include <random>

namespace hearth::chat {
namespace {

using Json = nlohmann::ordered_json;
using Pointer = Json::json_pointer;

// A controlled string: where it sits in the messages, its text, and its marker.
struct Controlled {
    Pointer at;
    std::string text;
    std::string marker;
};

// A marker in the skeleton: the controlled string it stands for and its byte offset.
struct Occurrence {
    size_t pos = 0;
    size_t index = 0;
};

void collectStrings(const Json& node, const Pointer& at, std::vector<Controlled>& out) {
    if (node.is_string()) {
        if (!node.get_ref<const std::string&>().empty()) out.push_back({at, node.get<std::string>(), {}});
    } else if (node.is_array()) {
        for (size_t i = 0; i < node.size(); ++i) collectStrings(node[i], at / i, out);
    } else if (node.is_object()) {
        for (const auto& [key, value] : node.items()) collectStrings(value, at / key, out);
    }
}

// A message's content: a string, or a list of parts whose "text" is the typed text (the parts'
// "type" stays: templates check it).
void collectContent(const Json& content, const Pointer& at, std::vector<Controlled>& out) {
    if (content.is_string()) return collectStrings(content, at, out);
    if (!content.is_array()) return;
    for (size_t k = 0; k < content.size(); ++k) {
        const Json& part = content[k];
        if (part.is_string()) collectStrings(part, at / k, out);
        else if (part.is_object() && part.contains("text")) collectStrings(part["text"], at / k / "text", out);
    }
}

// Identifiers (role, name, tool_call_id, a call's id and type) stay: templates check them.
std::vector<Controlled> controlledStrings(const Json& messages) {
    std::vector<Controlled> out;
    if (!messages.is_array()) return out;
    for (size_t i = 0; i < messages.size(); ++i) {
        const Json& m = messages[i];
        if (!m.is_object()) continue;
        const auto role = m.find("role");
        const bool assistant = role != m.end() && role->is_string() && *role == "assistant";
        const auto content = m.find("content");
        if (!assistant && content != m.end()) collectContent(*content, Pointer() / i / "content", out);
        const auto calls = m.find("tool_calls");
        if (!assistant || calls == m.end() || !calls->is_array()) continue;
        for (size_t c = 0; c < calls->size(); ++c) {
            Pointer at = Pointer() / i / "tool_calls" / c;
            const Json* call = &(*calls)[c];
            if (call->is_object() && call->contains("function")) {
                at = at / "function";
                call = &(*call)["function"];
            }
            if (call->is_object() && call->contains("arguments")) collectStrings((*call)["arguments"], at / "arguments", out);
        }
    }
    return out;
}

// Private-use characters no template changes (not whitespace, no case); the random nonce makes
// a marker impossible to type in advance.
constexpr uint32_t kFence = 0x10FFFD, kDigit = 0xF0000;
constexpr size_t kCharBytes = 4, kNonceChars = 4, kIndexChars = 2;
constexpr size_t kMarkerBytes = (1 + kNonceChars + kIndexChars + 1) * kCharBytes;

std::string markerPrefix(uint64_t nonce) {
    std::string m;
    utf8::append(m, kFence);
    for (size_t k = 0; k < kNonceChars; ++k) utf8::append(m, kDigit + uint32_t((nonce >> (16 * k)) & 0xFFFF));
    return m;
}

std::string marker(const std::string& prefix, size_t index) {
    std::string m = prefix;
    for (size_t k = 0; k < kIndexChars; ++k) utf8::append(m, kDigit + uint32_t((index >> (16 * k)) & 0xFFFF));
    utf8::append(m, kFence);
    return m;
}

// Finds the markers in the skeleton; a cut marker (a template slicing a string) is an error.
Result<std::vector<Occurrence>> findOccurrences(const std::string& skeleton, const std::string& prefix,
                                                const std::vector<Controlled>& strings) {
    std::vector<Occurrence> found;
    // The fence and the first nonce character: enough of a marker to tell that it was cut.
    const std::string head = prefix.substr(0, 2 * kCharBytes);
    for (size_t pos = skeleton.find(head); pos != std::string::npos; pos = skeleton.find(head, pos + 1)) {
        size_t index = 0;
        bool whole = pos + kMarkerBytes <= skeleton.size() && skeleton.compare(pos, prefix.size(), prefix) == 0;
        for (size_t k = 0; whole && k < kIndexChars; ++k) {
            const std::string_view c = std::string_view(skeleton).substr(pos + prefix.size() + k * kCharBytes, kCharBytes);
            const uint32_t cp = (uint32_t(uint8_t(c[0]) & 0x07) << 18) | (uint32_t(uint8_t(c[1]) & 0x3F) << 12) |
                                (uint32_t(uint8_t(c[2]) & 0x3F) << 6) | uint32_t(uint8_t(c[3]) & 0x3F);
            whole = uint8_t(c[0]) == 0xF3 && cp >= kDigit && cp <= kDigit + 0xFFFF;
            index |= size_t(cp - kDigit) << (16 * k);
        }
        whole = whole && index < strings.size() && skeleton.compare(pos, kMarkerBytes, strings[index].marker) == 0;
        if (!whole)
            return unsupported("the chat template cuts message text apart, so Hearth cannot keep what users "
                               "typed from becoming control tokens; use a chat-template override");
        found.push_back({pos, index});
        pos += kMarkerBytes - 1;
    }
    return found;
}

// What the template made of string `index`, given a render with only that string real: the
// skeleton around its markers must be unchanged. Empty optional when the structure differs.
std::optional<std::string> renderedForm(const std::string& skeleton, const std::vector<Occurrence>& occurrences,
                                        size_t index, const std::string& rendered) {
    std::vector<std::string_view> around; // skeleton pieces between this string's markers
    size_t from = 0, fixed = 0;
    for (const Occurrence& o : occurrences) {
        if (o.index != index) continue;
        around.push_back(std::string_view(skeleton).substr(from, o.pos - from));
        from = o.pos + kMarkerBytes;
    }
    around.push_back(std::string_view(skeleton).substr(from));
    for (std::string_view piece : around) fixed += piece.size();
    const size_t copies = around.size() - 1;
    if (rendered.size() < fixed || (rendered.size() - fixed) % copies != 0) return std::nullopt;
    const size_t length = (rendered.size() - fixed) / copies;
    const std::string form = rendered.substr(around[0].size(), length);
    std::string expected(around[0]);
    for (size_t k = 1; k < around.size(); ++k) expected.append(form).append(around[k]);
    if (expected != rendered) return std::nullopt;
    return form;
}

// The skeleton with each marker replaced by its string's form, recording where they went.
ProtectedRender assemble(const std::string& skeleton, const std::vector<Occurrence>& occurrences,
                         const std::vector<std::string>& forms) {
    ProtectedRender out;
    size_t from = 0;
    for (const Occurrence& o : occurrences) {
        out.text.append(skeleton, from, o.pos - from);
        const std::string& form = forms[o.index];
        if (!form.empty()) out.userRanges.push_back({out.text.size(), out.text.size() + form.size()});
        out.text += form;
        from = o.pos + kMarkerBytes;
    }
    out.text.append(skeleton, from);
    return out;
}

} // namespace

Result<ProtectedRender> renderProtected(const ChatTemplate& tmpl, const Json& messages, const RenderOptions& options) {
    HEARTH_ASSIGN(std::string real, tmpl.render(messages, options));
    std::vector<Controlled> strings = controlledStrings(messages);
    if (strings.empty()) return ProtectedRender{std::move(real), {}, true};

    std::random_device device;
    std::string prefix;
    do { // a nonce nobody typed: the real text must not contain it
        prefix = markerPrefix((uint64_t(device()) << 32) ^ device());
    } while (real.find(prefix) != std::string::npos);

    Json skeletonMessages = messages;
    for (size_t i = 0; i < strings.size(); ++i) {
        strings[i].marker = marker(prefix, i);
        skeletonMessages[strings[i].at] = strings[i].marker;
    }
    HEARTH_ASSIGN(std::string skeleton, tmpl.render(skeletonMessages, options));
    HEARTH_ASSIGN(std::vector<Occurrence> occurrences, findOccurrences(skeleton, prefix, strings));

    // Most templates insert the text unchanged: then two renders suffice.
    std::vector<std::string> forms;
    for (const Controlled& c : strings) forms.push_back(c.text);
    ProtectedRender out = assemble(skeleton, occurrences, forms);
    if (out.text == real) return out;

    // The template changes the text (trim, strip, tojson, ...): learn each string's form.
    std::vector<bool> seen(strings.size(), false);
    for (const Occurrence& o : occurrences) seen[o.index] = true;
    bool allFound = true;
    for (size_t i = 0; i < strings.size(); ++i) {
        if (!seen[i]) continue;
        Json one = skeletonMessages;
        one[strings[i].at] = strings[i].text;
        HEARTH_ASSIGN(std::string rendered, tmpl.render(one, options));
        if (std::optional<std::string> form = renderedForm(skeleton, occurrences, i, rendered)) {
            forms[i] = std::move(*form);
        } else {
            allFound = false; // keeps the raw text
        }
    }
    out = assemble(skeleton, occurrences, forms);
    out.exact = allFound && out.text == real;
    return out;
}

} // namespace hearth::chat
