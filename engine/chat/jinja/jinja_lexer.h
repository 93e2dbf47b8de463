// The Jinja lexer: template text, {{ }}, {% %}, {# #}, whitespace control ('-' and '+'), and the
// environment transformers renders chat templates with: trim_blocks=True (the first newline after
// a block or comment tag is dropped), lstrip_blocks=True (spaces and tabs before a block or
// comment tag at the start of a line are dropped), keep_trailing_newline=False.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::chat::jinja {

enum class TokenKind {
    Text,       // literal template text, whitespace control already applied
    VarBegin,   // {{
    VarEnd,     // }}
    BlockBegin, // {%
    BlockEnd,   // %}
    Name,
    String,     // text holds the unescaped value
    Integer,
    Float,
    Operator,   // text holds the operator: + - * / // % ** ~ == != < > <= >= = . , : | ( ) [ ] { }
    End,
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;
    int line = 1;
    int64_t intValue = 0;
    double floatValue = 0;
};

// Throws TemplateError (with the line) on an unclosed tag or comment, an unterminated string,
// unbalanced brackets or a character that cannot start a token.
std::vector<Token> tokenize(std::string_view source);

} // namespace hearth::chat::jinja
