// The parts of Tokenizer shared by every vocabulary type.
#include "tokenizer/tokenizer.h"

namespace hearth {

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
    // The same path as streaming, so that a streamed reply and its stored text never differ.
    StreamingDetokenizer detokenizer(*this, -1);
    std::string text;
    try {
        for (const int32_t id : ids) text += detokenizer.push(id);
        text += detokenizer.flush();
    } catch (...) { // allocation only
    }
    return text;
}

} // namespace hearth
