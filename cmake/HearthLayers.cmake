# The engine's layers bottom-up: each one's source folders (under engine/) and the layers it may
# use. engine/CMakeLists.txt builds one static library per layer from this table; tests/layering
# and cpu.layering check it. The map: docs/ARCHITECTURE.md.
set(HEARTH_LAYERS base quant io tokenizer chat model sampling backend export synth runtime)
set(HEARTH_LAYER_DIRS_base base)
set(HEARTH_LAYER_DEPS_base "")
set(HEARTH_LAYER_DIRS_quant quant)
set(HEARTH_LAYER_DEPS_quant base)
set(HEARTH_LAYER_DIRS_io io)
set(HEARTH_LAYER_DEPS_io base quant)
set(HEARTH_LAYER_DIRS_tokenizer tokenizer tokenizer/bpe) # bpe/ only built with HEARTH_BPE
set(HEARTH_LAYER_DEPS_tokenizer base io)
set(HEARTH_LAYER_DIRS_chat chat chat/jinja)
set(HEARTH_LAYER_DEPS_chat base)
set(HEARTH_LAYER_DIRS_model model model/arch)
set(HEARTH_LAYER_DEPS_model base quant io tokenizer chat)
set(HEARTH_LAYER_DIRS_sampling sampling)
set(HEARTH_LAYER_DEPS_sampling base)
set(HEARTH_LAYER_DIRS_backend backend backend/cpu backend/cpu/simd)
set(HEARTH_LAYER_DEPS_backend base quant model sampling)
set(HEARTH_LAYER_DIRS_export export)
set(HEARTH_LAYER_DEPS_export base quant io tokenizer model)
set(HEARTH_LAYER_DIRS_synth synth)
set(HEARTH_LAYER_DEPS_synth base quant io tokenizer model sampling)
set(HEARTH_LAYER_DIRS_runtime runtime)
set(HEARTH_LAYER_DEPS_runtime base quant io tokenizer chat model sampling backend export synth)

