// The engine's layers hold: every include of an engine header names the file's own layer or one
// it may use (engine/CMakeLists.txt's table, written to the build tree at configure time), and no
// engine headers include each other in a loop. The checks prove themselves on planted examples.
// (The link-time half: tests/layering links each layer whole with only its declared dependencies.)
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "check.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace {

struct Layers {
    std::map<std::string, std::set<std::string>> allowed; // layer -> itself + its dependency closure
    std::map<std::string, std::string> dirLayer;          // "chat/jinja" -> "chat"
};

Layers readTable(const std::string& text) {
    Layers out;
    std::map<std::string, std::vector<std::string>> deps;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const size_t colon = line.find(':'), bar = line.find('|');
        if (colon == std::string::npos || bar == std::string::npos) continue;
        const std::string layer = line.substr(0, colon);
        std::istringstream depWords(line.substr(colon + 1, bar - colon - 1)), dirWords(line.substr(bar + 1));
        for (std::string w; depWords >> w;) deps[layer].push_back(w);
        for (std::string w; dirWords >> w;) out.dirLayer[w] = layer;
        deps[layer]; // a layer with no dependencies
    }
    std::function<void(const std::string&, std::set<std::string>&)> close = [&](const std::string& l, std::set<std::string>& acc) {
        if (!acc.insert(l).second) return;
        for (const std::string& d : deps[l]) close(d, acc);
    };
    for (const auto& [layer, unused] : deps) close(layer, out.allowed[layer]);
    // Outside the libraries: the CLI links every layer (api.headers holds its includes to the
    // public headers); the CUDA module uses the ABI and base, and quant's host-and-device
    // quantizer code, which it compiles for the GPU (backend/cuda/weight_quantize.cu).
    for (const auto& [layer, unused] : deps) out.allowed["tools"].insert(layer);
    out.allowed["tools"].insert("tools");
    out.allowed["cuda-module"] = {"cuda-module", "base", "backend", "quant"};
    out.dirLayer["tools"] = "tools";
    out.dirLayer["backend/cuda"] = "cuda-module";
    return out;
}

// The layer of an engine path ("chat/jinja/jinja_eval.cpp"), from its folder; public headers by
// what they declare.
std::string layerOf(const Layers& layers, const std::string& path) {
    if (path == "include/hearth/status.h") return "base";
    if (path == "include/hearth/devices.h") return "backend";
    if (path == "include/hearth/sampling.h") return "sampling";
    if (path.rfind("include/hearth/", 0) == 0) return "runtime";
    const auto it = layers.dirLayer.find(fs::path(path).parent_path().string());
    return it == layers.dirLayer.end() ? "" : it->second;
}

// Engine paths a file includes (only those that resolve inside engine/).
std::vector<std::string> engineIncludes(const std::string& text, const std::function<bool(const std::string&)>& exists) {
    static const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (!std::regex_search(line, m, include)) continue;
        std::string target = m[1].str();
        if (target.rfind("hearth/", 0) == 0) target = "include/" + target;
        if (exists(target)) out.push_back(target);
    }
    return out;
}

struct Finding {
    std::vector<std::string> upward; // "io/x.cpp -> runtime/y.h"
    std::vector<std::string> cycles; // "a.h -> b.h -> a.h"
    std::vector<std::string> unplaced;
};

Finding check(const Layers& layers, const std::map<std::string, std::string>& sources) {
    Finding f;
    auto exists = [&](const std::string& p) { return sources.count(p) > 0; };
    std::map<std::string, std::vector<std::string>> graph;
    for (const auto& [path, text] : sources) {
        const std::string from = layerOf(layers, path);
        if (from.empty()) {
            f.unplaced.push_back(path);
            continue;
        }
        for (const std::string& target : engineIncludes(text, exists)) {
            graph[path].push_back(target);
            const std::string to = layerOf(layers, target);
            if (!layers.allowed.at(from).count(to))
                f.upward.push_back(path + " (" + from + ") -> " + target + " (" + to + ")");
        }
    }
    std::map<std::string, int> state; // 0 new, 1 on the stack, 2 done
    std::vector<std::string> stack;
    std::function<void(const std::string&)> visit = [&](const std::string& node) {
        state[node] = 1;
        stack.push_back(node);
        for (const std::string& next : graph[node]) {
            if (state[next] == 1) {
                std::string cycle;
                for (auto it = std::find(stack.begin(), stack.end(), next); it != stack.end(); ++it) cycle += *it + " -> ";
                f.cycles.push_back(cycle + next);
            } else if (state[next] == 0) {
                visit(next);
            }
        }
        stack.pop_back();
        state[node] = 2;
    };
    for (const auto& [path, unused] : sources)
        if (state[path] == 0) visit(path);
    return f;
}

// The checks catch what they claim to: an upward include and a loop, planted in a copy.
void checkPlanted(const Layers& layers, std::map<std::string, std::string> sources) {
    sources["io/planted.cpp"] = "#include \"runtime/chat_prompt.h\"\n";
    sources["base/planted_a.h"] = "#include \"base/planted_b.h\"\n";
    sources["base/planted_b.h"] = "#include \"base/planted_a.h\"\n";
    const Finding f = check(layers, sources);
    CHECK(std::any_of(f.upward.begin(), f.upward.end(), [](const std::string& s) { return s.rfind("io/planted.cpp", 0) == 0; }));
    CHECK(std::any_of(f.cycles.begin(), f.cycles.end(), [](const std::string& s) { return s.find("planted_a.h") != std::string::npos; }));
}

} // namespace

int main() {
    hearth::test::announce("layering", "cpu");
    const Layers layers = readTable(hearth::test::readTextFile(HEARTH_LAYER_TABLE));
    CHECK_MSG(layers.allowed.size() >= 11, "the layer table " << HEARTH_LAYER_TABLE << " has too few layers");
    const fs::path engine = fs::path(HEARTH_SOURCE_DIR) / "engine";
    std::map<std::string, std::string> sources;
    for (const auto& entry : fs::recursive_directory_iterator(engine)) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".cpp" || ext == ".h" || ext == ".cu" || ext == ".cuh"))
            sources[fs::relative(entry.path(), engine).string()] = hearth::test::readTextFile(entry.path());
    }
    CHECK(sources.size() > 100);
    const Finding f = check(layers, sources);
    for (const std::string& s : f.unplaced) std::fprintf(stderr, "  not in any layer: %s\n", s.c_str());
    for (const std::string& s : f.upward) std::fprintf(stderr, "  include runs up the layers: %s\n", s.c_str());
    for (const std::string& s : f.cycles) std::fprintf(stderr, "  include cycle: %s\n", s.c_str());
    CHECK(f.unplaced.empty());
    CHECK(f.upward.empty());
    CHECK(f.cycles.empty());
    checkPlanted(layers, sources);
    return hearth::test::finish();
}
