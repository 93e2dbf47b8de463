// Models split into several GGUF files (llama.cpp's gguf-split, PREFIX-00001-of-0000N.gguf):
// opened as one GgufFile whose tensors point into their own parts.
#include <cstdio>
#include <regex>
#include <set>

#include "io/gguf.h"
#include "io/gguf_keys.h"

namespace hearth::io {
namespace {

std::string partPath(const std::string& prefix, int number, int count) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", number, count);
    return prefix + suffix;
}

// split.no and split.count of a part: (0, 1) when the keys are absent.
Status splitKeys(const GgufFile& f, uint64_t& no, uint64_t& count) {
    no = 0;
    count = 1;
    if (f.find(gguf_key::kSplitCount)) {
        HEARTH_ASSIGN(count, f.getUInt(gguf_key::kSplitCount));
        HEARTH_ASSIGN(no, f.getUInt(gguf_key::kSplitNo));
    }
    if (count < 1 || count > 9999 || no >= count)
        return dataLoss(f.path() + ": split.no " + std::to_string(no) + " of split.count " + std::to_string(count) +
                        " is not a part of a split model");
    return Status::ok();
}

} // namespace

std::vector<std::shared_ptr<const MappedFile>> GgufFile::mappings() const {
    std::vector<std::shared_ptr<const MappedFile>> all{m_file};
    all.insert(all.end(), m_parts.begin(), m_parts.end());
    return all;
}

Result<GgufFile> GgufFile::openModel(const std::string& path) {
    HEARTH_ASSIGN(GgufFile first, open(path));
    uint64_t no = 0, count = 1;
    HEARTH_TRY(splitKeys(first, no, count));
    if (count == 1) return first;
    static const std::regex kName(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
    std::smatch m;
    if (!std::regex_match(path, m, kName) || std::stoull(m[3].str()) != count)
        return dataLoss(path + ": split.count is " + std::to_string(count) + ", but the file is not named PREFIX-" +
                        partPath("", 1, int(count)).substr(1) + " as the parts of a split model are");
    const std::string prefix = m[1].str();
    if (no != 0)
        return invalidArgument(path + " is part " + std::to_string(no + 1) + " of " + std::to_string(count) +
                               " of a split model: open the first part, " + partPath(prefix, 1, int(count)));

    std::set<std::string> names;
    for (const GgufTensorInfo& t : first.m_tensors) names.insert(t.name);
    for (int k = 2; k <= int(count); ++k) {
        const std::string p = partPath(prefix, k, int(count));
        auto part = open(p);
        if (!part.isOk()) {
            if (part.status().code() == StatusCode::NotFound)
                return notFound(path + ": part " + std::to_string(k) + " of " + std::to_string(count) +
                                " of this split model is missing: " + p);
            return part.status();
        }
        uint64_t partNo = 0, partCount = 1;
        HEARTH_TRY(splitKeys(part.value(), partNo, partCount));
        if (partNo != uint64_t(k - 1) || partCount != count)
            return dataLoss(p + ": says it is part " + std::to_string(partNo + 1) + " of " + std::to_string(partCount) +
                            ", expected part " + std::to_string(k) + " of " + std::to_string(count));
        for (const GgufTensorInfo& t : part.value().m_tensors) {
            if (!names.insert(t.name).second)
                return dataLoss(p + ": tensor " + t.name + " is also in another part of the split model");
            first.m_tensors.push_back(t);
        }
        first.m_parts.push_back(part.value().m_file);
    }
    if (first.find(gguf_key::kSplitTensorsCount)) {
        HEARTH_ASSIGN(const uint64_t expected, first.getUInt(gguf_key::kSplitTensorsCount));
        if (expected != first.m_tensors.size())
            return dataLoss(path + ": split.tensors.count says " + std::to_string(expected) + " tensors, the " +
                            std::to_string(count) + " parts hold " + std::to_string(first.m_tensors.size()));
    }
    return first;
}

} // namespace hearth::io
