// The model catalog: the built-in resources/catalog.json parses and says what the library needs;
// malformed catalogs (missing fields, wrong types, absurd sizes, path-like or hidden file names,
// bad hashes, wrong schema versions) are refused with an error that names the entry and field;
// thousands of random corruptions never crash the parser nor let an unsafe name through. Variants
// whose shards come from their index, optional files, and that index (shardindex.h) as the
// untrusted file it is.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include "catalog.h"
#include "shardindex.h"

namespace {

// A valid one-family catalog; each bad case edits a copy of it.
QJsonObject validCatalog()
{
    const QJsonObject file{{"repo", "Owner/Model-GGUF"}, {"path", "Model-Q4_K_M.gguf"}, {"size", 1000},
                           {"sha256", QString(64, QLatin1Char('a'))}};
    const QJsonObject variant{{"quant", "Q4_K_M"}, {"format", "gguf"}, {"files", QJsonArray{file}}};
    const QJsonObject shape{{"architecture", "qwen3"}, {"layers", 2}, {"hidden", 64}, {"heads", 4}, {"kvHeads", 2},
                            {"headDim", 16}, {"vocab", 256}, {"ffn", 128}, {"context", 2048}};
    const QJsonObject family{{"id", "fam"}, {"name", "Family"}, {"license", "apache-2.0"}, {"shape", shape},
                             {"variants", QJsonArray{variant}}};
    return {{"schemaVersion", 1}, {"families", QJsonArray{family}}};
}

QByteArray bytes(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// validCatalog() as a qwen35 family: 8 layers, every 4th attention, DeltaNet 4 key / 8 value heads.
QByteArray hybridCatalog()
{
    QJsonObject o = validCatalog();
    QJsonArray families = o["families"].toArray();
    QJsonObject family = families[0].toObject();
    QJsonObject shape = family["shape"].toObject();
    shape["architecture"] = "qwen35";
    shape["layers"] = 8;
    shape["ropeDims"] = 4;
    shape["linearKeyHeads"] = 4;
    shape["linearValueHeads"] = 8;
    shape["linearKeyDim"] = 16;
    shape["linearValueDim"] = 16;
    shape["fullAttentionInterval"] = 4;
    family["shape"] = shape;
    families[0] = family;
    o["families"] = families;
    return bytes(o);
}

// Sets the value at `path` ("families/0/variants/0/files/0/path"); an undefined value removes it.
QJsonValue edited(const QJsonValue& node, QStringList path, const QJsonValue& value)
{
    const QString key = path.takeFirst();
    if (node.isArray()) {
        QJsonArray a = node.toArray();
        const int i = key.toInt();
        a[i] = path.isEmpty() ? value : edited(a[i], path, value);
        return a;
    }
    QJsonObject o = node.toObject();
    if (path.isEmpty()) {
        if (value.isUndefined())
            o.remove(key);
        else
            o[key] = value;
    } else {
        o[key] = edited(o[key], path, value);
    }
    return o;
}

QByteArray with(const QString& path, const QJsonValue& value)
{
    return bytes(edited(validCatalog(), path.split(QLatin1Char('/')), value).toObject());
}

// validCatalog() with a 16-bit source whose shards come from its index: config.json, an optional
// generation_config.json, the index.
QJsonObject indexedCatalog()
{
    const auto file = [](const char* path) { return QJsonObject{{"repo", "Owner/Model"}, {"path", path}}; };
    QJsonObject generation = file("generation_config.json");
    generation["optional"] = true;
    const QJsonObject variant{{"quant", "BF16"}, {"format", "safetensors"}, {"shardsFromIndex", true},
                              {"files", QJsonArray{file("config.json"), generation, file("model.safetensors.index.json")}}};
    return edited(validCatalog(), {"families", "0", "variants", "0"}, variant).toObject();
}

QByteArray indexedWith(const QString& path, const QJsonValue& value)
{
    return bytes(edited(indexedCatalog(), path.split(QLatin1Char('/')), value).toObject());
}

// `catalog` with one more file in its first variant.
QJsonObject withFile(const QJsonObject& catalog, const QString& path)
{
    QJsonArray files = catalog["families"][0]["variants"][0]["files"].toArray();
    files.append(QJsonObject{{"repo", "Owner/Model"}, {"path", path}});
    return edited(catalog, {"families", "0", "variants", "0", "files"}, files).toObject();
}

const QString kFile = QStringLiteral("families/0/variants/0/files/0/");
const QString kFileAt = QStringLiteral("families[0] (fam).variants[0] (Q4_K_M).files[0].");

} // namespace

class TestCatalog : public QObject
{
    Q_OBJECT

private slots:
    void builtInCatalog();
    void resolvesFamilyAndQuant();
    void validCatalogParses();
    void malformedCatalogs_data();
    void malformedCatalogs();
    void splitGgufParts();
    void shardsFromIndex();
    void shardIndexFiles();
    void safeFileNames();
    void catalogLocation();
    void randomCorruptionsNeverCrash();
};

void TestCatalog::builtInCatalog()
{
    Catalog catalog;
    QString error;
    QVERIFY2(catalog.load(Catalog::builtInPath(), &error), qPrintable(error));
    // What the issue asks the catalog to hold, at least.
    for (const char* id : {"qwen3.6-27b", "qwen3.5-27b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen2.5-7b-instruct",
                           "qwen2.5-32b-instruct", "llama-3.1-8b-instruct"})
        QVERIFY2(catalog.family(QString::fromLatin1(id)), id);
    int smallerQwen35 = 0;
    for (const CatalogFamily& f : catalog.families()) {
        const bool smaller = f.id.startsWith(QStringLiteral("qwen3.5-")) && f.id != QStringLiteral("qwen3.5-27b");
        smallerQwen35 += smaller ? 1 : 0;
        // Hearth runs every architecture of the catalog; only the smaller Qwen3.5 sizes are unknown.
        QVERIFY2(f.requiresArch.isEmpty(), qPrintable(f.id));
        QCOMPARE(f.shape.sizesKnown(), !smaller);
        if (f.shape.architecture == QStringLiteral("qwen35") && !smaller)
            QVERIFY2(f.shape.linearKeyHeads > 0 && f.shape.linearValueHeads > 0 && f.shape.linearKeyDim > 0 &&
                         f.shape.linearValueDim > 0,
                     qPrintable(f.id));
        for (const CatalogVariant& v : f.variants) {
            QVERIFY(!v.license.isEmpty());
            QVERIFY(isSafeFileName(v.localName()));
            for (const CatalogFile& file : v.files)
                QVERIFY(file.sizeBytes == -1 || file.sizeBytes > 0);
        }
    }
    QVERIFY(smallerQwen35 >= 2);
    // Qwen3.6-27B: the qwen35 sizes of engines.md §4a, DeltaNet included.
    const CatalogShape& q36 = catalog.family(QStringLiteral("qwen3.6-27b"))->shape;
    QCOMPARE(q36.layers, 64);
    QCOMPARE(q36.linearKeyHeads, 16);
    QCOMPARE(q36.linearValueHeads, 48);
    QCOMPARE(q36.linearKeyDim, 128);
    QCOMPARE(q36.linearValueDim, 128);
    QCOMPARE(q36.fullAttentionInterval, 4);
    QCOMPARE(q36.ropeDims, 64);
    // A published hash comes with the commit it belongs to, so that the download matches it.
    const CatalogVariant* pinned = catalog.resolve(QStringLiteral("qwen3-32b:Q4_K_M"));
    QVERIFY(pinned);
    QCOMPARE(pinned->revision.size(), 40);
    QCOMPARE(pinned->totalBytes(), qint64(19762149024));
    QCOMPARE(pinned->files.first().url(QStringLiteral("https://huggingface.co"), pinned->revision),
             QStringLiteral("https://huggingface.co/Qwen/Qwen3-32B-GGUF/resolve/%1/Qwen3-32B-Q4_K_M.gguf").arg(pinned->revision));
    // A Hugging Face source lands in a folder named after its repository.
    const CatalogVariant* source = catalog.resolve(QStringLiteral("qwen3-8b:BF16"));
    QVERIFY(source);
    QCOMPARE(source->localName(), QStringLiteral("Qwen3-8B"));
    QCOMPARE(source->totalBytes(), qint64(-1)); // sizes not published: unknown, not guessed
    QVERIFY(!source->shardsFromIndex);
    // The 27B 16-bit sources: shards from their index, two files optional, nothing else.
    for (const char* spec : {"qwen3.5-27b:BF16", "qwen3.6-27b:BF16"}) {
        const CatalogVariant* v = catalog.resolve(QString::fromLatin1(spec));
        QVERIFY2(v && v->shardsFromIndex, spec);
        QCOMPARE(v->format, QStringLiteral("safetensors"));
        QCOMPARE(v->revision, QStringLiteral("main"));
        QCOMPARE(v->totalBytes(), qint64(-1));
        QStringList required, optional;
        for (const CatalogFile& f : v->files) {
            QCOMPARE(f.repo, QStringLiteral("Qwen/") + v->localName());
            (f.optional ? optional : required) << f.path;
        }
        required.sort();
        optional.sort();
        QCOMPARE(required, (QStringList{"config.json", "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json"}));
        QCOMPARE(optional, (QStringList{"chat_template.jinja", "generation_config.json"}));
    }
    QCOMPARE(catalog.resolve(QStringLiteral("qwen3.6-27b:BF16"))->localName(), QStringLiteral("Qwen3.6-27B"));
}

void TestCatalog::resolvesFamilyAndQuant()
{
    Catalog catalog;
    QVERIFY(catalog.load(Catalog::builtInPath(), nullptr));
    const CatalogVariant* v = catalog.resolve(QStringLiteral("Qwen3-8B:q4_k_m"));
    QVERIFY(v);
    QCOMPARE(v->id(), QStringLiteral("qwen3-8b:Q4_K_M"));
    QString error;
    QVERIFY(!catalog.resolve(QStringLiteral("nope:Q4_K_M"), &error));
    QVERIFY2(error.contains(QStringLiteral("no model 'nope'")) && error.contains(QStringLiteral("qwen3-8b")), qPrintable(error));
    QVERIFY(!catalog.resolve(QStringLiteral("qwen3-8b:Q9_X"), &error));
    QVERIFY2(error.contains(QStringLiteral("Q9_X")) && error.contains(QStringLiteral("Q8_0")), qPrintable(error));
    QVERIFY(!catalog.resolve(QStringLiteral("qwen3-8b"), &error));
    QVERIFY2(error.contains(QStringLiteral("qwen3-8b:QUANT")), qPrintable(error));
}

void TestCatalog::validCatalogParses()
{
    Catalog catalog;
    QString error;
    QVERIFY2(catalog.parse(bytes(validCatalog()), &error), qPrintable(error));
    QCOMPARE(catalog.families().size(), 1);
    const CatalogVariant& v = catalog.families().first().variants.first();
    QCOMPARE(v.license, QStringLiteral("apache-2.0")); // from the family
    QCOMPARE(v.revision, QStringLiteral("main"));
    QCOMPARE(v.totalBytes(), qint64(1000));
    QVERIFY(catalog.families().first().shape.sizesKnown());
    // Upper-case hashes are the same hash; a coming model may not know its sizes.
    QJsonObject o = edited(validCatalog(), (kFile + "sha256").split('/'), QString(64, QLatin1Char('A'))).toObject();
    o = edited(o, QStringLiteral("families/0/requires").split('/'), "mamba2").toObject();
    o = edited(o, QStringLiteral("families/0/shape").split('/'), QJsonObject{{"architecture", "mamba2"}}).toObject();
    QVERIFY2(catalog.parse(bytes(o), &error), qPrintable(error));
    QCOMPARE(catalog.families().first().variants.first().files.first().sha256, QString(64, QLatin1Char('a')));
    QCOMPARE(catalog.families().first().variants.first().requiresArch, QStringLiteral("mamba2"));
    // A model Hearth runs whose sizes are not known (absent or null) is offered without them.
    for (const QJsonValue& unknown : {QJsonValue(QJsonValue::Undefined), QJsonValue()}) {
        QJsonObject shape = validCatalog()["families"][0]["shape"].toObject();
        for (const char* key : {"layers", "hidden", "heads", "kvHeads", "headDim", "vocab", "ffn", "context"}) {
            if (unknown.isUndefined())
                shape.remove(QString::fromLatin1(key));
            else
                shape.insert(QString::fromLatin1(key), unknown);
        }
        shape.insert(QStringLiteral("layers"), 24); // a size that is known stays
        QVERIFY2(catalog.parse(bytes(edited(validCatalog(), {"families", "0", "shape"}, shape).toObject()), &error),
                 qPrintable(error));
        const CatalogFamily& f = catalog.families().first();
        QVERIFY(f.requiresArch.isEmpty());
        QCOMPARE(f.shape.layers, 24);
        QVERIFY(!f.shape.sizesKnown());
    }
    // A hybrid architecture's DeltaNet sizes are read; unknown attention sizes need none.
    QVERIFY2(catalog.parse(hybridCatalog(), &error), qPrintable(error));
    const CatalogShape& hybrid = catalog.families().first().shape;
    QVERIFY(hybrid.sizesKnown() && hybrid.hybrid());
    QCOMPARE(hybrid.linearValueHeads, 8);
    QCOMPARE(hybrid.fullAttentionInterval, 4);
    QCOMPARE(hybrid.linearConvKernel, 0); // not stated: the engine's default
    QVERIFY2(catalog.parse(with("families/0/shape", QJsonObject{{"architecture", "qwen35"}}), &error), qPrintable(error));
}

void TestCatalog::malformedCatalogs_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("where");  // the entry and field the error must name
    QTest::addColumn<QString>("reason"); // and what is wrong with it
    const QJsonValue none(QJsonValue::Undefined); // removes the field
    QTest::newRow("null shape") << with("families/0/shape", QJsonValue()) << QStringLiteral("(fam).shape") << QStringLiteral("missing");
    QTest::newRow("not json") << QByteArray("{\"schemaVersion\": 1,") << QString() << QStringLiteral("not valid JSON");
    QTest::newRow("array root") << QByteArray("[1, 2]") << QString() << QStringLiteral("must be a JSON object");
    QTest::newRow("no version") << with("schemaVersion", none) << QStringLiteral("schemaVersion") << QStringLiteral("missing");
    QTest::newRow("newer version") << with("schemaVersion", 2) << QStringLiteral("schemaVersion") << QStringLiteral("version 2");
    QTest::newRow("version text") << with("schemaVersion", "1") << QStringLiteral("schemaVersion") << QStringLiteral("number");
    QTest::newRow("families object") << with("families", QJsonObject()) << QStringLiteral("families") << QStringLiteral("list");
    QTest::newRow("family number") << with("families/0", 7) << QStringLiteral("families[0]") << QStringLiteral("object");
    QTest::newRow("no id") << with("families/0/id", none) << QStringLiteral("families[0].id") << QStringLiteral("missing");
    QTest::newRow("id path") << with("families/0/id", "../evil") << QStringLiteral("families[0] (../evil).id") << QStringLiteral("may hold only");
    QTest::newRow("name type") << with("families/0/name", 5) << QStringLiteral("families[0] (fam).name") << QStringLiteral("string");
    QTest::newRow("no license") << with("families/0/license", none) << QStringLiteral("(fam).license") << QStringLiteral("missing");
    QTest::newRow("http licence") << with("families/0/licenseUrl", "http://x.org/l") << QStringLiteral("(fam).licenseUrl") << QStringLiteral("https");
    QTest::newRow("no shape") << with("families/0/shape", none) << QStringLiteral("(fam).shape") << QStringLiteral("missing");
    QTest::newRow("misspelt size") << with("families/0/shape/kvheads", 2) << QStringLiteral("(fam).shape.kvheads") << QStringLiteral("not a shape field");
    QTest::newRow("no architecture") << with("families/0/shape/architecture", none) << QStringLiteral("shape.architecture") << QStringLiteral("missing");
    QTest::newRow("odd rope") << with("families/0/shape/ropeDims", 7) << QStringLiteral("shape.ropeDims") << QStringLiteral("even");
    QTest::newRow("rope over head") << with("families/0/shape/ropeDims", 32) << QStringLiteral("shape.ropeDims") << QStringLiteral("headDim");
    QTest::newRow("deltanet on qwen3") << with("families/0/shape/linearKeyHeads", 4) << QStringLiteral("shape.linearKeyHeads") << QStringLiteral("no Gated DeltaNet");
    const auto hybridWith = [](const QString& key, const QJsonValue& value) {
        QJsonObject o = QJsonDocument::fromJson(hybridCatalog()).object();
        return bytes(edited(o, (QStringLiteral("families/0/shape/") + key).split('/'), value).toObject());
    };
    QTest::newRow("hybrid without key heads") << hybridWith("linearKeyHeads", none) << QStringLiteral("shape.linearKeyHeads") << QStringLiteral("missing");
    QTest::newRow("hybrid null value dim") << hybridWith("linearValueDim", QJsonValue()) << QStringLiteral("shape.linearValueDim") << QStringLiteral("missing");
    QTest::newRow("hybrid value heads") << hybridWith("linearValueHeads", 6) << QStringLiteral("shape.linearValueHeads") << QStringLiteral("multiple");
    QTest::newRow("hybrid zero kernel") << hybridWith("linearConvKernel", 0) << QStringLiteral("shape.linearConvKernel") << QStringLiteral("out of range");
    QTest::newRow("hybrid interval") << hybridWith("fullAttentionInterval", 9) << QStringLiteral("shape.fullAttentionInterval") << QStringLiteral("layers");
    QTest::newRow("hybrid key dim text") << hybridWith("linearKeyDim", "128") << QStringLiteral("shape.linearKeyDim") << QStringLiteral("number");
    QTest::newRow("negative layers") << with("families/0/shape/layers", -2) << QStringLiteral("shape.layers") << QStringLiteral("out of range");
    QTest::newRow("fractional hidden") << with("families/0/shape/hidden", 64.5) << QStringLiteral("shape.hidden") << QStringLiteral("whole number");
    QTest::newRow("heads") << with("families/0/shape/heads", 5) << QStringLiteral("shape.heads") << QStringLiteral("multiple");
    QTest::newRow("tied text") << with("families/0/shape/tiedEmbeddings", "yes") << QStringLiteral("shape.tiedEmbeddings") << QStringLiteral("true or false");
    QTest::newRow("no variants") << with("families/0/variants", QJsonArray()) << QStringLiteral("(fam).variants") << QStringLiteral("empty");
    QTest::newRow("quant spaces") << with("families/0/variants/0/quant", "Q4 K") << QStringLiteral("variants[0] (Q4 K).quant") << QStringLiteral("not a quant");
    QTest::newRow("format") << with("families/0/variants/0/format", "zip") << QStringLiteral("(Q4_K_M).format") << QStringLiteral("gguf");
    QTest::newRow("revision") << with("families/0/variants/0/revision", "../main") << QStringLiteral("(Q4_K_M).revision") << QStringLiteral("commit");
    QTest::newRow("no files") << with("families/0/variants/0/files", none) << QStringLiteral("(Q4_K_M).files") << QStringLiteral("missing");
    QTest::newRow("file text") << with("families/0/variants/0/files/0", "x.gguf") << QStringLiteral("(Q4_K_M).files[0]") << QStringLiteral("object");
    QTest::newRow("repo traversal") << with(kFile + "repo", "../x") << kFileAt + "repo" << QStringLiteral("owner/name");
    QTest::newRow("repo url") << with(kFile + "repo", "https://evil/x") << kFileAt + "repo" << QStringLiteral("owner/name");
    QTest::newRow("dot dot") << with(kFile + "path", "..") << kFileAt + "path" << QStringLiteral("'..'");
    QTest::newRow("traversal") << with(kFile + "path", "sub/../../x.gguf") << kFileAt + "path" << QStringLiteral("'..'");
    QTest::newRow("absolute") << with(kFile + "path", "/etc/passwd.gguf") << kFileAt + "path" << QStringLiteral("absolute");
    QTest::newRow("hidden") << with(kFile + "path", ".bashrc.gguf") << kFileAt + "path" << QStringLiteral("hidden");
    QTest::newRow("backslash") << with(kFile + "path", "a\\b.gguf") << kFileAt + "path" << QStringLiteral("'\\'");
    QTest::newRow("empty segment") << with(kFile + "path", "a//b.gguf") << kFileAt + "path" << QStringLiteral("empty");
    QTest::newRow("control") << with(kFile + "path", QStringLiteral("a\nb.gguf")) << kFileAt + "path" << QStringLiteral("control");
    QTest::newRow("not gguf") << with(kFile + "path", "model.bin") << QStringLiteral("(Q4_K_M).files") << QStringLiteral("not a .gguf");
    QTest::newRow("negative size") << with(kFile + "size", -1) << kFileAt + "size" << QStringLiteral("out of range");
    QTest::newRow("zero size") << with(kFile + "size", 0) << kFileAt + "size" << QStringLiteral("out of range");
    QTest::newRow("3 TB") << with(kFile + "size", 3e12) << kFileAt + "size" << QStringLiteral("out of range");
    QTest::newRow("size text") << with(kFile + "size", "5 GB") << kFileAt + "size" << QStringLiteral("number");
    QTest::newRow("short hash") << with(kFile + "sha256", "abc") << kFileAt + "sha256" << QStringLiteral("64 hexadecimal");
    QTest::newRow("hash letters") << with(kFile + "sha256", QString(64, QLatin1Char('z'))) << kFileAt + "sha256" << QStringLiteral("64 hexadecimal");
    QTest::newRow("hash number") << with(kFile + "sha256", 12) << kFileAt + "sha256" << QStringLiteral("string");
    QJsonObject twice = validCatalog();
    QJsonArray families = twice["families"].toArray();
    families.append(families.first());
    twice["families"] = families;
    QTest::newRow("duplicate id") << bytes(twice) << QStringLiteral("families[1].id") << QStringLiteral("twice");
    const QJsonObject safetensors =
        edited(validCatalog(), QStringLiteral("families/0/variants/0/format").split('/'), "safetensors").toObject();
    QTest::newRow("no config") << bytes(safetensors) << QStringLiteral("(Q4_K_M).files") << QStringLiteral("config.json");
    QTest::newRow("shards of a gguf") << with("families/0/variants/0/shardsFromIndex", true)
                                      << QStringLiteral("(Q4_K_M).shardsFromIndex") << QStringLiteral("only a safetensors");
    QTest::newRow("shards text") << indexedWith("families/0/variants/0/shardsFromIndex", "yes")
                                 << QStringLiteral("(BF16).shardsFromIndex") << QStringLiteral("true or false");
    QTest::newRow("shards listed too") << bytes(withFile(indexedCatalog(), "model-00001-of-00002.safetensors"))
                                       << QStringLiteral("(BF16).files[3].path") << QStringLiteral("come from the index");
    QTest::newRow("shards without index") << indexedWith("families/0/variants/0/files/2/path", "tokenizer.json")
                                          << QStringLiteral("(BF16).files") << QStringLiteral("model.safetensors.index.json");
    QTest::newRow("optional config") << indexedWith("families/0/variants/0/files/0/optional", true)
                                     << QStringLiteral("(BF16).files[0].optional") << QStringLiteral("'config.json' is required");
    QTest::newRow("optional index") << indexedWith("families/0/variants/0/files/2/optional", true)
                                    << QStringLiteral("(BF16).files[2].optional") << QStringLiteral("index.json' is required");
    QTest::newRow("optional gguf") << with(kFile + "optional", true) << QStringLiteral("(Q4_K_M).files[0].optional")
                                   << QStringLiteral("'Model-Q4_K_M.gguf' is required");
    QTest::newRow("optional text") << with(kFile + "optional", "no") << kFileAt + "optional" << QStringLiteral("true or false");
}

