#include "conversationlistmodel.h"

#include <QHash>

#include "chatformat.h"
#include "store/conversation_store.h"

ConversationListModel::ConversationListModel(QObject* parent)
    : KeyedRows<ConversationRow>(parent)
{
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ConversationRow& c = m_rows[index.row()];
    switch (role) {
    case ConversationIdRole: return c.id;
    case TitleRole: return c.title.isEmpty() ? tr("New chat") : c.title;
    case SectionRole: return c.section;
    case UpdatedRole: return c.updated;
    case SnippetRole: return c.snippet;
    case CurrentRole: return c.id == m_currentId;
    case SelectedRole: return m_selected.contains(c.id);
    }
    return {};
}

QHash<int, QByteArray> ConversationListModel::roleNames() const
{
    return {{ConversationIdRole, "conversationId"}, {TitleRole, "title"},     {SectionRole, "section"},
            {UpdatedRole, "updated"},               {SnippetRole, "snippet"}, {CurrentRole, "current"},
            {SelectedRole, "selected"}};
}

void ConversationListModel::changed(qint64 id, int role)
{
    const int row = rowOf(id);
    if (row >= 0)
        emit dataChanged(index(row), index(row), {role});
}

void ConversationListModel::setSearchQuery(const QString& query)
{
    if (query == m_query)
        return;
    m_query = query;
    emit searchQueryChanged();
    const hearth::Status status = refresh();
    if (!status.isOk())
        qWarning("hearth: searching the conversations: %s", status.message().c_str());
}

void ConversationListModel::setCurrentId(qint64 id)
{
    if (id == m_currentId)
        return;
    const qint64 old = m_currentId;
    m_currentId = id;
    changed(old, CurrentRole);
    changed(id, CurrentRole);
    emit currentIdChanged();
}

void ConversationListModel::setSelected(qint64 id, bool selected)
{
    if (selected == m_selected.contains(id))
        return;
    if (selected)
        m_selected.insert(id);
    else
        m_selected.remove(id);
    changed(id, SelectedRole);
    emit selectionChanged();
}

void ConversationListModel::clearSelection()
{
    if (m_selected.isEmpty())
        return;
    const QSet<qint64> old = std::exchange(m_selected, {});
    for (qint64 id : old)
        changed(id, SelectedRole);
    emit selectionChanged();
}

hearth::Status ConversationListModel::refresh()
{
    QList<ConversationRow> next;
    if (m_store && m_store->isOpen()) {
        auto all = m_store->listConversations();
        if (!all.isOk())
            return all.status();
        const QDate today = m_today ? m_today() : QDate::currentDate();
        QHash<qint64, const store::Conversation*> byId;
        for (const store::Conversation& c : *all)
            byId.insert(c.id, &c);
        auto add = [&](const store::Conversation& c, const QString& snippet) {
            next.append({c.id, c.title, c.updated, chat::dateSection(c.updated, today), snippet});
        };
        if (chat::isSendable(m_query)) {
            auto hits = m_store->search(m_query);
            if (!hits.isOk())
                return hits.status();
            for (const store::SearchHit& hit : *hits) {
                if (const store::Conversation* c = byId.value(hit.conversationId))
                    add(*c, hit.snippet);
            }
        } else {
            for (const store::Conversation& c : *all)
                add(c, {});
        }
    }
    syncRows(next);
    // A deleted conversation leaves the selection.
    QSet<qint64> kept;
    for (const ConversationRow& row : std::as_const(m_rows)) {
        if (m_selected.contains(row.id))
            kept.insert(row.id);
    }
    if (kept.size() != m_selected.size()) {
        m_selected = kept;
        emit selectionChanged();
    }
    return hearth::Status::ok();
}
