#include "chat/chat_template.h"

#include <chrono>
#include <new>
#include <utility>
#include <vector>

#include "chat/jinja/jinja_eval.h"
#include "chat/jinja/jinja_parser.h"

namespace hearth::chat {

namespace {

std::string located(const char* what, const jinja::TemplateError& e) {
    std::string message = std::string(what);
    if (e.line() > 0) message += " at line " + std::to_string(e.line());
    return message + ": " + e.what();
}

// Copying and printing data recurse per level of nesting, so data nested absurdly deep (a model's
// tool-call arguments, say) is refused rather than overflowing the stack. Real data nests a few
// levels; JSON schemas of tools a few dozen.
constexpr size_t kMaxDataDepth = 256;

bool nestsTooDeep(const nlohmann::ordered_json& data) {
    std::vector<std::pair<const nlohmann::ordered_json*, size_t>> pending{{&data, 1}};
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured()) continue;
        if (depth > kMaxDataDepth) return true;
        for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
    }
    return false;
}

std::tm systemLocalTime() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm local{};
    localtime_r(&t, &local);
    return local;
}

} // namespace

Result<ChatTemplate> ChatTemplate::parse(std::string_view source) {
    try {
        ChatTemplate result;
        result.m_source = std::make_shared<const std::string>(source);
        result.m_ast = std::make_shared<const jinja::TemplateAst>(jinja::parseTemplate(source));
        return result;
    } catch (const jinja::TemplateError& e) {
        return invalidArgument(located("chat template syntax error", e));
    } catch (const std::bad_alloc&) {
        return outOfMemory("chat template: out of memory while parsing");
    } catch (const std::exception& e) {
        return internalError(std::string("chat template: unexpected failure while parsing: ") + e.what());
    }
}

Result<std::string> ChatTemplate::render(const nlohmann::ordered_json& messages, const RenderOptions& options) const {
    using namespace jinja;
    try {
        const std::pair<const char*, const nlohmann::ordered_json*> inputs[] = {
            {"messages", &messages}, {"tools", &options.tools}, {"extraContext", &options.extraContext}};
        for (const auto& [name, data] : inputs)
            if (nestsTooDeep(*data))
                return invalidArgument(std::string("chat template: ") + name + " nest deeper than " +
                                       std::to_string(kMaxDataDepth) + " levels");
        Limits limits;
        limits.maxOutputBytes = options.limits.maxOutputBytes;
        limits.maxOperations = options.limits.maxOperations;
        limits.maxCallDepth = options.limits.maxCallDepth;
        Evaluator evaluator(*m_ast, limits, options.clock ? options.clock : std::function<std::tm()>(systemLocalTime));
        // The variables transformers passes: messages, tools, documents, add_generation_prompt,
        // the special tokens, then the caller's extra keyword arguments.
        evaluator.setGlobal("messages", Value::fromJson(messages));
        evaluator.setGlobal("tools", Value::fromJson(options.tools));
        evaluator.setGlobal("documents", Value::none());
        evaluator.setGlobal("add_generation_prompt", Value::boolean(options.addGenerationPrompt));
        if (options.bosToken) evaluator.setGlobal("bos_token", Value::string(*options.bosToken));
        if (options.eosToken) evaluator.setGlobal("eos_token", Value::string(*options.eosToken));
        if (options.extraContext.is_object()) {
            for (auto it = options.extraContext.begin(); it != options.extraContext.end(); ++it) {
                evaluator.setGlobal(it.key(), Value::fromJson(it.value()));
            }
        } else if (!options.extraContext.is_null()) {
            return invalidArgument("chat template: extraContext must be a JSON object");
        }
        return evaluator.render();
    } catch (const RaisedError& e) {
        return invalidArgument(located("chat template raised an error", e));
    } catch (const TemplateError& e) {
        return invalidArgument(located("chat template error", e));
    } catch (const std::bad_alloc&) {
        return outOfMemory("chat template: out of memory while rendering");
    } catch (const std::exception& e) {
        return internalError(std::string("chat template: unexpected failure while rendering: ") + e.what());
    }
}

Result<std::string> chatTemplateFromTokenizerConfig(const nlohmann::ordered_json& config) {
    auto it = config.find("chat_template");
    if (it == config.end() || it->is_null()) return notFound("tokenizer_config.json has no chat_template");
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array()) {
        for (const auto& entry : *it) {
            if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
                entry["template"].is_string()) {
                return entry["template"].get<std::string>();
            }
        }
        return notFound("tokenizer_config.json: chat_template is a list without a 'default' entry");
    }
    return invalidArgument("tokenizer_config.json: chat_template must be a string or a list of {name, template}");
}

} // namespace hearth::chat
