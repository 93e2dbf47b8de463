// A list model over rows keyed by a database id, brought up to date by syncRows: rows that stay
// are updated in place (dataChanged) or moved, new ones inserted, gone ones removed. Views keep
// their delegates and scroll position, which a model reset would throw away.
// Row needs a `qint64 id` member and operator==. GUI thread, like every item model.
#pragma once

#include <QAbstractListModel>
#include <QList>

template <typename Row>
class KeyedRows : public QAbstractListModel
{
public:
    using QAbstractListModel::QAbstractListModel;

    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    const QList<Row>& rows() const { return m_rows; }

    int rowOf(qint64 id) const
    {
        for (int i = 0; i < m_rows.size(); ++i) {
            if (m_rows[i].id == id)
                return i;
        }
        return -1;
    }

protected:
    void syncRows(const QList<Row>& next)
    {
        const int before = int(m_rows.size());
        for (int i = 0; i < next.size(); ++i) {
            int at = i;
            while (at < m_rows.size() && m_rows[at].id != next[i].id)
                ++at;
            if (at == m_rows.size()) {
                beginInsertRows({}, i, i);
                m_rows.insert(i, next[i]);
                endInsertRows();
                continue;
            }
            if (at != i) {
                beginMoveRows({}, at, at, {}, i);
                m_rows.move(at, i);
                endMoveRows();
            }
            if (!(m_rows[i] == next[i])) {
                m_rows[i] = next[i];
                emit dataChanged(index(i), index(i));
            }
        }
        if (m_rows.size() > next.size()) {
            beginRemoveRows({}, int(next.size()), int(m_rows.size()) - 1);
            m_rows.resize(next.size());
            endRemoveRows();
        }
        if (m_rows.size() != before)
            rowCountChanged();
    }

    // Called when the number of rows changed (a subclass emits its count property's signal).
    virtual void rowCountChanged() {}

    QList<Row> m_rows;
};
