// The library page's list: every variant of every catalog family, in catalog order (a view groups
// them by family with `familyName` as its section), with its size, licence, whether it is
// downloaded, and the fit on this machine (verdict, largest context, recommended, CPU speed).
// Filled by ModelLibrary; QML only shows it.
#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QQmlEngine>

#include "catalog.h"
#include "fitadvisor.h"

struct CatalogRow {
    CatalogFamily family;      // without its variants
    CatalogVariant variant;
    VariantFit fit;
    bool fitReady = false;     // the estimate has been made
    bool recommended = false;
    QString localPath;         // where it is (or would be) in the models folder
    bool downloaded = false;   // every file is there
};

class CatalogVariantModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ModelLibrary makes it: ModelLibrary.variants")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        FamilyIdRole = Qt::UserRole + 1,
        FamilyNameRole,
        PublisherRole,
        ParametersRole,     // "8.2B", from the shape (or the catalog's figure)
        SpecRole,           // "qwen3-8b:Q4_K_M": what --pull and the downloader take
        QuantRole,
        FormatRole,         // "gguf" or "safetensors"
        FileCountRole,
        SizeBytesRole,      // -1: unknown
        LicenseRole,
        LicenseUrlRole,
        SourceUrlRole,
        ComingRole,         // needs an architecture the engine does not run yet
        RequiresRole,
        FitReadyRole,
        VerdictRole,        // "fits", "tight", "no", "unknown"
        SizesUnknownRole,   // "unknown" because the catalog does not know the model's sizes
        NeedsFreeingRole,   // tight because other programs hold memory now
        EstimatedBytesRole, // at the chosen context
        WeightsBytesRole,
        ContextRole,        // the chosen context the estimate is for
        MaxContextRole,
        SpeedRole,          // CPU: "fast", "usable", "slow", "very-slow"; else "unknown"
        TokensPerSecondRole,
        RecommendedRole,
        DownloadedRole,
        LocalPathRole,
        ErrorRole,
        VerifiedRole,       // every file has a published SHA-256
        FirstInFamilyRole,  // the family's first variant: its row carries the family's heading
        ShardsFromIndexRole, // its shards come from its index at download time (not in fileCount)
    };
    Q_ENUM(Role)

    explicit CatalogVariantModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setRows(const QList<CatalogRow>& rows);
    const QList<CatalogRow>& rows() const { return m_rows; }
    // Updates fits, recommendations and downloaded flags of the rows in place (same order).
    void updateRows(const QList<CatalogRow>& rows);
    Q_INVOKABLE int indexOfSpec(const QString& spec) const;

signals:
    void countChanged();

private:
    QList<CatalogRow> m_rows;
};

// 8190000000 -> "8.2B" (formatParameterCount's words).
QString parametersText(const CatalogFamily& family);
