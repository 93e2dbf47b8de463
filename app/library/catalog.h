// The model catalog (resources/catalog.json): model families, each with its quant variants and
// the files of each variant on Hugging Face. Parsed strictly: a catalog with any malformed entry
// is refused whole, with an error that names the entry and the field. File paths are checked so
// that nothing from the catalog can name a file outside the models folder. Plain values; any
// thread. docs/CATALOG.md describes the format and where each fact came from.
#pragma once

#include <QList>
#include <QString>

// One file of a variant. Sizes and hashes are only what the publisher's file listing shows:
// unknown stays unknown (-1 / empty), never guessed.
struct CatalogFile {
    QString repo;          // "Qwen/Qwen3-8B-GGUF"
    QString path;          // inside the repo, '/'-separated plain segments: "Q8_0/x-00001-of-00002.gguf"
    qint64 sizeBytes = -1; // -1: unknown
    QString sha256;        // 64 lower-case hex digits; empty: unknown
    // A file whose presence in the repository was not checked (generation_config.json): a 404
    // for it is skipped. Never the weights, config.json or the safetensors index.
    bool optional = false;
    // The last segment of `path`: the name the file gets on disk (never a path).
    QString fileName() const;
    // Where to download it: {endpoint}/{repo}/resolve/{revision}/{path}. `endpoint` without a
    // trailing slash ("https://huggingface.co" or a mirror, HEARTH_HF_ENDPOINT).
    QString url(const QString& endpoint, const QString& revision = QStringLiteral("main")) const;
};

// What a family's config.json publishes about its shape: what the memory estimate needs before
// any file exists. A size the catalog does not know is 0; such a shape gives no estimate.
struct CatalogShape {
    QString architecture;  // "llama", "qwen2", "qwen3", "qwen35"
    int layers = 0, hidden = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0, ffn = 0;
    int context = 0;       // trained maximum (max_position_embeddings)
    bool tiedEmbeddings = false;
    int ropeDims = 0;      // rotated dimensions per head (partial rotary); 0: the whole head
    // The Gated DeltaNet layers of a hybrid architecture (qwen35), config.json's linear_* keys.
    int linearKeyHeads = 0, linearValueHeads = 0, linearKeyDim = 0, linearValueDim = 0;
    int linearConvKernel = 0;      // 0: not stated (the engine's default, 4)
    int fullAttentionInterval = 0; // 0: not stated (the engine's default, 4)

    bool hybrid() const { return linearKeyHeads > 0; }
    // Every size an estimate needs is known (the parser requires a hybrid architecture's DeltaNet
    // sizes wherever its attention sizes are given).
    bool sizesKnown() const
    {
        return layers > 0 && hidden > 0 && heads > 0 && kvHeads > 0 && headDim > 0 && vocab > 0 && ffn > 0 && context > 0;
    }
};
// The architectures whose shape needs the DeltaNet sizes: their layers are not all attention.
bool isHybridArchitecture(const QString& architecture);

struct CatalogVariant {
    QString familyId;      // "qwen3-8b"
    QString quant;         // "Q4_K_M", "Q8_0", "BF16" (as the engine's presets spell them)
    QString format;        // "gguf" (one file, or the parts of a split GGUF) or "safetensors"
                           // (a Hugging Face folder: config, tokenizer, weights)
    QString revision = QStringLiteral("main");
    QList<CatalogFile> files; // a split GGUF: its parts in order, part 1 first
    QString license;       // SPDX-like id ("apache-2.0"), or "other" with licenseUrl
    QString licenseUrl;
    QString requiresArch;      // an architecture the engine must support first ("qwen35"); empty: none
    // Safetensors only: the shard files are not listed; the downloader reads them from the
    // variant's model.safetensors.index.json (its weight_map) once that file is in.
    bool shardsFromIndex = false;

    QString id() const { return familyId + QLatin1Char(':') + quant; } // "qwen3-8b:Q4_K_M"
    // Sum of the files, or -1 when any size is unknown (always, with shardsFromIndex).
    qint64 totalBytes() const;
    // Where the model lives in the models folder, relative to it: the first GGUF's file name, or
    // for safetensors the folder the files go in ("Qwen3-8B"). Always a single plain segment.
    QString localName() const;
};

struct CatalogFamily {
    QString id;            // "qwen3-8b": lower case, digits, '.', '-'
    QString name;          // "Qwen3 8B"
    QString publisher;     // "Qwen"
    QString released;      // "2025-04-29"; empty: unknown
    QString summary;       // one line for the library page; optional
    qint64 parameters = 0; // as the model card states it
    QString license, licenseUrl;
    QString requiresArch;      // as CatalogVariant::requiresArch, for every variant
    QString sourceUrl;     // the model card the facts came from
    CatalogShape shape;
    QList<CatalogVariant> variants;
};

class Catalog
{
public:
    static constexpr int kSchemaVersion = 1;
    static constexpr qint64 kMaxFileBytes = 2'000'000'000'000; // 2 TB: larger is a typo

    // The whole catalog, or false with `error` naming the entry and field
    // ("families[3] (qwen3-8b).variants[1] (Q4_K_M).files[0].path: '..' is not allowed").
    bool parse(const QByteArray& json, QString* error);
    // Reads `path` (a file or a qrc path) and parses it.
    bool load(const QString& path, QString* error);

    const QList<CatalogFamily>& families() const { return m_families; }
    const CatalogFamily* family(const QString& id) const;
    // "FAMILY:QUANT" (quant case-insensitive: "qwen3-8b:q4_k_m"); nullptr with `error` saying
    // what is wrong and what exists.
    const CatalogVariant* resolve(const QString& spec, QString* error = nullptr) const;

    // The built-in catalog (resources/catalog.json, compiled in).
    static QString builtInPath();
    // Which catalog to read: HEARTH_CATALOG when set, else `setting` when not empty, else the
    // built-in one.
    static QString choosePath(const QString& setting);

private:
    QList<CatalogFamily> m_families;
};

// A file name from the catalog or the network as it may be used on disk: one plain segment, no
// "..", no leading '.', no '/', '\\', ':' or control characters. False with `why` otherwise.
bool isSafeFileName(const QString& name, QString* why = nullptr);
