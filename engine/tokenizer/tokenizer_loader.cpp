// Loading a tokenizer from a file: SentencePiece tokenizer.model (with an optional
// tokenizer_config.json beside it), a HF tokenizer.json (byte-level BPE, bpe/), a GGUF file, or
// a folder holding tokenizer.json or tokenizer.model.
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/gguf.h"
#include "io/mapped_file.h"
#include "tokenizer/sp_model_proto.h"
#include "tokenizer/spm_tokenizer.h"
#include "tokenizer/tokenizer.h"
#if defined(HEARTH_HAS_BPE)
#include "tokenizer/bpe/bpe_loader.h"
#endif

namespace hearth {

namespace {

namespace fs = std::filesystem;


// HF's add_bos_token/add_eos_token from a tokenizer_config.json beside the model, if any.
Status applyTokenizerConfig(const std::string& modelPath, spm::TokenizerOptions& options) {
    const fs::path configPath = fs::path(modelPath).parent_path() / "tokenizer_config.json";
    std::error_code ec;
    if (!fs::is_regular_file(configPath, ec)) return Status::ok();
    HEARTH_ASSIGN(const std::string text, io::readWholeFile(configPath.string()));
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return dataLoss(configPath.string() + ": invalid JSON");
    if (!json.is_object()) return dataLoss(configPath.string() + ": expected a JSON object");
    // Absent or null keeps the model's default (LlamaTokenizer: BOS yes, EOS no).
    const auto flag = [&](const char* key, bool& out) -> Status {
        const auto it = json.find(key);
        if (it == json.end() || it->is_null()) return Status::ok();
        if (!it->is_boolean())
            return dataLoss(configPath.string() + ": key " + key + ": expected true or false");
        out = it->get<bool>();
        return Status::ok();
    };
    HEARTH_TRY(flag("add_bos_token", options.addBos));
    HEARTH_TRY(flag("add_eos_token", options.addEos));
    return Status::ok();
}

Result<int32_t> specialId(const spm::ModelProto& model, int64_t id, const std::string& path,
                          const char* field) {
    if (id < -1 || id >= int64_t(model.pieces.size()))
        return dataLoss(path + ": trainer_spec." + field + " " + std::to_string(id) +
                        " is outside the vocabulary (" + std::to_string(model.pieces.size()) +
                        " pieces)");
    return static_cast<int32_t>(id);
}

// A Hugging Face tokenizer.json: byte-level BPE, in builds that have it.
Result<std::unique_ptr<Tokenizer>> loadTokenizerJsonFile(const std::string& path) {
#if defined(HEARTH_HAS_BPE)
    return bpe::loadTokenizerJson(path);
#else
    return unsupported(path + ": tokenizer.json (byte-level BPE) is not supported: this build has no "
                              "byte-level BPE support (HEARTH_BPE=OFF)");
#endif
}

} // namespace

Result<std::unique_ptr<Tokenizer>> loadSentencePieceFile(const std::string& path) {
    try {
        HEARTH_ASSIGN(const std::string bytes, io::readWholeFile(path));
        HEARTH_ASSIGN(spm::ModelProto model, spm::parseModelProto(bytes, path));

        // Runs of spaces are kept. SentencePiece models usually say remove_extra_whitespaces
        // (stories260K's does), but llama.cpp, HF's fast Llama tokenizer and llama2.c's run.c
        // all keep "Max  went" as "▁M a x ▁ ▁w ent": a GGUF of the same model records no
        // normalisation. Turning it off here makes tokenizer.model and GGUF agree with them.
        model.normalizerSpec.setBool(spm::field::kRemoveExtraWhitespaces, false);

        spm::TokenizerOptions options;
        options.source = path;
        HEARTH_ASSIGN(options.bosId, specialId(model, model.bosId(), path, "bos_id"));
        HEARTH_ASSIGN(options.eosId, specialId(model, model.eosId(), path, "eos_id"));
        options.addBos = true;
        options.addEos = false;
        HEARTH_TRY(applyTokenizerConfig(path, options));
        HEARTH_ASSIGN(auto tokenizer, spm::SpmTokenizer::create(model, options));
        return std::unique_ptr<Tokenizer>(std::move(tokenizer));
    } catch (const std::exception& e) {
        return internalError(path + ": loading the tokenizer failed: " + e.what());
    } catch (...) {
        return internalError(path + ": loading the tokenizer failed");
    }
}

Result<std::unique_ptr<Tokenizer>> loadTokenizer(const std::string& path) {
    try {
        std::error_code ec;
        if (!fs::exists(path, ec)) return notFound(path + ": no such file or folder");
        if (fs::is_directory(path, ec)) {
            const fs::path json = fs::path(path) / "tokenizer.json";
            const fs::path model = fs::path(path) / "tokenizer.model";
            const bool hasJson = fs::is_regular_file(json, ec);
            const bool hasModel = fs::is_regular_file(model, ec);
            // tokenizer.json first, as HF's fast tokenizers read it. SentencePiece models ship
            // one too (a Metaspace BPE, which Hearth does not read from JSON): when it is
            // refused as unsupported and a tokenizer.model is there, that one is used.
            if (hasJson) {
                auto loaded = loadTokenizerJsonFile(json.string());
                if (loaded.isOk() || !hasModel || loaded.status().code() != StatusCode::Unsupported)
                    return loaded;
            }
            if (!hasModel) return notFound(path + ": the folder holds no tokenizer.json or tokenizer.model");
            return loadSentencePieceFile(model.string());
        }
        if (fs::path(path).extension() == ".json") return loadTokenizerJsonFile(path);
        // By content rather than by name: a GGUF starts with its magic.
        char magic[4] = {};
        {
            std::ifstream in(path, std::ios::binary);
            if (!in) return invalidArgument(path + ": cannot be opened for reading");
            in.read(magic, sizeof magic);
        }
        if (std::string_view(magic, 4) == "GGUF") {
            HEARTH_ASSIGN(const io::GgufFile file, io::GgufFile::open(path));
            return loadTokenizerFromGguf(file);
        }
        return loadSentencePieceFile(path);
    } catch (const std::exception& e) {
        return internalError(path + ": loading the tokenizer failed: " + e.what());
    } catch (...) {
        return internalError(path + ": loading the tokenizer failed");
    }
}

} // namespace hearth
