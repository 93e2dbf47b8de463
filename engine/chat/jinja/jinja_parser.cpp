// The statement half of the Jinja parser (tags and blocks); expressions are in
// jinja_expr_parser.cpp.
#include "chat/jinja/jinja_parser.h"

#include <algorithm>
#include <initializer_list>

#include "chat/jinja/jinja_builtins.h"
#include "chat/jinja/jinja_parser_impl.h"

namespace hearth::chat::jinja {

namespace {

class Parser : public ExpressionParser {
public:
    explicit Parser(std::vector<Token> tokens) : ExpressionParser(std::move(tokens)) {}

    TemplateAst run() {
        TemplateAst ast;
        ast.body = parseBody({}, nullptr);
        return ast;
    }

private:
    // ---- statements ----

    // Parses statements until a block tag whose name is in `endTags` (left unconsumed, positioned
    // at that name), or the end of the template when endTags is empty.
    StmtList parseBody(std::initializer_list<const char*> endTags, const Stmt* opener) {
        StmtList body;
        while (true) {
            const Token& t = cur();
            if (t.kind == TokenKind::End) {
                if (endTags.size() == 0) return body;
                std::string expected;
                for (const char* e : endTags) expected += std::string(expected.empty() ? "" : " or ") + "'" + e + "'";
                throw TemplateError(t.line, "unexpected end of template: the block opened at line " +
                                                std::to_string(opener ? opener->line : 0) + " is not closed (expected " +
                                                expected + ")");
            }
            if (t.kind == TokenKind::Text) {
                auto s = std::make_unique<Stmt>(Stmt::Kind::Text, t.line);
                s->text = t.text;
                body.push_back(std::move(s));
                advance();
            } else if (t.kind == TokenKind::VarBegin) {
                advance();
                auto s = std::make_unique<Stmt>(Stmt::Kind::Output, t.line);
                s->expr = parseTuple(true);
                if (cur().kind != TokenKind::VarEnd) fail("unexpected " + describeToken(cur()) + " in '{{ }}' (expected '}}')");
                advance();
                body.push_back(std::move(s));
            } else if (t.kind == TokenKind::BlockBegin) {
                advance();
                if (cur().kind != TokenKind::Name) fail("expected a tag name after '{%', found " + describeToken(cur()));
                const std::string tag = cur().text;
                for (const char* e : endTags) {
                    if (tag == e) return body;
                }
                if (isEndTag(tag)) {
                    if (opener) {
                        fail("unexpected '" + tag + "': the innermost open block is the one at line " +
                             std::to_string(opener->line));
                    }
                    fail("unexpected '" + tag + "' with no open block");
                }
                body.push_back(parseStatement());
            } else {
                fail("unexpected " + describeToken(t));
            }
        }
    }

    static bool isEndTag(const std::string& tag) {
        static const char* const kEnds[] = {"endif", "elif", "else", "endfor", "endset", "endmacro", "endcall",
                                            "endfilter", "endgeneration", "endwith", "endraw"};
        for (const char* e : kEnds) {
            if (tag == e) return true;
        }
        return false;
    }

    // Consumes the end tag name the body stopped at, then '%}'.
    std::string finishEndTag() {
        std::string tag = cur().text;
        advance();
        expectBlockEnd(tag.c_str());
        return tag;
    }

    StmtPtr parseStatement() {
        DepthGuard depth(*this);
        const int line = cur().line;
        const std::string tag = cur().text;
        advance();
        if (tag == "if") return parseIf(line);
        if (tag == "for") return parseFor(line);
        if (tag == "set") return parseSet(line);
        if (tag == "macro") return parseMacro(line);
        if (tag == "call") return parseCallBlock(line);
        if (tag == "filter") return parseFilterBlock(line);
        if (tag == "break" || tag == "continue") {
            expectBlockEnd(tag.c_str());
            return std::make_unique<Stmt>(tag == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue, line);
        }
        if (tag == "generation" || tag == "with") return parseScope(line, tag);
        if (tag == "include" || tag == "import" || tag == "from" || tag == "extends" || tag == "block") {
            throw TemplateError(line, "tag '" + tag + "' is not supported in chat templates");
        }
        throw TemplateError(line, "unknown tag '" + tag + "'");
    }

    StmtPtr parseIf(int line) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::If, line);
        s->conditions.push_back(parseTuple(false));
        expectBlockEnd("if");
        while (true) {
            s->bodies.push_back(parseBody({"elif", "else", "endif"}, s.get()));
            const std::string tag = cur().text;
            advance();
            if (tag == "elif") {
                s->conditions.push_back(parseTuple(false));
                expectBlockEnd("elif");
                continue;
            }
            if (tag == "else") {
                expectBlockEnd("else");
                s->elseBody = parseBody({"endif"}, s.get());
                finishEndTag();
            } else {
                expectBlockEnd("endif");
            }
            return s;
        }
    }

