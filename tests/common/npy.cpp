#include "npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace hearth::test {

bool readNpyF32(const std::filesystem::path& path, NpyArray& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open";
        return false;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
        error = "not a .npy file";
        return false;
    }
    const auto major = static_cast<uint8_t>(bytes[6]);
    size_t headerLen = 0, offset = 0;
    if (major == 1) {
        headerLen = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
        offset = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) {
            error = "truncated header";
            return false;
        }
        for (int i = 0; i < 4; ++i) headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
        offset = 12;
    } else {
        error = "unknown .npy version " + std::to_string(major);
        return false;
    }
    if (offset + headerLen > bytes.size()) {
        error = "truncated header";
        return false;
    }
    const std::string header = bytes.substr(offset, headerLen);
    if (header.find("'descr': '<f4'") == std::string::npos) {
        error = "dtype is not '<f4': " + header;
        return false;
    }
    if (header.find("'fortran_order': False") == std::string::npos) {
        error = "not C order: " + header;
        return false;
    }
    const size_t open = header.find("'shape': (");
    const size_t close = open == std::string::npos ? open : header.find(')', open);
    if (close == std::string::npos) {
        error = "no shape: " + header;
        return false;
    }
    std::string dims = header.substr(open + 10, close - open - 10);
    std::replace(dims.begin(), dims.end(), ',', ' ');
    std::istringstream dimStream(dims);
    int64_t count = 1;
    for (int64_t d; dimStream >> d;) {
        out.shape.push_back(d);
        count *= d;
    }
    const size_t dataStart = offset + headerLen;
    if (bytes.size() - dataStart != size_t(count) * sizeof(float)) {
        error = "data size " + std::to_string(bytes.size() - dataStart) + " does not match the shape";
        return false;
    }
    out.values.resize(size_t(count));
    std::memcpy(out.values.data(), bytes.data() + dataStart, size_t(count) * sizeof(float));
    return true;
}

} // namespace hearth::test
