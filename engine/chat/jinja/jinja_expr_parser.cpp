// The expression grammar of the Jinja parser, with Jinja's precedence: `x if c else y` loosest,
// then or, and, not, comparisons (incl. in / not in), + -, ~, * / // %, **, unary - +, and
// postfix access, calls, filters (`|`) and tests (`is`) binding tightest.
#include <algorithm>

#include "chat/jinja/jinja_builtins.h"
#include "chat/jinja/jinja_parser_impl.h"

namespace hearth::chat::jinja {

std::string describeToken(const Token& t) {
    switch (t.kind) {
    case TokenKind::Text: return "template text";
    case TokenKind::VarBegin: return "'{{'";
    case TokenKind::VarEnd: return "'}}'";
    case TokenKind::BlockBegin: return "'{%'";
    case TokenKind::BlockEnd: return "'%}'";
    case TokenKind::Name: return "'" + t.text + "'";
    case TokenKind::String: return "a string";
    case TokenKind::Integer:
    case TokenKind::Float: return "a number";
    case TokenKind::Operator: return "'" + t.text + "'";
    case TokenKind::End: return "the end of the template";
    }
    return "?";
}

// A comma-separated sequence is a tuple (a list for us); one expression stays itself.
ExprPtr ExpressionParser::parseTuple(bool withCondExpr, bool stopAtRecursive) {
    const int line = cur().line;
    std::vector<ExprPtr> items;
    bool sawComma = false;
    while (true) {
        if (!items.empty()) {
            if (!skipOp(",")) break;
            sawComma = true;
        }
        if (isTupleEnd(stopAtRecursive)) break;
        items.push_back(parseExpression(withCondExpr));
    }
    if (items.empty()) fail("expected an expression, found " + describeToken(cur()));
    if (items.size() == 1 && !sawComma) return std::move(items[0]);
    auto list = std::make_unique<Expr>(Expr::Kind::List, line);
    list->items = std::move(items);
    return list;
}

bool ExpressionParser::isTupleEnd(bool stopAtRecursive) const {
    const Token& t = cur();
    if (t.kind == TokenKind::VarEnd || t.kind == TokenKind::BlockEnd || t.kind == TokenKind::End) return true;
    if (t.kind == TokenKind::Operator && (t.text == ")" || t.text == "=")) return true;
    if (t.kind == TokenKind::Name && (t.text == "if" || (stopAtRecursive && t.text == "recursive"))) return true;
    return false;
}

ExprPtr ExpressionParser::parseExpression(bool withCondExpr) {
    DepthGuard depth(*this);
    if (!withCondExpr) return parseOr();
    ExprPtr expr = parseOr();
    while (isName("if")) {
        const int line = cur().line;
        advance();
        auto t = std::make_unique<Expr>(Expr::Kind::Ternary, line);
        t->index = parseOr();
        t->object = std::move(expr);
        t->items.push_back(skipName("else") ? parseExpression(true) : nullptr);
        expr = std::move(t);
    }
    return expr;
}

ExprPtr ExpressionParser::binary(const std::string& op, ExprPtr lhs, ExprPtr rhs, int line) {
    auto e = std::make_unique<Expr>(Expr::Kind::Binary, line);
    e->name = op;
    e->object = std::move(lhs);
    e->index = std::move(rhs);
    return e;
}

ExprPtr ExpressionParser::parseOr() {
    ExprPtr left = parseAnd();
    while (isName("or")) {
        const int line = cur().line;
        advance();
        left = binary("or", std::move(left), parseAnd(), line);
    }
    return left;
}

ExprPtr ExpressionParser::parseAnd() {
    ExprPtr left = parseNot();
    while (isName("and")) {
        const int line = cur().line;
        advance();
        left = binary("and", std::move(left), parseNot(), line);
    }
    return left;
}

ExprPtr ExpressionParser::parseNot() {
    DepthGuard depth(*this);
    if (isName("not")) {
        const int line = cur().line;
        advance();
        auto e = std::make_unique<Expr>(Expr::Kind::Unary, line);
        e->name = "not";
        e->object = parseNot();
        return e;
    }
    return parseCompare();
}

ExprPtr ExpressionParser::parseCompare() {
    const int line = cur().line;
    ExprPtr first = parseMath1();
    std::vector<std::string> ops;
    std::vector<ExprPtr> operands;
    while (true) {
        const Token& t = cur();
        if (t.kind == TokenKind::Operator &&
            (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == ">" || t.text == "<=" || t.text == ">=")) {
            ops.push_back(t.text);
            advance();
        } else if (isName("in")) {
            ops.push_back("in");
            advance();
        } else if (isName("not") && peek().kind == TokenKind::Name && peek().text == "in") {
            ops.push_back("not in");
            advance();
            advance();
        } else {
            break;
        }
        operands.push_back(parseMath1());
    }
    if (ops.empty()) return first;
    auto e = std::make_unique<Expr>(Expr::Kind::Compare, line);
    e->object = std::move(first);
    e->ops = std::move(ops);
    e->items = std::move(operands);
    return e;
}

ExprPtr ExpressionParser::parseMath1() {
    ExprPtr left = parseConcat();
    while (isOp("+") || isOp("-")) {
        const std::string op = cur().text;
        const int line = cur().line;
        advance();
        left = binary(op, std::move(left), parseConcat(), line);
    }
    return left;
}

ExprPtr ExpressionParser::parseConcat() {
    ExprPtr left = parseMath2();
    while (isOp("~")) {
        const int line = cur().line;
        advance();
        left = binary("~", std::move(left), parseMath2(), line);
    }
    return left;
}

ExprPtr ExpressionParser::parseMath2() {
    ExprPtr left = parsePow();
    while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
        const std::string op = cur().text;
        const int line = cur().line;
        advance();
        left = binary(op, std::move(left), parsePow(), line);
    }
    return left;
}

