#include "catalogmodel.h"

#include <algorithm>

#include "modelfacts.h"

QString parametersText(const CatalogFamily& family)
{
    // The shape's count knows the architectures Hearth runs: a coming one is not counted that way.
    const quint64 count = family.parameters > 0          ? quint64(family.parameters)
                          : family.requiresArch.isEmpty() ? shapeParameterCount(family.shape)
                                                          : 0;
    return count > 0 ? formatParameterCount(count) : QString();
}

CatalogVariantModel::CatalogVariantModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

int CatalogVariantModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant CatalogVariantModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CatalogRow& r = m_rows.at(index.row());
    const CatalogVariant& v = r.variant;
    switch (role) {
    case Qt::DisplayRole:
    case SpecRole: return v.id();
    case FamilyIdRole: return r.family.id;
    case FamilyNameRole: return r.family.name;
    case PublisherRole: return r.family.publisher;
    case ParametersRole: return parametersText(r.family);
    case QuantRole: return v.quant;
    case FormatRole: return v.format;
    case FileCountRole: return int(v.files.size());
    case SizeBytesRole: return double(v.totalBytes());
    case LicenseRole: return v.license;
    case LicenseUrlRole: return v.licenseUrl;
    case SourceUrlRole: return r.family.sourceUrl;
    case ComingRole: return !v.requiresArch.isEmpty();
    case RequiresRole: return v.requiresArch;
    case FitReadyRole: return r.fitReady;
    case VerdictRole: return QString::fromLatin1(fitVerdictName(r.fit.verdict));
    case SizesUnknownRole: return r.fit.sizesUnknown;
    case NeedsFreeingRole: return r.fit.needsFreeing;
    case EstimatedBytesRole: return double(r.fit.totalBytes);
    case WeightsBytesRole: return double(r.fit.weightsBytes);
    case ContextRole: return r.fit.context;
    case MaxContextRole: return r.fit.maxContext;
    case SpeedRole: return QString::fromLatin1(speedClassName(r.fit.speed));
    case TokensPerSecondRole: return r.fit.tokensPerSecond;
    case RecommendedRole: return r.recommended;
    case DownloadedRole: return r.downloaded;
    case LocalPathRole: return r.localPath;
    case ErrorRole: return r.fit.error;
    case FirstInFamilyRole: return index.row() == 0 || m_rows.at(index.row() - 1).family.id != r.family.id;
    case ShardsFromIndexRole: return v.shardsFromIndex;
    case VerifiedRole:
        return std::all_of(v.files.begin(), v.files.end(), [](const CatalogFile& f) { return !f.sha256.isEmpty(); });
    }
    return {};
}

QHash<int, QByteArray> CatalogVariantModel::roleNames() const
{
    return {{FamilyIdRole, "familyId"},         {FamilyNameRole, "familyName"},
            {PublisherRole, "publisher"},       {ParametersRole, "parameters"},
            {SpecRole, "spec"},                 {QuantRole, "quant"},
            {FormatRole, "format"},             {FileCountRole, "fileCount"},
            {SizeBytesRole, "sizeBytes"},       {LicenseRole, "license"},
            {LicenseUrlRole, "licenseUrl"},     {SourceUrlRole, "sourceUrl"},
            {ComingRole, "coming"},             {RequiresRole, "requires"},
            {FitReadyRole, "fitReady"},         {VerdictRole, "verdict"},
            {SizesUnknownRole, "sizesUnknown"},
            {NeedsFreeingRole, "needsFreeing"}, {EstimatedBytesRole, "estimatedBytes"},
            {WeightsBytesRole, "weightsBytes"}, {ContextRole, "context"},
            {MaxContextRole, "maxContext"},     {SpeedRole, "speed"},
            {TokensPerSecondRole, "tokensPerSecond"}, {RecommendedRole, "recommended"},
            {DownloadedRole, "downloaded"},     {LocalPathRole, "localPath"},
            {ErrorRole, "error"},               {VerifiedRole, "verified"},
            {FirstInFamilyRole, "firstInFamily"},  {ShardsFromIndexRole, "shardsFromIndex"}};
}

void CatalogVariantModel::setRows(const QList<CatalogRow>& rows)
{
    beginResetModel();
    m_rows = rows;
    endResetModel();
    emit countChanged();
}

void CatalogVariantModel::updateRows(const QList<CatalogRow>& rows)
{
    if (rows.size() != m_rows.size()) {
        setRows(rows);
        return;
    }
    m_rows = rows;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0), index(int(m_rows.size()) - 1));
}

int CatalogVariantModel::indexOfSpec(const QString& spec) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].variant.id().compare(spec, Qt::CaseInsensitive) == 0)
            return i;
    return -1;
}
