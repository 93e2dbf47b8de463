// hearth-cli: the engine from the command line. JSON only on stdout; errors are one line on
// stderr with a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli_args.h"

namespace {

const char* kUsage =
    "usage: hearth-cli COMMAND [options]        (hearth-cli COMMAND --help: its options)\n"
    "\n"
    "commands:\n"
    "  run       generate from a prompt (text or token ids); --json for scripts\n"
    "  chat      an interactive chat in the terminal\n"
    "  serve     an OpenAI-compatible HTTP server (chat and text completions)\n"
    "  template  the exact prompt a chat sends for a conversation given as JSON\n"
    "  inspect   what a model file is and how much memory it needs\n"
    "  bench     prefill and decode speed, memory, and the fraction of the bandwidth bound\n"
    "  quantize  write a model with a quant preset applied\n"
    "  synth     a random-weight model of a real shape, for measurements\n"
    "  tokenize  text from stdin to token ids, or back with --decode\n"
    "  devices   the CPU and the NVIDIA GPUs this machine offers\n"
    "\n"
    "MODEL is a .gguf file or a Hugging Face folder (config.json + safetensors).\n"
    "PRESET (--quant, alias --type): F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q4_K_M, Q5_K_M.\n"
    "Errors are one line on stderr; exit code 1 for a failure, 2 for a usage error.\n"
    "hearth-cli --version prints the version.\n";

const char* kSampling =
    "  --temp T              temperature, a number >= 0 (0 = greedy)\n"
    "  --top-k K             keep the K likeliest tokens, an integer >= 0 (0 = off)\n"
    "  --top-p P             nucleus sampling, a number in (0, 1] (1 = off)\n"
    "  --min-p P             drop tokens below P x the likeliest, a number in [0, 1] (0 = off)\n"
    "  --repeat-penalty R    a number > 0 (1 = off)\n"
    "  --seed S              an integer >= 0; the same seed gives the same sample\n";

const char* kDevice =
    "  --device auto|cpu|cuda where to run (default auto: CUDA when a usable GPU is present, else the\n"
    "                        CPU; the summary line says which and why)\n"
    "  --gpu N               the CUDA device number (default 0)\n"
    "  --cpu-kernels fast|reference  the CPU backend's matrix products: SIMD kernels on 8-bit\n"
    "                        activations (default) or the fp32 reference\n"
    "  --kv-type f16|bf16|f32 the KV cache's element type, on either backend (default f16; f32 for\n"
    "                        results to compare with a reference)\n"
    "  --vram-budget GiB     GPU memory to stay within (e.g. 22.5 for a 24 GB card with a desktop):\n"
    "                        a model + context that would not fit is refused before loading, with\n"
    "                        the longest context that would\n";

const char* kContext =
    "  --ctx N               context length in tokens (0 = the model's, capped by what fits in the\n"
    "                        GPU's free memory or --vram-budget); more than the model was trained\n"
    "                        for (or its RoPE scaling reaches) is refused\n"
    "  --allow-long-context  run a longer --ctx anyway (with a warning: quality degrades)\n";

struct CommandHelp {
    const char* name;
    std::string text;
};

const std::vector<CommandHelp>& commandHelp() {
    static const std::vector<CommandHelp> help = {
        {"run", std::string("usage: hearth-cli run -m MODEL (-p PROMPT | --prompt-ids IDS) [options]\n"
                            "Generates a continuation; the text streams to stdout, a summary line to stderr.\n\n"
                            "  -m, --model MODEL     a .gguf file or a Hugging Face folder\n"
                            "  -p, --prompt TEXT     the prompt (BOS added when the model uses one)\n"
                            "  --prompt-ids IDS      the prompt as token ids: 1,403,407 or \"1 403 407\"\n"
                            "  -n N                  tokens to generate at most, an integer >= 0 (default 128)\n") +
                    kSampling + kContext +
                    "  --stop-ids IDS        more token ids that end the generation\n"
                    "  --threads N           CPU threads, 0 to 1024 (0 = all hardware threads)\n" +
                    kDevice +
                    "  --quant PRESET        convert the weights at load (see hearth-cli --help for presets)\n"
                    "  --allow-requantize    let --quant convert already-quantized weights (loses quality)\n"
                    "  --logits-out FILE.npy the logits after each token the model ran (the prompt, then each\n"
                    "                        reply token fed back), float32 [tokens x vocab]\n"
                    "  --json                one JSON object on stdout: ids, text, stop (eos, length, context,\n"
                    "                        stop_string, cancel), rates in tok/s (null when undefined)\n"},
        {"chat", std::string("usage: hearth-cli chat -m MODEL [options]\n"
                             "An interactive chat with the model's own chat template. Commands: /reset, /regen,\n"
                             "/stats, /exit; Ctrl-C stops a reply. Sampling starts from what the model's files\n"
                             "recommend (generation_config.json, general.sampling.*), else Qwen's chat settings;\n"
                             "the options below override either.\n\n"
                             "  -m, --model MODEL     a .gguf file or a Hugging Face folder\n"
                             "  --system TEXT         the system prompt (ignored, with a warning, by a model\n"
                             "                        without a chat template)\n"
                             "  -n N                  the longest reply in tokens, 1 to 1048576 (default 1024)\n"
                             "  --no-think            ask thinking models to answer directly\n"
                             "  --drop-old            drop the oldest turns when the context is full (default:\n"
                             "                        refuse the message)\n") +
                     kSampling + kContext + kDevice +
                     "  --threads N           CPU threads, 0 to 1024 (0 = all hardware threads)\n"
                     "  --quant PRESET        convert the weights at load\n"},
        {"serve", std::string("usage: hearth-cli serve -m MODEL [options]\n"
                              "Serves the model over HTTP with OpenAI's API: GET /v1/models, POST /v1/chat/completions\n"
                              "and /v1/completions (\"stream\": true for Server-Sent Events), GET /health. One request\n"
                              "runs at a time; the others wait in a bounded queue. A client that disconnects cancels\n"
                              "its generation. stdout gets {\"url\", \"model\", \"context_length\"} once it listens;\n"
                              "Ctrl-C stops it. Sampling starts from what the model's files recommend; requests\n"
                              "override it.\n\n"
                              "  -m, --model MODEL     a .gguf file or a Hugging Face folder\n"
                              "  --host HOST           the address to listen on (default 127.0.0.1; any other than\n"
                              "                        loopback needs --api-key)\n"
                              "  --port N              the port, 0 to 65535 (default 8080; 0 = any free port)\n"
                              "  --api-key KEY         require \"Authorization: Bearer KEY\" (at least 8 characters; the\n"
                              "                        environment variable HEARTH_API_KEY keeps it out of `ps`)\n"
                              "  --cors                let web pages of any origin call the server\n"
                              "  --queue N             requests that may wait while one runs, 0 to 1024 (default 8);\n"
                              "                        more get 503\n"
                              "  --chat-template FILE  a Jinja chat template to use instead of the model's\n") +
                      kContext + kDevice +
                      "  --threads N           CPU threads, 0 to 1024 (0 = all hardware threads)\n"
                      "  --quant PRESET        convert the weights at load\n"},
        {"template", "usage: hearth-cli template -m MODEL --messages FILE.json [options]\n"
                     "Prints exactly the prompt a chat sends for the conversation: the model's chat template\n"
                     "rendered (text typed in messages never becomes a control token).\n\n"
                     "  -m, --model MODEL        a .gguf file or a Hugging Face folder\n"
                     "  --messages FILE.json     a list of {\"role\", \"content\", ...} (tool_calls and other keys\n"
                     "                           pass through), or a request body {\"messages\": [...], \"tools\": [...]}\n"
                     "  --tools FILE.json        a list of tool definitions\n"
                     "  --no-think               enable_thinking = false\n"
                     "  --no-generation-prompt   do not open the assistant's reply at the end\n"
                     "  --json                   {\"text\", \"ids\" (the tokens a chat sends), \"has_template\",\n"
                     "                           \"exact\"} instead of the bare text\n"},
        {"inspect", "usage: hearth-cli inspect -m MODEL [options]\n"
                    "Hyperparameters, tensor types and a memory estimate, read from the header only; for the\n"
                    "CPU also the decode speed its read bandwidth (measured now) allows.\n\n"
                    "  -m, --model MODEL     a .gguf file or a Hugging Face folder\n"
                    "  --ctx N               the context to estimate for (0 = the model's trained context)\n"
                    "  --device auto|cpu|cuda the device to estimate for (default auto: CUDA device --gpu when\n"
                    "                        usable, else the CPU), by that backend's own allocation rules\n"
                    "  --gpu N               the CUDA device number (default 0)\n"
                    "  --kv-type f16|bf16|f32 the KV cache's element type (default f16, as run and chat)\n"
                    "  --quant PRESET        estimate the weights as the preset makes them; also list its plan\n"
                    "  --json                one JSON object on stdout\n"},
        {"bench", std::string("usage: hearth-cli bench (-m MODEL | --synth SHAPE) [options]\n"
                              "Prefill and decode speed, time to first token, memory by category, and decode against\n"
                              "the bandwidth bound: bytes per token computed from the model (the weights a step\n"
                              "reads + the KV cache at --depth) over the device's bandwidth (4.5 TB/s measured on\n"
                              "the H200, its 4.8 TB/s spec beside it). Prompts are seeded random token ids.\n\n"
                              "  -m, --model MODEL     a .gguf file or a Hugging Face folder\n"
                              "  --synth SHAPE         a synth model of that shape (hearth-cli synth --help), written\n"
                              "                        to a temporary file in --quant's types (default F16), removed after\n"
                              "  --quant PRESET        -m: convert at load; --synth: the weights' types\n"
                              "  -p N                  prompt tokens for the prefill rate, 1 to 1048576 (default 512)\n"
                              "  -n N                  tokens generated per decode run, 2 to 1048576 (default 128)\n"
                              "  --depth D             tokens in the cache before decoding (default -p)\n"
                              "  --reps R              runs of each; the rates are their medians (default 5)\n") +
                      kDevice +
                      "  --threads N           CPU threads, 0 to 1024 (0 = all hardware threads)\n"
                      "  --bandwidth-gbps B    the device's bandwidth in GB/s, for the bound where it is not known\n"
                      "  --json                one JSON object on stdout\n\n"
                      "hearth-cli bench --matvec TYPE [--rows R --cols C --tokens N --reps R --threads N\n"
                      "                 --cpu-kernels fast|reference --json]\n"
                      "One CPU matrix product alone: a random R x C matrix of TYPE (Q4_K, Q8_0, F16, ...;\n"
                      "default 4096 x 4096) times N vectors (default 1), its median time over --reps runs\n"
                      "(default 50) in GB/s of weights, beside the machine's measured read bandwidth.\n\n"
                      "hearth-cli bench --pool [--reps R --threads N --json]\n"
                      "The CPU thread pool's cost per job: empty jobs split in fixed parts and in claimed\n"
                      "ranges, as a decode step splits its products; medians over --reps (default 1000).\n"},
        {"quantize", "usage: hearth-cli quantize IN OUT.gguf --quant PRESET [options]\n"
                     "Writes IN (a GGUF or a Hugging Face folder) with the preset applied, as a GGUF.\n\n"
                     "  --quant PRESET        F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q4_K_M, Q5_K_M\n"
                     "  --allow-requantize    convert already-quantized weights too (loses quality)\n"
                     "  --threads N           0 to 1024 (0 = all hardware threads)\n"
                     "  --json                a JSON summary on stdout\n"},
        {"synth", "usage: hearth-cli synth (--shape NAME | --config config.json) --quant PRESET --seed S OUT.gguf\n"
                  "Random weights of a real shape, for speed and memory measurements; JSON summary on stdout.\n\n"
                  "  --shape NAME          llama-3-8b, llama-3.1-8b, qwen2.5-7b, qwen2.5-32b, qwen3-8b,\n"
                  "                        qwen3-32b, tiny-llama, tiny-qwen2, tiny-qwen3, small-100m,\n"
                  "                        qwen3.5-27b, qwen3.5-9b, tiny-qwen35\n"
                  "  --config FILE         a Hugging Face config.json instead of a shape\n"
                  "  --layers N            fewer layers than the shape, 1 to 4096\n"
                  "  --tokenizer FILE      a real tokenizer.model or tokenizer.json (must fit the vocabulary)\n"
                  "  --tokenizer-pre NAME  tokenizer.json's pre-tokenizer when it cannot be told (qwen2, ...)\n"
                  "  --quant PRESET        the weights' types\n"
                  "  --seed S              an integer >= 0; the same seed gives the same bytes\n"
                  "  --threads N           0 to 4096 (0 = all hardware threads; never changes the output)\n"},
        {"tokenize", "usage: hearth-cli tokenize -m MODEL_OR_TOKENIZER [--json] [--decode]\n"
                     "Reads stdin verbatim and prints its token ids: no BOS is added, a trailing newline is a\n"
                     "token too (printf 'text', not echo), and special tokens written out (<|im_end|>) become\n"
                     "their ids. With --decode: ids (\"1 2 3\", 1,2,3 or {\"ids\": [...]}) back to text.\n\n"
                     "  -m, --model PATH      a model, tokenizer.json or tokenizer.model\n"
                     "  --json                {\"ids\": [...]} (or {\"text\": ...} with --decode)\n"
                     "  --decode              ids to text\n"},
        {"devices", "usage: hearth-cli devices [--json]\n"
                    "The CPU and each usable NVIDIA GPU, with memory; why CUDA is unavailable when it is.\n\n"
                    "  --json                one JSON object on stdout\n"},
    };
    return help;
}

const CommandHelp* findHelp(const std::string& command) {
    for (const CommandHelp& h : commandHelp())
        if (command == h.name) return &h;
    return nullptr;
}

bool asksForHelp(const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

} // namespace

int devicesCommand(const std::vector<std::string>& args);

// A build without cpp-httplib (-DHEARTH_SERVER=OFF) has no server.
int serveCommandOrMissing(const std::vector<std::string>& args) {
#ifdef HEARTH_HAS_SERVER
    return hearth::cli::serveCommand(args);
#else
    (void)args;
    return hearth::cli::fail(hearth::unsupported("this hearth-cli was built without the server (cpp-httplib was missing)"));
#endif
}

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::printf("hearth-cli %s\n", HEARTH_VERSION);
        return 0;
    }
    if (args[0] == "help") { // "help" alone, or "help COMMAND"
        const CommandHelp* h = args.size() > 1 ? findHelp(args[1]) : nullptr;
        std::fputs(h ? h->text.c_str() : kUsage, stdout);
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    const CommandHelp* help = findHelp(command);
    if (!help) {
        std::string names;
        for (const CommandHelp& h : commandHelp()) names += (names.empty() ? "" : ", ") + std::string(h.name);
        return hearth::cli::usageError("unknown command '" + command + "'; expected one of " + names);
    }
    hearth::cli::setCommandName(command);
    if (asksForHelp(args)) {
        std::fputs(help->text.c_str(), stdout);
        return 0;
    }
    if (command == "run") return hearth::cli::runCommand(args);
    if (command == "chat") return hearth::cli::chatCommand(args);
    if (command == "serve") return serveCommandOrMissing(args);
    if (command == "template") return hearth::cli::templateCommand(args);
    if (command == "inspect") return hearth::cli::inspectCommand(args);
    if (command == "bench") return hearth::cli::benchCommand(args);
    if (command == "tokenize") return hearth::cli::tokenizeCommand(args);
    if (command == "quantize") return hearth::cli::quantizeCommand(args);
    if (command == "synth") return hearth::cli::synthCommand(args);
    return devicesCommand(args);
}
