#include "devicemodel.h"

#include <QLocale>

DeviceModel::DeviceModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

int DeviceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_devices.size());
}

QVariant DeviceModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const hearth::DeviceInfo& device = m_devices[size_t(index.row())];
    const bool isCuda = device.kind == hearth::DeviceKind::Cuda;
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return QString::fromStdString(device.name);
    case KindRole:
        return QString::fromLatin1(hearth::deviceKindName(device.kind));
    case KindLabelRole:
        return isCuda ? tr("GPU") : tr("CPU");
    case TotalBytesRole:
        return quint64(device.totalBytes);
    case FreeBytesRole:
        return quint64(device.freeBytes);
    case UsedFractionRole:
        if (device.totalBytes == 0 || device.freeBytes > device.totalBytes)
            return 0.0;
        return double(device.totalBytes - device.freeBytes) / double(device.totalBytes);
    case MemoryTextRole:
        if (device.totalBytes == 0)
            return tr("Memory size unknown");
        return tr("%1 total · %2 free").arg(formatGiB(device.totalBytes), formatGiB(device.freeBytes));
    case ComputeCapabilityRole:
        return QString::fromStdString(device.computeCapability);
    default:
        return {};
    }
}

QHash<int, QByteArray> DeviceModel::roleNames() const
{
    return {
        {NameRole, "name"},
        {KindRole, "kind"},
        {KindLabelRole, "kindLabel"},
        {TotalBytesRole, "totalBytes"},
        {FreeBytesRole, "freeBytes"},
        {UsedFractionRole, "usedFraction"},
        {MemoryTextRole, "memoryText"},
        {ComputeCapabilityRole, "computeCapability"},
    };
}

QVariantMap DeviceModel::get(int row) const
{
    QVariantMap map;
    const QModelIndex idx = index(row, 0);
    if (!idx.isValid())
        return map;
    const QHash<int, QByteArray> roles = roleNames();
    for (auto it = roles.cbegin(); it != roles.cend(); ++it)
        map.insert(QString::fromLatin1(it.value()), data(idx, it.key()));
    return map;
}

void DeviceModel::setDevices(std::vector<hearth::DeviceInfo> devices)
{
    const int oldCount = rowCount();
    beginResetModel();
    m_devices = std::move(devices);
    endResetModel();
    if (rowCount() != oldCount)
        emit countChanged();
}

QString DeviceModel::formatGiB(quint64 bytes)
{
    const double gib = double(bytes) / double(1ull << 30);
    return tr("%1 GiB").arg(QLocale().toString(gib, 'f', 1));
}