void TestCatalog::malformedCatalogs()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, where);
    QFETCH(QString, reason);
    Catalog catalog;
    QVERIFY(catalog.parse(bytes(validCatalog()), nullptr));
    QString error;
    QVERIFY2(!catalog.parse(json, &error), json.constData());
    QVERIFY2(error.contains(where) && error.contains(reason, Qt::CaseInsensitive), qPrintable(error));
    QCOMPARE(catalog.families().size(), 1); // a refused catalog leaves the last good one in place
}

void TestCatalog::splitGgufParts()
{
    auto parts = [](const QStringList& names) {
        QJsonArray files;
        for (const QString& n : names)
            files.append(QJsonObject{{"repo", "Owner/Model-GGUF"}, {"path", QStringLiteral("Q8_0/") + n}});
        return with("families/0/variants/0/files", files);
    };
    Catalog catalog;
    QString error;
    QVERIFY2(catalog.parse(parts({"m-00001-of-00002.gguf", "m-00002-of-00002.gguf"}), &error), qPrintable(error));
    const CatalogVariant& v = catalog.families().first().variants.first();
    QCOMPARE(v.files.size(), 2);
    QCOMPARE(v.localName(), QStringLiteral("m-00001-of-00002.gguf")); // the first part stands for the model
    QCOMPARE(v.totalBytes(), qint64(-1));
    for (const QStringList& bad : {QStringList{"m-00002-of-00002.gguf", "m-00001-of-00002.gguf"},
                                   QStringList{"m-00001-of-00003.gguf", "m-00002-of-00003.gguf"},
                                   QStringList{"m-00001-of-00002.gguf", "n-00002-of-00002.gguf"},
                                   QStringList{"m.gguf", "n.gguf"}}) {
        QVERIFY2(!catalog.parse(parts(bad), &error), qPrintable(bad.join(' ')));
        QVERIFY2(error.contains(QStringLiteral("(Q4_K_M).files")), qPrintable(error));
    }
}

