#include "catalog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

#include "shardindex.h"

namespace {

// The place in the catalog an error is about: "families[3] (qwen3-8b).variants[1] (Q4_K_M)".
class Where
{
public:
    Where() = default;
    Where item(const QString& list, int index, const QString& label = {}) const
    {
        Where w = *this;
        w.m_text += (m_text.isEmpty() ? QString() : QStringLiteral(".")) +
                    QStringLiteral("%1[%2]").arg(list).arg(index) +
                    (label.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(label));
        return w;
    }
    Where sub(const QString& name) const
    {
        Where w = *this;
        w.m_text = field(name);
        return w;
    }
    QString field(const QString& name) const
    {
        return m_text.isEmpty() ? name : m_text + QLatin1Char('.') + name;
    }

private:
    QString m_text;
};

// Reads fields of one JSON object; the first problem wins and names its field.
class Reader
{
public:
    Reader(const QJsonObject& object, const Where& where, QString* error)
        : m_object(object), m_where(where), m_error(error) {}

    bool ok() const { return m_error->isEmpty(); }
    bool fail(const QString& field, const QString& why)
    {
        if (ok())
            *m_error = QStringLiteral("%1: %2").arg(m_where.field(field), why);
        return false;
    }
    bool has(const QString& field) const { return m_object.contains(field) && !m_object.value(field).isNull(); }

