// Internal to the parser: the token stream helpers and the expression grammar, shared by the
// statement parser (jinja_parser.cpp) and defined in jinja_expr_parser.cpp.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "chat/jinja/jinja_ast.h"
#include "chat/jinja/jinja_lexer.h"

namespace hearth::chat::jinja {

// Nesting deeper than this (brackets, unary operators, blocks) is refused: it only comes from
// broken or hostile templates, and the recursive parser and evaluator must not run out of stack.
constexpr int kMaxNesting = 200;

// "'endfor'", "a string", "the end of the template": a token as error messages name it.
std::string describeToken(const Token& t);

class ExpressionParser {
public:
    explicit ExpressionParser(std::vector<Token> tokens) : m_tokens(std::move(tokens)) {}

protected:
    struct DepthGuard {
        ExpressionParser& p;
        explicit DepthGuard(ExpressionParser& parser) : p(parser) {
            if (++p.m_depth > kMaxNesting) {
                throw TemplateError(p.cur().line, "template nested too deeply (more than " + std::to_string(kMaxNesting) +
                                                      " levels of brackets, operators or blocks)");
            }
        }
        ~DepthGuard() { --p.m_depth; }
    };

    // ---- token helpers ----
    const Token& cur() const { return m_tokens[m_pos]; }
    const Token& peek(size_t n = 1) const { return m_tokens[std::min(m_pos + n, m_tokens.size() - 1)]; }
    void advance() {
        if (m_pos + 1 < m_tokens.size()) ++m_pos;
    }
    bool isOp(const char* op) const { return cur().kind == TokenKind::Operator && cur().text == op; }
    bool isName(const char* name) const { return cur().kind == TokenKind::Name && cur().text == name; }
    bool skipOp(const char* op) {
        if (!isOp(op)) return false;
        advance();
        return true;
    }
    bool skipName(const char* name) {
        if (!isName(name)) return false;
        advance();
        return true;
    }
    [[noreturn]] void fail(const std::string& message) const { throw TemplateError(cur().line, message); }
    void expectOp(const char* op) {
        if (!skipOp(op)) fail(std::string("expected '") + op + "', found " + describeToken(cur()));
    }
    std::string expectName(const char* what) {
        if (cur().kind != TokenKind::Name) fail(std::string("expected ") + what + ", found " + describeToken(cur()));
        std::string name = cur().text;
        advance();
        return name;
    }
    void expectBlockEnd(const char* tag) {
        if (cur().kind != TokenKind::BlockEnd) {
            fail(std::string("unexpected ") + describeToken(cur()) + " in '" + tag + "' tag (expected '%}')");
        }
        advance();
    }

    // ---- expressions (jinja_expr_parser.cpp) ----
    // A comma-separated sequence is a tuple (a list for us); one expression stays itself.
    ExprPtr parseTuple(bool withCondExpr, bool stopAtRecursive = false);
    bool isTupleEnd(bool stopAtRecursive) const;
    ExprPtr parseExpression(bool withCondExpr);
    ExprPtr binary(const std::string& op, ExprPtr lhs, ExprPtr rhs, int line);
    ExprPtr parseOr();
    ExprPtr parseAnd();
    ExprPtr parseNot();
    ExprPtr parseCompare();
    ExprPtr parseMath1(); // + -
    ExprPtr parseConcat();
    ExprPtr parseMath2(); // * / // %
    ExprPtr parsePow();
    ExprPtr parseUnary(bool withFilter);
    ExprPtr parsePrimary();
    ExprPtr literal(Value v, int line);
    ExprPtr parsePostfix(ExprPtr node);
    ExprPtr parseSubscript(ExprPtr object, int line);
    Arguments parseCallArgs();
    void checkFilter(const std::string& name, int line) const;
    ExprPtr parseFilterExpr(ExprPtr node, bool filtersOnly);
    // `x is divisibleby 3`, `x is sameas none`: a test may take one argument without parentheses.
    bool startsTestArgument() const;

    std::vector<Token> m_tokens;
    size_t m_pos = 0;
    int m_depth = 0;
};

} // namespace hearth::chat::jinja
