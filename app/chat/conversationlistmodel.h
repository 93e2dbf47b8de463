// The sidebar's conversations, most recently updated first, in date sections (Today, Yesterday,
// Previous 7 days, Older: ListView's section.property "section"), narrowed by a search over the
// store's full-text index, with the current one and a multi-selection for bulk delete. Reads the
// store it is given (ChatController's) on refresh(); never writes it. GUI thread.
#pragma once

#include <QDateTime>
#include <QQmlEngine>
#include <QSet>

#include <functional>

#include "hearth/status.h"
#include "keyedrows.h"

namespace store {
class ConversationStore;
}

struct ConversationRow {
    qint64 id = 0;
    QString title;
    QDateTime updated;
    QString section;
    QString snippet; // while searching: the matching text
    bool operator==(const ConversationRow& other) const = default;
};

class ConversationListModel : public KeyedRows<ConversationRow>
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ChatController makes it: ChatController.conversations")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(QString searchQuery READ searchQuery WRITE setSearchQuery NOTIFY searchQueryChanged)
    Q_PROPERTY(qint64 currentId READ currentId NOTIFY currentIdChanged)
    Q_PROPERTY(int selectedCount READ selectedCount NOTIFY selectionChanged)

public:
    enum Role {
        ConversationIdRole = Qt::UserRole + 1,
        TitleRole,    // "New chat" until the first message titles it
        SectionRole,
        UpdatedRole,
        SnippetRole,
        CurrentRole,
        SelectedRole,
    };
    Q_ENUM(Role)

    explicit ConversationListModel(QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return int(m_rows.size()); }

    QString searchQuery() const { return m_query; }
    void setSearchQuery(const QString& query);
    qint64 currentId() const { return m_currentId; }
    void setCurrentId(qint64 id);

    int selectedCount() const { return int(m_selected.size()); }
    QList<qint64> selectedIds() const { return m_selected.values(); }
    Q_INVOKABLE void setSelected(qint64 id, bool selected);
    Q_INVOKABLE void clearSelection();

    void setStore(store::ConversationStore* store) { m_store = store; }
    // The calendar day the sections count from (tests set their own; default: today).
    void setToday(std::function<QDate()> today) { m_today = std::move(today); }
    // Reads the list (or the search) again.
    hearth::Status refresh();

signals:
    void countChanged();
    void searchQueryChanged();
    void currentIdChanged();
    void selectionChanged();

private:
    void rowCountChanged() override { emit countChanged(); }
    void changed(qint64 id, int role);

    store::ConversationStore* m_store = nullptr;
    std::function<QDate()> m_today;
    QString m_query;
    qint64 m_currentId = 0;
    QSet<qint64> m_selected;
};
