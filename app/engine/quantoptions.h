// The quant switcher's choices for the loaded model: from a 16/32-bit source every preset, with
// the memory it would need and whether it fits; for an already-quantized file, the other files of
// the same model (same architecture and shape) in the library. Filled by LocalModels; a row's
// action is EngineHost::switchQuant(preset) (kind "preset") or loading its path (kind "file").
#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QQmlEngine>

struct QuantOption {
    QString kind;            // "preset" or "file"
    QString label;           // "Q4_K_M"
    QString preset;          // kind "preset": the preset's name
    QString path;            // the source (preset) or the other file
    quint64 estimatedBytes = 0;
    bool fits = false;
    int maxContext = 0;
    bool current = false;    // what is loaded now
};

class QuantOptionsModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("LocalModels makes it: LocalModels.quantOptions")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        KindRole = Qt::UserRole + 1,
        LabelRole,
        PresetRole,
        PathRole,
        EstimatedBytesRole,
        FitsRole,
        MaxContextRole,
        CurrentRole,
    };
    Q_ENUM(Role)

    explicit QuantOptionsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setOptions(const QList<QuantOption>& options);
    const QList<QuantOption>& options() const { return m_options; }

signals:
    void countChanged();

private:
    QList<QuantOption> m_options;
};
