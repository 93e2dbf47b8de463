// hearth-cli: the engine from the command line. JSON only on stdout; errors are one line on
// stderr with a non-zero exit code.
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli_args.h"

namespace {

const char* kUsage =
    "usage: hearth-cli COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run -m MODEL (-p PROMPT | --prompt-ids 1,410,...) -n N [--temp T] [--top-k K] [--top-p P]\n"
    "      [--min-p P] [--repeat-penalty R] [--seed S] [--threads N] [--ctx N] [--device cpu|cuda]\n"
    "      [--stop-ids a,b] [--logits-out FILE.npy] [--quant PRESET [--allow-requantize]] [--json]\n"
    "  chat -m MODEL [--system TEXT] [--quant PRESET] [--ctx N] [--temp T] [--top-k K] [--top-p P]\n"
    "      [--min-p P] [--repeat-penalty R] [--seed S] [-n MAX_REPLY_TOKENS] [--no-think] [--drop-old]\n"
    "      (interactive; /reset /regen /stats)\n"
    "  inspect -m MODEL [--ctx N] [--kv-type f32|f16] [--quant PRESET] [--json]\n"
    "  quantize IN OUT.gguf --quant PRESET [--allow-requantize] [--threads N] [--json]\n"
    "  synth (--shape NAME | --config config.json) [--layers N] [--tokenizer FILE]\n"
    "      [--tokenizer-pre NAME] --quant PRESET --seed S [--threads N] OUT.gguf\n"
    "      (random weights of a real shape; NAME: llama-3-8b, llama-3.1-8b, qwen2.5-7b, qwen2.5-32b,\n"
    "      qwen3-8b, qwen3-32b, tiny-llama, tiny-qwen2, tiny-qwen3, small-100m)\n"
    "  tokenize -m MODEL_OR_TOKENIZER [--json] [--decode]   (reads stdin)\n"
    "  devices [--json]\n"
    "\n"
    "MODEL is a .gguf file or a Hugging Face folder (config.json + safetensors).\n"
    "PRESET (--quant, alias --type): F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q4_K_M, Q5_K_M.\n";

} // namespace

int devicesCommand(const std::vector<std::string>& args);

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return hearth::cli::runCommand(args);
    if (command == "chat") return hearth::cli::chatCommand(args);
    if (command == "inspect") return hearth::cli::inspectCommand(args);
    if (command == "tokenize") return hearth::cli::tokenizeCommand(args);
    if (command == "quantize") return hearth::cli::quantizeCommand(args);
    if (command == "synth") return hearth::cli::synthCommand(args);
    if (command == "devices") return devicesCommand(args);
    return hearth::cli::usageError("unknown command '" + command + "'");
}
