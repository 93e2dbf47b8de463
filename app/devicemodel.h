// The compute devices the engine found, as a list model for QML (one row per device, CPU first).
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>

#include <vector>

#include "hearth/devices.h"

class DeviceModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("DeviceModel is provided by DeviceStatus.devices")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1, // "NVIDIA GeForce RTX 4090"
        KindRole,                    // "cpu" / "cuda"
        KindLabelRole,               // "CPU" / "GPU": what the user calls it
        TotalBytesRole,              // device memory (CPU: physical RAM)
        FreeBytesRole,               // free now (CPU: available RAM)
        UsedFractionRole,            // 0..1, for a usage bar
        MemoryTextRole,              // "24.0 GiB total · 22.8 GiB free"
        ComputeCapabilityRole,       // "8.9" for CUDA, empty for the CPU
    };
    Q_ENUM(Role)

    explicit DeviceModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    // One row as a map of role name to value (like ListModel.get); empty for a bad row.
    Q_INVOKABLE QVariantMap get(int row) const;

    void setDevices(std::vector<hearth::DeviceInfo> devices);

    // "23.6 GiB", one decimal, in the user's locale.
    static QString formatGiB(quint64 bytes);

signals:
    void countChanged();

private:
    std::vector<hearth::DeviceInfo> m_devices;
};