    std::vector<std::string> parseTargets() {
        std::vector<std::string> targets;
        const bool parens = skipOp("(");
        do {
            targets.push_back(expectName("a variable name"));
        } while (skipOp(","));
        if (parens) expectOp(")");
        return targets;
    }

    StmtPtr parseFor(int line) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::For, line);
        s->targets = parseTargets();
        if (!skipName("in")) fail("expected 'in' in 'for' tag, found " + describeToken(cur()));
        s->expr = parseTuple(false, /*stopAtRecursive=*/true);
        if (skipName("if")) s->filter = parseExpression(true);
        if (skipName("recursive")) s->recursive = true;
        expectBlockEnd("for");
        s->body = parseBody({"endfor", "else"}, s.get());
        if (finishEndTag() == "else") {
            s->elseBody = parseBody({"endfor"}, s.get());
            finishEndTag();
        }
        if (s->recursive) throw TemplateError(line, "recursive for loops are not supported");
        return s;
    }

    StmtPtr parseSet(int line) {
        std::vector<std::string> targets;
        std::string nsName;
        std::string attr;
        if (cur().kind == TokenKind::Name && peek().kind == TokenKind::Operator && peek().text == ".") {
            nsName = cur().text;
            advance();
            advance();
            attr = expectName("an attribute name");
        } else {
            targets = parseTargets();
        }
        if (skipOp("=")) {
            auto s = std::make_unique<Stmt>(Stmt::Kind::Set, line);
            s->targets = std::move(targets);
            s->namespaceName = nsName;
            s->text = attr;
            s->expr = parseTuple(true);
            expectBlockEnd("set");
            return s;
        }
        if (!nsName.empty() || targets.size() != 1) fail("a block 'set' takes one variable name");
        auto s = std::make_unique<Stmt>(Stmt::Kind::SetBlock, line);
        s->targets = std::move(targets);
        if (isOp("|")) s->filter = parseFilterChain(line);
        expectBlockEnd("set");
        s->body = parseBody({"endset"}, s.get());
        finishEndTag();
        return s;
    }

    // `| f(args) | g` applied to a placeholder Name "" that the evaluator binds to the body text.
    ExprPtr parseFilterChain(int line) {
        auto placeholder = std::make_unique<Expr>(Expr::Kind::Name, line);
        return parseFilterExpr(std::move(placeholder), /*filtersOnly=*/true);
    }

    std::vector<MacroParam> parseParams() {
        std::vector<MacroParam> params;
        expectOp("(");
        while (!isOp(")")) {
            if (!params.empty()) expectOp(",");
            if (isOp(")")) break;
            MacroParam p;
            p.name = expectName("a parameter name");
            if (skipOp("=")) p.defaultValue = parseExpression(true);
            params.push_back(std::move(p));
        }
        expectOp(")");
        return params;
    }

    StmtPtr parseMacro(int line) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::Macro, line);
        s->text = expectName("a macro name");
        s->params = parseParams();
        expectBlockEnd("macro");
        s->body = parseBody({"endmacro"}, s.get());
        finishEndTag();
        return s;
    }

    StmtPtr parseCallBlock(int line) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::CallBlock, line);
        if (isOp("(")) s->params = parseParams();
        s->expr = parseExpression(true);
        if (s->expr->kind != Expr::Kind::Call) throw TemplateError(line, "'call' needs a macro call");
        expectBlockEnd("call");
        s->body = parseBody({"endcall"}, s.get());
        finishEndTag();
        return s;
    }

    StmtPtr parseFilterBlock(int line) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::FilterBlock, line);
        auto placeholder = std::make_unique<Expr>(Expr::Kind::Name, line);
        // `{% filter upper | trim %}`: the first filter has no leading '|'.
        auto first = std::make_unique<Expr>(Expr::Kind::Filter, line);
        first->name = expectName("a filter name");
        checkFilter(first->name, line);
        first->object = std::move(placeholder);
        if (isOp("(")) first->args = parseCallArgs();
        s->expr = parseFilterExpr(std::move(first), true);
        expectBlockEnd("filter");
        s->body = parseBody({"endfilter"}, s.get());
        finishEndTag();
        return s;
    }

    StmtPtr parseScope(int line, const std::string& tag) {
        auto s = std::make_unique<Stmt>(Stmt::Kind::Scope, line);
        if (tag == "with") {
            while (cur().kind == TokenKind::Name) {
                auto assign = std::make_unique<Stmt>(Stmt::Kind::Set, cur().line);
                assign->targets.push_back(cur().text);
                advance();
                expectOp("=");
                assign->expr = parseExpression(true);
                s->body.push_back(std::move(assign));
                if (!skipOp(",")) break;
            }
        }
        expectBlockEnd(tag.c_str());
        StmtList inner = tag == "with" ? parseBody({"endwith"}, s.get()) : parseBody({"endgeneration"}, s.get());
        for (auto& st : inner) s->body.push_back(std::move(st));
        finishEndTag();
        return s;
    }
};

} // namespace

TemplateAst parseTemplate(std::string_view source) {
    return Parser(tokenize(source)).run();
}

} // namespace hearth::chat::jinja
