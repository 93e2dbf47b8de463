// hearth-cli tokenize with a byte-level BPE tokenizer.json (Qwen3): ids as HF encode(text,
// add_special_tokens=False) gives them, --decode back to text, and a broken tokenizer.json
// answered by one line on stderr naming the file.

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
using Outcome = test::CliOutcome;
using test::cli;
namespace fs = std::filesystem;

int main() {
    test::announce("bpe_cli", "cpu");
    const fs::path dir = test::startCliTest("bpe_cli");
    const auto json = test::requireTestData("models/qwen3-tokenizer/tokenizer.json");

    {   // echo -n "Hello world" | hearth-cli tokenize -m tokenizer.json --json
        const Outcome o = cli("tokenize -m " + json.string() + " --json", "Hello world");
        CHECK_EQ(o.exitCode, 0);
        CHECK_EQ(o.out, std::string("{\"ids\":[9707,1879]}\n"));
    }
    {   // The folder works too; special tokens in the input are parsed (as HF encode does).
        const Outcome o = cli("tokenize -m " + json.parent_path().string(), "<|im_start|>user\nHi<|im_end|>");
        CHECK_EQ(o.exitCode, 0);
        CHECK_EQ(o.out, std::string("151644 872 198 13048 151645\n"));
    }
    {   // --decode: byte-level pieces back to text; control tokens add nothing.
        const Outcome o = cli("tokenize -m " + json.string() + " --decode --json", "{\"ids\":[151644,9707,1879,151645]}");
        CHECK_EQ(o.exitCode, 0);
        CHECK_EQ(o.out, std::string("{\"text\":\"Hello world\"}\n"));
    }
    {   // A broken tokenizer.json: one line on stderr naming the file, nothing on stdout.
        const fs::path bad = dir / "tokenizer.json";
        std::ofstream(bad) << "{\"model\": {\"type\": \"BPE\", ";
        const Outcome o = cli("tokenize -m " + bad.string(), "Hello");
        CHECK_MSG(o.exitCode > 0 && o.exitCode != 124, "exited with " << o.exitCode);
        CHECK(o.out.empty());
        CHECK_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1);
        CHECK_MSG(o.err.find(bad.string() + ": invalid JSON") != std::string::npos, o.err);
    }
    return test::finish();
}
