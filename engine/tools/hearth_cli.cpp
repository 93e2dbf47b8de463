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
    "      [--stop-ids a,b] [--logits-out FILE.npy] [--json]\n"
    "  inspect -m MODEL [--ctx N] [--kv-type f32|f16] [--json]\n"
    "  tokenize -m MODEL_OR_TOKENIZER [--json] [--decode]   (reads stdin)\n"
    "  devices [--json]\n"
    "\n"
    "MODEL is a .gguf file or a Hugging Face folder (config.json + safetensors).\n";

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
    if (command == "inspect") return hearth::cli::inspectCommand(args);
    if (command == "tokenize") return hearth::cli::tokenizeCommand(args);
    if (command == "devices") return devicesCommand(args);
    return hearth::cli::usageError("unknown command '" + command + "'");
}