    QString text(const QString& field, bool required, int maxLength = 200)
    {
        const QJsonValue v = m_object.value(field);
        if (v.isUndefined() || v.isNull()) {
            if (required)
                fail(field, QStringLiteral("missing"));
            return {};
        }
        if (!v.isString()) {
            fail(field, QStringLiteral("must be a string"));
            return {};
        }
        const QString s = v.toString();
        if (required && s.trimmed().isEmpty())
            fail(field, QStringLiteral("must not be empty"));
        else if (s.size() > maxLength)
            fail(field, QStringLiteral("longer than %1 characters").arg(maxLength));
        else if (s.contains(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]"))))
            fail(field, QStringLiteral("contains control characters"));
        return s;
    }
    // A whole number in [min, max]; `missing` when absent or null (and not required).
    qint64 integer(const QString& field, bool required, qint64 min, qint64 max, qint64 missing)
    {
        const QJsonValue v = m_object.value(field);
        if (v.isUndefined() || v.isNull()) {
            if (required)
                fail(field, QStringLiteral("missing"));
            return missing;
        }
        if (!v.isDouble()) {
            fail(field, QStringLiteral("must be a number"));
            return missing;
        }
        const double d = v.toDouble();
        if (!std::isfinite(d) || d != std::floor(d)) {
            fail(field, QStringLiteral("must be a whole number"));
            return missing;
        }
        if (d < double(min) || d > double(max)) {
            fail(field, QStringLiteral("%1 is out of range (%2 to %3)").arg(v.toVariant().toString()).arg(min).arg(max));
            return missing;
        }
        return qint64(d);
    }
    bool flag(const QString& field)
    {
        const QJsonValue v = m_object.value(field);
        if (v.isUndefined() || v.isNull())
            return false;
        if (!v.isBool())
            return fail(field, QStringLiteral("must be true or false"));
        return v.toBool();
    }
    QJsonArray array(const QString& field, bool nonEmpty)
    {
        const QJsonValue v = m_object.value(field);
        if (!v.isArray()) {
            fail(field, v.isUndefined() || v.isNull() ? QStringLiteral("missing") : QStringLiteral("must be a list"));
            return {};
        }
        if (nonEmpty && v.toArray().isEmpty())
            fail(field, QStringLiteral("must not be empty"));
        return v.toArray();
    }
    QJsonObject object(const QString& field)
    {
        const QJsonValue v = m_object.value(field);
        if (!v.isObject())
            fail(field, v.isUndefined() || v.isNull() ? QStringLiteral("missing") : QStringLiteral("must be an object"));
        return v.toObject();
    }

private:
    QJsonObject m_object;
    Where m_where;
    QString* m_error;
};

bool matches(const QString& text, const char* pattern)
{
    return QRegularExpression(QStringLiteral("\\A(?:%1)\\z").arg(QLatin1String(pattern))).match(text).hasMatch();
}

// A split GGUF's part: "name-00002-of-00005.gguf" -> (2, 5, "name").
struct Part {
    int index = 0, count = 0;
    QString stem;
};
bool splitPart(const QString& fileName, Part& part)
{
    static const QRegularExpression re(QStringLiteral("\\A(.+)-(\\d{5})-of-(\\d{5})\\.gguf\\z"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return false;
    part = {m.captured(2).toInt(), m.captured(3).toInt(), m.captured(1)};
    return true;
}

bool readFile(const QJsonObject& o, const Where& where, CatalogFile& f, QString* error)
{
    Reader r(o, where, error);
    f.repo = r.text(QStringLiteral("repo"), true);
    if (r.ok() && (!matches(f.repo, "[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*") ||
                   f.repo.contains(QStringLiteral(".."))))
        r.fail(QStringLiteral("repo"), QStringLiteral("'%1' is not an owner/name repository").arg(f.repo));
    f.path = r.text(QStringLiteral("path"), true, 400);
    if (r.ok()) {
        if (f.path.startsWith(QLatin1Char('/')))
            r.fail(QStringLiteral("path"), QStringLiteral("an absolute path is not allowed"));
        for (const QString& segment : f.path.split(QLatin1Char('/'))) {
            QString why;
            if (r.ok() && !isSafeFileName(segment, &why))
                r.fail(QStringLiteral("path"), QStringLiteral("'%1': %2").arg(f.path, why));
        }
    }
    f.sizeBytes = r.integer(QStringLiteral("size"), false, 1, Catalog::kMaxFileBytes, -1);
    if (r.has(QStringLiteral("sha256"))) {
        f.sha256 = r.text(QStringLiteral("sha256"), true).toLower();
        if (r.ok() && !matches(f.sha256, "[0-9a-f]{64}"))
            r.fail(QStringLiteral("sha256"), QStringLiteral("must be 64 hexadecimal digits"));
    }
    f.optional = r.flag(QStringLiteral("optional"));
    return r.ok();
}

// What makes the model may not be optional: its weights, config.json and the safetensors index.
bool checkOptional(const CatalogVariant& v, Reader& r)
{
    for (int i = 0; i < v.files.size(); ++i) {
        const QString name = v.files[i].fileName();
        if (v.files[i].optional &&
            (name == QStringLiteral("config.json") || name == QLatin1String(kShardIndexName) ||
             name.endsWith(QStringLiteral(".safetensors")) || name.endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive)))
            return r.fail(QStringLiteral("files[%1].optional").arg(i), QStringLiteral("'%1' is required: it makes the model").arg(name));
    }
    return true;
}

bool checkGgufParts(const CatalogVariant& v, Reader& r)
{
    for (const CatalogFile& f : v.files)
        if (!f.fileName().endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive))
            return r.fail(QStringLiteral("files"), QStringLiteral("'%1' is not a .gguf file").arg(f.fileName()));
    if (v.files.size() == 1)
        return true;
    // Several files: the parts of one split GGUF, all of them, in order.
    Part first;
    for (int i = 0; i < v.files.size(); ++i) {
        Part p;
        if (!splitPart(v.files[i].fileName(), p))
            return r.fail(QStringLiteral("files"), QStringLiteral("'%1' is not a part of a split GGUF (-0000k-of-0000n)")
                                                       .arg(v.files[i].fileName()));
        if (i == 0)
            first = p;
        if (p.index != i + 1 || p.count != v.files.size() || p.stem != first.stem)
            return r.fail(QStringLiteral("files"), QStringLiteral("the parts must be 1 to %1 of one model, in order; "
                                                                  "'%2' is out of place")
                                                       .arg(v.files.size())
                                                       .arg(v.files[i].fileName()));
    }
    return true;
}

bool checkSafetensors(const CatalogVariant& v, Reader& r)
{
    bool config = false, weights = false, index = false;
    for (int i = 0; i < v.files.size(); ++i) {
        const CatalogFile& f = v.files[i];
        config = config || f.path == QStringLiteral("config.json");
        index = index || f.path == QLatin1String(kShardIndexName);
        weights = weights || f.fileName().endsWith(QStringLiteral(".safetensors"));
        if (f.path.contains(QLatin1Char('/')))
            return r.fail(QStringLiteral("files"), QStringLiteral("'%1': a Hugging Face folder's files sit at its top").arg(f.path));
        if (v.shardsFromIndex && f.fileName().endsWith(QStringLiteral(".safetensors")))
            return r.fail(QStringLiteral("files[%1].path").arg(i),
                          QStringLiteral("'%1': with shardsFromIndex the .safetensors files come from the index, "
                                         "not from the catalog")
                              .arg(f.path));
    }
    if (v.shardsFromIndex) {
        if (!config || !index)
            return r.fail(QStringLiteral("files"), QStringLiteral("with shardsFromIndex the files must include config.json "
                                                                  "and %1")
                                                       .arg(QLatin1String(kShardIndexName)));
        return true;
    }
    if (!config || !weights)
        return r.fail(QStringLiteral("files"), QStringLiteral("a safetensors model needs config.json and .safetensors files"));
    return true;
}

bool readVariant(const QJsonObject& o, const Where& where, const CatalogFamily& family, CatalogVariant& v, QString* error)
{
    Reader r(o, where, error);
    v.familyId = family.id;
    v.quant = r.text(QStringLiteral("quant"), true, 20).toUpper();
    if (r.ok() && !matches(v.quant, "[A-Z0-9][A-Z0-9_]*"))
        r.fail(QStringLiteral("quant"), QStringLiteral("'%1' is not a quant name").arg(v.quant));
    v.format = r.text(QStringLiteral("format"), true);
    if (r.ok() && v.format != QStringLiteral("gguf") && v.format != QStringLiteral("safetensors"))
        r.fail(QStringLiteral("format"), QStringLiteral("must be \"gguf\" or \"safetensors\", not '%1'").arg(v.format));
    if (r.has(QStringLiteral("revision"))) {
        v.revision = r.text(QStringLiteral("revision"), true);
        if (r.ok() && v.revision != QStringLiteral("main") && !matches(v.revision, "[0-9a-f]{40}"))
            r.fail(QStringLiteral("revision"), QStringLiteral("must be \"main\" or a 40-digit commit"));
    }
    v.license = r.has(QStringLiteral("license")) ? r.text(QStringLiteral("license"), true) : family.license;
    v.licenseUrl = r.has(QStringLiteral("licenseUrl")) ? r.text(QStringLiteral("licenseUrl"), true, 400) : family.licenseUrl;
    v.requiresArch = r.has(QStringLiteral("requires")) ? r.text(QStringLiteral("requires"), true) : family.requiresArch;
    v.shardsFromIndex = r.flag(QStringLiteral("shardsFromIndex"));
    if (r.ok() && v.shardsFromIndex && v.format != QStringLiteral("safetensors"))
        r.fail(QStringLiteral("shardsFromIndex"), QStringLiteral("only a safetensors variant has a shard index"));
    const QJsonArray files = r.array(QStringLiteral("files"), true);
    QSet<QString> names;
    for (int i = 0; r.ok() && i < files.size(); ++i) {
        const Where at = where.item(QStringLiteral("files"), i);
        if (!files[i].isObject())
            return Reader(o, where, error).fail(QStringLiteral("files[%1]").arg(i), QStringLiteral("must be an object"));
        CatalogFile f;
        if (!readFile(files[i].toObject(), at, f, error))
            return false;
        if (names.contains(f.fileName()))
            return r.fail(QStringLiteral("files[%1].path").arg(i), QStringLiteral("'%1' appears twice").arg(f.fileName()));
        names.insert(f.fileName());
        v.files << f;
    }
    if (r.ok())
        v.format == QStringLiteral("gguf") ? checkGgufParts(v, r) : checkSafetensors(v, r);
    if (r.ok())
        checkOptional(v, r);
    if (r.ok() && v.format == QStringLiteral("safetensors") && !isSafeFileName(v.localName()))
        r.fail(QStringLiteral("files"), QStringLiteral("the repository name does not make a folder name"));
    return r.ok();
}

const QStringList& shapeFields()
{
    static const QStringList fields{
        QStringLiteral("architecture"),   QStringLiteral("layers"),           QStringLiteral("hidden"),
        QStringLiteral("heads"),          QStringLiteral("kvHeads"),          QStringLiteral("headDim"),
        QStringLiteral("vocab"),          QStringLiteral("ffn"),              QStringLiteral("context"),
        QStringLiteral("tiedEmbeddings"), QStringLiteral("ropeDims"),         QStringLiteral("linearKeyHeads"),
        QStringLiteral("linearValueHeads"), QStringLiteral("linearKeyDim"),   QStringLiteral("linearValueDim"),
        QStringLiteral("linearConvKernel"), QStringLiteral("fullAttentionInterval")};
    return fields;
}

// The DeltaNet sizes of a hybrid shape; required where the shape is estimated from (`required`).
void readDeltaNet(Reader& r, bool required, CatalogShape& s)
{
    const auto size = [&](const char* key, bool needed) {
        return int(r.integer(QString::fromLatin1(key), needed, 1, 1 << 16, 0));
    };
    s.linearKeyHeads = size("linearKeyHeads", required);
    s.linearValueHeads = size("linearValueHeads", required);
    s.linearKeyDim = size("linearKeyDim", required);
    s.linearValueDim = size("linearValueDim", required);
    s.linearConvKernel = size("linearConvKernel", false);
    s.fullAttentionInterval = size("fullAttentionInterval", false);
    if (r.ok() && s.linearKeyHeads > 0 && s.linearValueHeads > 0 && s.linearValueHeads % s.linearKeyHeads != 0)
        r.fail(QStringLiteral("linearValueHeads"),
               QStringLiteral("%1 is not a multiple of linearKeyHeads (%2)").arg(s.linearValueHeads).arg(s.linearKeyHeads));
    if (r.ok() && s.layers > 0 && s.fullAttentionInterval > s.layers)
        r.fail(QStringLiteral("fullAttentionInterval"),
               QStringLiteral("%1 is more than the %2 layers").arg(s.fullAttentionInterval).arg(s.layers));
}

// A size that is absent or null is unknown: the family is offered, but no estimate is made from
// a shape that lacks any. Field names are checked, so that a misspelt size is an error rather
// than an unknown.
bool readShape(const QJsonObject& o, const Where& where, bool coming, CatalogShape& s, QString* error)
{
    Reader r(o, where, error);
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!shapeFields().contains(it.key()))
            return r.fail(it.key(), QStringLiteral("not a shape field (fields: %1)").arg(shapeFields().join(QStringLiteral(", "))));
    s.architecture = r.text(QStringLiteral("architecture"), true, 40);
    if (r.ok() && !matches(s.architecture, "[a-z0-9_]+"))
        r.fail(QStringLiteral("architecture"), QStringLiteral("'%1' is not an architecture name").arg(s.architecture));
    const auto size = [&](const char* key, qint64 max) {
        return int(r.integer(QString::fromLatin1(key), false, 1, max, 0));
    };
    s.layers = size("layers", 4096);
    s.hidden = size("hidden", 1 << 20);
    s.heads = size("heads", 4096);
    s.kvHeads = size("kvHeads", 4096);
    s.headDim = size("headDim", 4096);
    s.vocab = size("vocab", 1 << 24);
    s.ffn = size("ffn", 1 << 22);
    s.context = size("context", 1 << 24);
    s.tiedEmbeddings = r.flag(QStringLiteral("tiedEmbeddings"));
    s.ropeDims = size("ropeDims", 4096);
    if (r.ok() && s.heads > 0 && s.kvHeads > 0 && s.heads % s.kvHeads != 0)
        r.fail(QStringLiteral("heads"), QStringLiteral("%1 is not a multiple of kvHeads (%2)").arg(s.heads).arg(s.kvHeads));
    if (r.ok() && s.ropeDims > 0 && (s.ropeDims % 2 != 0 || (s.headDim > 0 && s.ropeDims > s.headDim)))
        r.fail(QStringLiteral("ropeDims"), QStringLiteral("%1 must be even and at most headDim").arg(s.ropeDims));
    if (r.ok() && isHybridArchitecture(s.architecture)) {
        readDeltaNet(r, s.sizesKnown() && !coming, s);
    } else if (r.ok()) {
        for (const char* key : {"linearKeyHeads", "linearValueHeads", "linearKeyDim", "linearValueDim", "linearConvKernel",
                                "fullAttentionInterval"})
            if (r.has(QString::fromLatin1(key)))
                return r.fail(QString::fromLatin1(key),
                              QStringLiteral("'%1' has no Gated DeltaNet layers").arg(s.architecture));
    }
    return r.ok();
}

bool readFamily(const QJsonObject& o, const Where& where, CatalogFamily& f, QString* error)
{
    Reader r(o, where, error);
    f.id = r.text(QStringLiteral("id"), true, 64);
    if (r.ok() && !matches(f.id, "[a-z0-9][a-z0-9.-]*"))
        r.fail(QStringLiteral("id"), QStringLiteral("'%1' may hold only a-z, 0-9, '.' and '-'").arg(f.id));
    f.name = r.text(QStringLiteral("name"), true);
    f.publisher = r.text(QStringLiteral("publisher"), false);
    f.released = r.text(QStringLiteral("released"), false, 20);
    f.summary = r.text(QStringLiteral("summary"), false, 400);
    f.parameters = r.integer(QStringLiteral("parameters"), false, 1, qint64(1) << 50, 0);
    f.license = r.text(QStringLiteral("license"), true, 80);
    f.licenseUrl = r.text(QStringLiteral("licenseUrl"), false, 400);
    f.sourceUrl = r.text(QStringLiteral("sourceUrl"), false, 400);
    f.requiresArch = r.text(QStringLiteral("requires"), false, 40);
    for (const QString& url : {f.licenseUrl, f.sourceUrl})
        if (r.ok() && !url.isEmpty() && !url.startsWith(QStringLiteral("https://")))
            r.fail(url == f.licenseUrl ? QStringLiteral("licenseUrl") : QStringLiteral("sourceUrl"),
                   QStringLiteral("must be an https:// address"));
    if (!r.ok())
        return false;
    const QJsonObject shape = r.object(QStringLiteral("shape"));
    if (!r.ok() || !readShape(shape, where.sub(QStringLiteral("shape")), !f.requiresArch.isEmpty(), f.shape, error))
        return false;
    const QJsonArray variants = r.array(QStringLiteral("variants"), true);
    QSet<QString> quants;
    for (int i = 0; r.ok() && i < variants.size(); ++i) {
        const QJsonObject vo = variants[i].toObject();
        const Where at = where.item(QStringLiteral("variants"), i, vo.value(QStringLiteral("quant")).toString());
        if (!variants[i].isObject())
            return r.fail(QStringLiteral("variants[%1]").arg(i), QStringLiteral("must be an object"));
        CatalogVariant v;
        if (!readVariant(vo, at, f, v, error))
            return false;
        if (quants.contains(v.quant))
            return r.fail(QStringLiteral("variants[%1].quant").arg(i), QStringLiteral("%1 appears twice").arg(v.quant));
        quants.insert(v.quant);
        f.variants << v;
    }
    return r.ok();
}

} // namespace

