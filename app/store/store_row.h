// Between the store's value types and SQL rows: bound values and read columns. Internal to
// app/store/.
#pragma once

#include <QDateTime>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <optional>

#include "store/store_types.h"

namespace store {

QDateTime timeFromMs(qint64 ms); // UTC
qint64 msFromTime(const QDateTime& time);

QVariant fromOptional(const std::optional<double>& value); // NULL for nullopt
std::optional<double> toOptional(const QVariant& value);

// Binds model_path, quant, system_prompt, sampling (JSON text), thinking, in that order.
void bindSettings(QSqlQuery& query, const ConversationSettings& settings);

// The columns messageFromRow reads, for "SELECT <kMessageColumns> FROM messages m ...".
extern const QString kMessageColumns;
Message messageFromRow(const QSqlQuery& query);

} // namespace store