ExprPtr ExpressionParser::parsePow() {
    ExprPtr left = parseUnary(true);
    while (isOp("**")) {
        const int line = cur().line;
        advance();
        left = binary("**", std::move(left), parseUnary(true), line);
    }
    return left;
}

ExprPtr ExpressionParser::parseUnary(bool withFilter) {
    DepthGuard depth(*this);
    const int line = cur().line;
    ExprPtr node;
    if (isOp("-") || isOp("+")) {
        const std::string op = cur().text;
        advance();
        node = std::make_unique<Expr>(Expr::Kind::Unary, line);
        node->name = op;
        node->object = parseUnary(false);
    } else {
        node = parsePostfix(parsePrimary());
    }
    if (withFilter) node = parseFilterExpr(std::move(node), false);
    return node;
}

ExprPtr ExpressionParser::parsePrimary() {
    const Token t = cur();
    switch (t.kind) {
    case TokenKind::Name: {
        advance();
        if (t.text == "true" || t.text == "True") return literal(Value::boolean(true), t.line);
        if (t.text == "false" || t.text == "False") return literal(Value::boolean(false), t.line);
        if (t.text == "none" || t.text == "None") return literal(Value::none(), t.line);
        auto e = std::make_unique<Expr>(Expr::Kind::Name, t.line);
        e->name = t.text;
        return e;
    }
    case TokenKind::String: {
        std::string s = t.text;
        advance();
        while (cur().kind == TokenKind::String) { // adjacent literals concatenate
            s += cur().text;
            advance();
        }
        return literal(Value::string(std::move(s)), t.line);
    }
    case TokenKind::Integer: advance(); return literal(Value::integer(t.intValue), t.line);
    case TokenKind::Float: advance(); return literal(Value::number(t.floatValue), t.line);
    case TokenKind::Operator:
        if (t.text == "(") {
            advance();
            if (skipOp(")")) {
                auto empty = std::make_unique<Expr>(Expr::Kind::List, t.line);
                return empty;
            }
            ExprPtr inner = parseTuple(true);
            expectOp(")");
            return inner;
        }
        if (t.text == "[") {
            advance();
            auto list = std::make_unique<Expr>(Expr::Kind::List, t.line);
            while (!isOp("]")) {
                if (!list->items.empty()) expectOp(",");
                if (isOp("]")) break;
                list->items.push_back(parseExpression(true));
            }
            expectOp("]");
            return list;
        }
        if (t.text == "{") {
            advance();
            auto dict = std::make_unique<Expr>(Expr::Kind::Dict, t.line);
            while (!isOp("}")) {
                if (!dict->items.empty()) expectOp(",");
                if (isOp("}")) break;
                dict->items.push_back(parseExpression(true));
                expectOp(":");
                dict->items.push_back(parseExpression(true));
            }
            expectOp("}");
            return dict;
        }
        break;
    default: break;
    }
    fail("unexpected " + describeToken(t) + " (expected an expression)");
}

ExprPtr ExpressionParser::literal(Value v, int line) {
    auto e = std::make_unique<Expr>(Expr::Kind::Literal, line);
    e->value = std::move(v);
    return e;
}