QString CatalogFile::fileName() const
{
    return path.section(QLatin1Char('/'), -1);
}

QString CatalogFile::url(const QString& endpoint, const QString& revision) const
{
    return QStringLiteral("%1/%2/resolve/%3/%4").arg(endpoint, repo, revision, path);
}

qint64 CatalogVariant::totalBytes() const
{
    if (shardsFromIndex) // the shards' sizes are known only once they download
        return -1;
    qint64 total = 0;
    for (const CatalogFile& f : files) {
        if (f.sizeBytes < 0)
            return -1;
        total += f.sizeBytes;
    }
    return total;
}

QString CatalogVariant::localName() const
{
    if (files.isEmpty())
        return {};
    if (format == QStringLiteral("safetensors"))
        return files.first().repo.section(QLatin1Char('/'), -1);
    return files.first().fileName();
}

bool isHybridArchitecture(const QString& architecture)
{
    return architecture == QStringLiteral("qwen35");
}

bool isSafeFileName(const QString& name, QString* why)
{
    auto refuse = [why](const QString& reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (name.isEmpty())
        return refuse(QStringLiteral("an empty name"));
    if (name == QStringLiteral(".") || name == QStringLiteral(".."))
        return refuse(QStringLiteral("'..' is not allowed"));
    if (name.startsWith(QLatin1Char('.')))
        return refuse(QStringLiteral("a hidden name (leading '.') is not allowed"));
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')) || name.contains(QLatin1Char(':')))
        return refuse(QStringLiteral("'/', '\\' and ':' are not allowed in a name"));
    if (name.contains(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]"))))
        return refuse(QStringLiteral("control characters are not allowed"));
    if (name != name.trimmed())
        return refuse(QStringLiteral("leading or trailing spaces are not allowed"));
    if (name.toUtf8().size() > 255)
        return refuse(QStringLiteral("longer than 255 bytes"));
    return true;
}

bool Catalog::parse(const QByteArray& json, QString* error)
{
    QString problem;
    QList<CatalogFamily> families;
    const bool ok = [&] {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            problem = QStringLiteral("not valid JSON at byte %1: %2").arg(parseError.offset).arg(parseError.errorString());
            return false;
        }
        if (!doc.isObject()) {
            problem = QStringLiteral("the catalog must be a JSON object");
            return false;
        }
        const QJsonObject root = doc.object();
        Reader r(root, Where(), &problem);
        const qint64 version = r.integer(QStringLiteral("schemaVersion"), true, 1, 1 << 20, 0);
        if (!r.ok())
            return false;
        if (version != kSchemaVersion)
            return r.fail(QStringLiteral("schemaVersion"),
                          QStringLiteral("version %1 is not the one this Hearth reads (%2)").arg(version).arg(kSchemaVersion));
        const QJsonArray list = r.array(QStringLiteral("families"), false);
        QSet<QString> ids;
        for (int i = 0; r.ok() && i < list.size(); ++i) {
            const QJsonObject fo = list[i].toObject();
            const Where at = Where().item(QStringLiteral("families"), i, fo.value(QStringLiteral("id")).toString());
            if (!list[i].isObject())
                return r.fail(QStringLiteral("families[%1]").arg(i), QStringLiteral("must be an object"));
            CatalogFamily f;
            if (!readFamily(fo, at, f, &problem))
                return false;
            if (ids.contains(f.id))
                return r.fail(QStringLiteral("families[%1].id").arg(i), QStringLiteral("'%1' appears twice").arg(f.id));
            ids.insert(f.id);
            families << f;
        }
        return r.ok();
    }();
    if (!ok) {
        if (error)
            *error = problem;
        return false;
    }
    m_families = families;
    return true;
}

bool Catalog::load(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    constexpr qint64 kMaxCatalogBytes = 16 << 20; // a catalog is text: anything this large is not one
    if (file.size() > kMaxCatalogBytes) {
        if (error)
            *error = QStringLiteral("%1: larger than 16 MiB").arg(path);
        return false;
    }
    QString problem;
    if (!parse(file.readAll(), &problem)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, problem);
        return false;
    }
    return true;
}

