// The GGUF hyperparameter keys of a model, with llama.cpp's names — the keys configFromGguf()
// reads back. Shared by every writer (quantize/export and synth), so they cannot drift apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/gguf.h"
#include "model/model_config.h"

namespace hearth {

// "%s.context_length", ..., "%s.rope.scaling.*" for linear and yarn scaling. Llama 3 scaling is
// not a key: it travels as the rope_freqs.weight tensor (as llama.cpp's converter writes it), and
// a scaling key as well would apply it twice.
std::vector<std::pair<std::string, io::GgufValue>> ggufArchitectureKeys(const ModelConfig& config);

} // namespace hearth
