// A float32 .npy reader for the tests that compare against numpy references (transformers'
// logits in tests/data/hf-reference).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hearth::test {

// A float32 .npy array: shape and values (little-endian '<f4', C order only).
struct NpyArray {
    std::vector<int64_t> shape;
    std::vector<float> values;
};

// Reads `path` (little-endian '<f4', C order only); false with `error` set otherwise.
bool readNpyF32(const std::filesystem::path& path, NpyArray& out, std::string& error);

} // namespace hearth::test