ExprPtr ExpressionParser::parsePostfix(ExprPtr node) {
    while (true) {
        const int line = cur().line;
        if (skipOp(".")) {
            if (cur().kind == TokenKind::Integer) {
                auto e = std::make_unique<Expr>(Expr::Kind::Item, line);
                e->object = std::move(node);
                e->index = literal(Value::integer(cur().intValue), line);
                advance();
                node = std::move(e);
                continue;
            }
            auto e = std::make_unique<Expr>(Expr::Kind::Attr, line);
            e->name = expectName("an attribute name after '.'");
            e->object = std::move(node);
            node = std::move(e);
        } else if (isOp("[")) {
            advance();
            node = parseSubscript(std::move(node), line);
        } else if (isOp("(")) {
            auto e = std::make_unique<Expr>(Expr::Kind::Call, line);
            e->args = parseCallArgs();
            e->object = std::move(node);
            node = std::move(e);
        } else {
            return node;
        }
    }
}

ExprPtr ExpressionParser::parseSubscript(ExprPtr object, int line) {
    ExprPtr parts[3];
    int colons = 0;
    while (!isOp("]")) {
        if (skipOp(":")) {
            if (++colons > 2) fail("too many ':' in a slice");
            continue;
        }
        if (parts[colons]) fail("expected ':' or ']' in a subscript, found " + describeToken(cur()));
        parts[colons] = parseExpression(true);
    }
    expectOp("]");
    if (colons == 0) {
        if (!parts[0]) fail("empty subscript '[]'");
        auto e = std::make_unique<Expr>(Expr::Kind::Item, line);
        e->object = std::move(object);
        e->index = std::move(parts[0]);
        return e;
    }
    auto e = std::make_unique<Expr>(Expr::Kind::Slice, line);
    e->object = std::move(object);
    for (auto& p : parts) e->items.push_back(std::move(p));
    return e;
}

Arguments ExpressionParser::parseCallArgs() {
    Arguments args;
    expectOp("(");
    while (!isOp(")")) {
        if (!args.positional.empty() || !args.keyword.empty()) expectOp(",");
        if (isOp(")")) break;
        if (cur().kind == TokenKind::Name && peek().kind == TokenKind::Operator && peek().text == "=") {
            std::string key = cur().text;
            advance();
            advance();
            args.keyword.emplace_back(std::move(key), parseExpression(true));
        } else {
            if (!args.keyword.empty()) fail("a positional argument follows a keyword argument");
            args.positional.push_back(parseExpression(true));
        }
    }
    expectOp(")");
    return args;
}

void ExpressionParser::checkFilter(const std::string& name, int line) const {
    if (!isKnownFilter(name)) throw TemplateError(line, "no filter named '" + name + "'");
}

ExprPtr ExpressionParser::parseFilterExpr(ExprPtr node, bool filtersOnly) {
    while (true) {
        const int line = cur().line;
        if (skipOp("|")) {
            auto e = std::make_unique<Expr>(Expr::Kind::Filter, line);
            e->name = expectName("a filter name after '|'");
            checkFilter(e->name, line);
            if (isOp("(")) e->args = parseCallArgs();
            e->object = std::move(node);
            node = std::move(e);
        } else if (!filtersOnly && isName("is")) {
            advance();
            auto e = std::make_unique<Expr>(Expr::Kind::Test, line);
            e->negated = skipName("not");
            e->name = expectName("a test name after 'is'");
            if (!isKnownTest(e->name)) throw TemplateError(line, "no test named '" + e->name + "'");
            if (isOp("(")) {
                e->args = parseCallArgs();
            } else if (startsTestArgument()) {
                e->args.positional.push_back(parsePostfix(parsePrimary()));
            }
            e->object = std::move(node);
            node = std::move(e);
        } else if (!filtersOnly && isOp("(")) {
            auto e = std::make_unique<Expr>(Expr::Kind::Call, line);
            e->args = parseCallArgs();
            e->object = std::move(node);
            node = std::move(e);
        } else {
            return node;
        }
    }
}

// `x is divisibleby 3`, `x is sameas none`: a test may take one argument without parentheses.
bool ExpressionParser::startsTestArgument() const {
    const Token& t = cur();
    if (t.kind == TokenKind::String || t.kind == TokenKind::Integer || t.kind == TokenKind::Float) return true;
    if (t.kind == TokenKind::Operator) return t.text == "[" || t.text == "{";
    if (t.kind == TokenKind::Name) {
        return t.text != "else" && t.text != "or" && t.text != "and" && t.text != "if" && t.text != "in" &&
               t.text != "not" && t.text != "is" && t.text != "recursive";
    }
    return false;
}

} // namespace hearth::chat::jinja
