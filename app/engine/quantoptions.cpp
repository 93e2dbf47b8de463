#include "quantoptions.h"

QuantOptionsModel::QuantOptionsModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

int QuantOptionsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_options.size());
}

QVariant QuantOptionsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QuantOption& o = m_options.at(index.row());
    switch (role) {
    case KindRole: return o.kind;
    case Qt::DisplayRole:
    case LabelRole: return o.label;
    case PresetRole: return o.preset;
    case PathRole: return o.path;
    case EstimatedBytesRole: return double(o.estimatedBytes);
    case FitsRole: return o.fits;
    case MaxContextRole: return o.maxContext;
    case CurrentRole: return o.current;
    }
    return {};
}

QHash<int, QByteArray> QuantOptionsModel::roleNames() const
{
    return {{KindRole, "kind"},       {LabelRole, "label"},
            {PresetRole, "preset"},   {PathRole, "path"},
            {EstimatedBytesRole, "estimatedBytes"}, {FitsRole, "fits"},
            {MaxContextRole, "maxContext"}, {CurrentRole, "current"}};
}

void QuantOptionsModel::setOptions(const QList<QuantOption>& options)
{
    const bool countChanges = options.size() != m_options.size();
    beginResetModel();
    m_options = options;
    endResetModel();
    if (countChanges)
        emit countChanged();
}