void TestCatalog::shardsFromIndex()
{
    Catalog catalog;
    QString error;
    QJsonObject o = indexedCatalog();
    // Sizes given for every listed file still make no total: the shards are not among them.
    for (int i = 0; i < 3; ++i)
        o = edited(o, QStringLiteral("families/0/variants/0/files/%1/size").arg(i).split('/'), 100).toObject();
    QVERIFY2(catalog.parse(bytes(o), &error), qPrintable(error));
    const CatalogVariant& v = catalog.families().first().variants.first();
    QVERIFY(v.shardsFromIndex);
    QCOMPARE(v.totalBytes(), qint64(-1));
    QCOMPARE(v.localName(), QStringLiteral("Model"));
    QCOMPARE(v.files.size(), 3);
    QVERIFY(!v.files[0].optional && v.files[1].optional && !v.files[2].optional);
    // false is the same as absent; an optional file of a plain variant is fine too.
    QVERIFY2(catalog.parse(indexedWith("families/0/variants/0/files/1/optional", false), &error), qPrintable(error));
    QVERIFY(!catalog.families().first().variants.first().files[1].optional);
    QJsonObject listed = edited(indexedCatalog(), {"families", "0", "variants", "0", "shardsFromIndex"}, false).toObject();
    listed = withFile(listed, "model.safetensors");
    QVERIFY2(catalog.parse(bytes(listed), &error), qPrintable(error));
    QVERIFY(!catalog.families().first().variants.first().shardsFromIndex);
    QVERIFY(catalog.families().first().variants.first().files[1].optional);
}