const CatalogFamily* Catalog::family(const QString& id) const
{
    for (const CatalogFamily& f : m_families)
        if (f.id == id)
            return &f;
    return nullptr;
}

const CatalogVariant* Catalog::resolve(const QString& spec, QString* error) const
{
    const QString familyId = spec.section(QLatin1Char(':'), 0, 0).trimmed().toLower();
    const QString quant = spec.section(QLatin1Char(':'), 1).trimmed().toUpper();
    const CatalogFamily* f = family(familyId);
    auto fail = [error](const QString& why) -> const CatalogVariant* {
        if (error)
            *error = why;
        return nullptr;
    };
    if (!f) {
        QStringList ids;
        for (const CatalogFamily& each : m_families)
            ids << each.id;
        return fail(QStringLiteral("no model '%1' in the catalog (models: %2)").arg(familyId, ids.join(QStringLiteral(", "))));
    }
    QStringList quants;
    for (const CatalogVariant& v : f->variants) {
        if (v.quant == quant)
            return &v;
        quants << v.quant;
    }
    return fail(quant.isEmpty()
                    ? QStringLiteral("say which quant of %1: %1:QUANT (%2)").arg(f->id, quants.join(QStringLiteral(", ")))
                    : QStringLiteral("%1 has no quant %2 (quants: %3)").arg(f->id, quant, quants.join(QStringLiteral(", "))));
}

QString Catalog::builtInPath()
{
    return QStringLiteral(":/hearth/catalog.json");
}

QString Catalog::choosePath(const QString& setting)
{
    const QString env = qEnvironmentVariable("HEARTH_CATALOG");
    if (!env.isEmpty())
        return env;
    return setting.isEmpty() ? builtInPath() : setting;
}
