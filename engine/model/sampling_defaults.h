// The sampling a model's makers recommend, from its files: generation_config.json (Hugging Face)
// and the general.sampling.* keys llama.cpp writes into a GGUF. The files are advice, so they are
// read leniently: a value of the wrong type or out of range is left out and named in `problems`,
// and never fails a load. The public form is hearth::SamplingDefaults (hearth/model.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/model_config.h"

namespace hearth {

namespace io { class GgufFile; }

// A GGUF's general.sampling.{temp, top_k, top_p, min_p, penalty_repeat}.
SamplingHints samplingHintsFromGguf(const io::GgufFile& file);
// generation_config.json's temperature, top_k, top_p, min_p and repetition_penalty, for the
// fields `hints` has not set yet (do_sample false: greedy, temperature 0). `file` names the
// source in `problems`.
void addGenerationConfigSampling(const nlohmann::json& config, const std::string& file, SamplingHints& hints);
// The same from the generation_config.json beside a model: in a Hugging Face folder, or in the
// folder of a .gguf. A missing file adds nothing; an unreadable one is a problem, not an error.
void addSamplingBeside(const std::string& modelPath, SamplingHints& hints);

} // namespace hearth