void TestCatalog::shardIndexFiles()
{
    const auto index = [](const QJsonObject& map, const QJsonValue& total = QJsonValue(QJsonValue::Undefined)) {
        QJsonObject o{{"weight_map", map}};
        if (!total.isUndefined())
            o["metadata"] = QJsonObject{{"total_size", total}};
        return QJsonDocument(o).toJson();
    };
    ShardIndex parsed;
    QString error;
    QVERIFY2(parseShardIndex(index({{"b.weight", "model-00002-of-00002.safetensors"},
                                    {"a.weight", "model-00001-of-00002.safetensors"},
                                    {"c.weight", "model-00002-of-00002.safetensors"}},
                                   55560000000.0),
                             &parsed, &error),
             qPrintable(error));
    QCOMPARE(parsed.shards, (QStringList{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
    QCOMPARE(parsed.totalBytes, qint64(55560000000));
    for (const QJsonValue& junk : {QJsonValue("55 GB"), QJsonValue(-5), QJsonValue(1.5), QJsonValue(1e15)}) {
        QVERIFY(parseShardIndex(index({{"w", "m.safetensors"}}, junk), &parsed, &error));
        QCOMPARE(parsed.totalBytes, qint64(-1)); // only an estimate: a bad one is no estimate
    }
    // Each refusal names what is wrong with the value it quotes.
    const QList<QPair<QByteArray, QString>> bad{
        {index({{"w", "../x.safetensors"}}), QStringLiteral("'../x.safetensors'")},
        {index({{"w", "sub/x.safetensors"}}), QStringLiteral("'sub/x.safetensors': '/'")},
        {index({{"w", ".x.safetensors"}}), QStringLiteral("hidden")},
        {index({{"w", "x.bin"}}), QStringLiteral("'x.bin', which is not a .safetensors file")},
        {index({{"w", "x.safetensors.part"}}), QStringLiteral("not a .safetensors file")},
        {index({{"w", QStringLiteral("a\nb.safetensors")}}), QStringLiteral("'a?b.safetensors': control")},
        {index({{"w", QString(260, QLatin1Char('a')) + ".safetensors"}}), QStringLiteral("255 bytes")},
        {index({{"w", 7}}), QStringLiteral("tensor 'w' to no file name")},
        {index({}), QStringLiteral("no weight_map")},
        {QByteArray("{\"weight_map\": [\"x.safetensors\"]}"), QStringLiteral("no weight_map")},
        {QByteArray("{\"weight_map\": {"), QStringLiteral("not valid JSON")},
        {QByteArray("[1]"), QStringLiteral("no weight_map")},
    };
    for (const auto& [json, reason] : bad) {
        QVERIFY2(!parseShardIndex(json, &parsed, &error), json.constData());
        QVERIFY2(error.contains(reason), qPrintable(error));
    }
    QJsonObject many;
    for (int i = 0; i <= kMaxShards; ++i)
        many[QStringLiteral("t%1").arg(i)] = QStringLiteral("s%1.safetensors").arg(i);
    QVERIFY(!parseShardIndex(index(many), &parsed, &error));
    QVERIFY2(error.contains(QStringLiteral("more than 1000 shards")), qPrintable(error));
    many.remove(QStringLiteral("t0"));
    QVERIFY2(parseShardIndex(index(many), &parsed, &error), qPrintable(error));
    QCOMPARE(parsed.shards.size(), kMaxShards);
    QByteArray huge = index({{"w", "m.safetensors"}});
    huge.insert(1, QByteArray(kMaxShardIndexBytes, ' '));
    QVERIFY(!parseShardIndex(huge, &parsed, &error));
    QVERIFY2(error.contains(QStringLiteral("larger than")), qPrintable(error));
    QTemporaryDir dir;
    QVERIFY(!readShardIndex(dir.filePath(QStringLiteral("missing.json")), &parsed, &error));
    QVERIFY2(error.contains(QStringLiteral("missing.json")), qPrintable(error));
}

void TestCatalog::safeFileNames()
{
    for (const char* ok : {"model.gguf", "Qwen3-8B-Q4_K_M.gguf", "a b.gguf", "模型.gguf"})
        QVERIFY2(isSafeFileName(QString::fromUtf8(ok)), ok);
    for (const char* bad : {"", ".", "..", ".hidden", "a/b", "a\\b", "c:x", " lead", "trail "})
        QVERIFY2(!isSafeFileName(QString::fromUtf8(bad)), bad);
    QVERIFY(!isSafeFileName(QString(300, QLatin1Char('a'))));
    QVERIFY(!isSafeFileName(QStringLiteral("a\tb")));
}

void TestCatalog::catalogLocation()
{
    qunsetenv("HEARTH_CATALOG");
    QCOMPARE(Catalog::choosePath({}), Catalog::builtInPath());
    QCOMPARE(Catalog::choosePath(QStringLiteral("/etc/mine.json")), QStringLiteral("/etc/mine.json"));
    qputenv("HEARTH_CATALOG", "/srv/mirror.json");
    QCOMPARE(Catalog::choosePath(QStringLiteral("/etc/mine.json")), QStringLiteral("/srv/mirror.json"));
    qunsetenv("HEARTH_CATALOG");
    QTemporaryDir dir;
    Catalog catalog;
    QString error;
    QVERIFY(!catalog.load(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("missing.json")), qPrintable(error));
}

// Random damage to the real catalog: the parser answers every time, and whatever it accepts is
// safe (names, sizes and hashes as the rules say).
void TestCatalog::randomCorruptionsNeverCrash()
{
    QFile builtIn(Catalog::builtInPath());
    QVERIFY(builtIn.open(QIODevice::ReadOnly));
    const QByteArray original = builtIn.readAll();
    const QJsonObject doc = QJsonDocument::fromJson(original).object();
    QRandomGenerator rng(20261201);
    const QList<QJsonValue> junk{QJsonValue(), QJsonValue(-1), QJsonValue(3e15), QJsonValue(0.5), QJsonValue(true),
                                 QJsonValue(QStringLiteral("..")), QJsonValue(QStringLiteral("/abs/x.gguf")),
                                 QJsonValue(QStringLiteral(".hidden")), QJsonValue(QJsonArray()), QJsonValue(QJsonObject()),
                                 QJsonValue(QString(70, QLatin1Char('f')))};
    int accepted = 0, refused = 0;
    for (int round = 0; round < 3000; ++round) {
        QByteArray input;
        if (round % 3 == 0) { // byte damage: truncation and flipped bytes
            input = original.left(int(rng.bounded(original.size() + 1)));
            for (int k = 0; k < 4 && !input.isEmpty(); ++k)
                input[int(rng.bounded(input.size()))] = char(rng.bounded(256));
        } else { // structural damage: a field deep inside replaced by junk or removed
            QJsonValue node = doc;
            QStringList path;
            for (int depth = 0; depth < 8; ++depth) {
                QStringList keys;
                if (node.isObject())
                    keys = node.toObject().keys();
                else if (node.isArray())
                    for (int i = 0; i < node.toArray().size(); ++i)
                        keys << QString::number(i);
                if (keys.isEmpty() || (depth > 0 && rng.bounded(4) == 0))
                    break;
                const QString key = keys[int(rng.bounded(keys.size()))];
                path << key;
                node = node.isObject() ? node.toObject().value(key) : node.toArray().at(key.toInt());
            }
            if (path.isEmpty())
                continue;
            input = bytes(edited(doc, path, junk[int(rng.bounded(junk.size()))]).toObject());
        }
        Catalog catalog;
        QString error;
        if (!catalog.parse(input, &error)) {
            QVERIFY(!error.isEmpty());
            ++refused;
            continue;
        }
        ++accepted;
        for (const CatalogFamily& f : catalog.families())
            for (const CatalogVariant& v : f.variants) {
                QVERIFY(isSafeFileName(v.localName()));
                for (const CatalogFile& file : v.files) {
                    QVERIFY(isSafeFileName(file.fileName()));
                    QVERIFY(file.sizeBytes == -1 || (file.sizeBytes > 0 && file.sizeBytes <= Catalog::kMaxFileBytes));
                    QVERIFY(file.sha256.isEmpty() || file.sha256.size() == 64);
                }
            }
    }
    QVERIFY(refused > 1000); // the damage was real
    QVERIFY(accepted > 0);   // and some of it harmless (an optional field dropped)
}

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
