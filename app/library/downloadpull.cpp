#include "downloadpull.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>
#include <unistd.h>

#include "catalog.h"
#include "downloadqueue.h"
#include "downloadtext.h"
#include "hfendpoint.h"
#include "store/conversation_store.h"

namespace {

void say(const QString& line)
{
    std::fprintf(stderr, "%s\n", qPrintable(line));
    std::fflush(stderr);
}

// One line per report on a terminal (overwritten), one every few seconds in a log.
class ProgressPrinter
{
public:
    void print(const DownloadProgress& p)
    {
        const bool tty = ::isatty(STDERR_FILENO);
        const bool stateChanged = p.state != m_lastState;
        if (!stateChanged && m_clock.isValid() && m_clock.elapsed() < (tty ? 250 : 5000))
            return;
        m_clock.start();
        m_lastState = p.state;
        // The detail names the state itself, except while downloading and after a failure.
        const bool named = p.state == DownloadState::Running || p.state == DownloadState::Failed;
        const QString line = (named ? downloadtext::stateText(p.state) + QStringLiteral(": ") : QString()) +
                             downloadtext::detail(p);
        if (tty)
            std::fprintf(stderr, "\r\033[K%s", qPrintable(line));
        else
            std::fprintf(stderr, "%s\n", qPrintable(line));
        std::fflush(stderr);
    }
    void end()
    {
        if (::isatty(STDERR_FILENO))
            std::fprintf(stderr, "\n");
    }

private:
    QElapsedTimer m_clock;
    DownloadState m_lastState = DownloadState::Queued;
};

} // namespace

int pullModel(const QString& spec, const PullSetup& setup)
{
    Catalog catalog;
    QString error;
    const QString catalogPath = Catalog::choosePath(setup.catalogSetting);
    if (!catalog.load(catalogPath, &error)) {
        say(QStringLiteral("hearth: the model catalog %1 could not be read: %2").arg(catalogPath, error));
        return 1;
    }
    const CatalogVariant* variant = catalog.resolve(spec, &error);
    if (!variant) {
        say(QStringLiteral("hearth: --pull: %1").arg(error));
        return 2;
    }
    if (!variant->requiresArch.isEmpty()) {
        say(QStringLiteral("hearth: %1 is coming: it needs the %2 architecture, which this Hearth does not run yet")
                .arg(variant->id(), variant->requiresArch));
        return 1;
    }
    const DownloadRequest request = requestFromCatalog(*catalog.family(variant->familyId), *variant);
    say(QStringLiteral("hearth: %1 (%2, %3) into %4")
            .arg(request.name, variant->id(), downloadtext::bytes(variant->totalBytes()), setup.modelsFolder));
    say(QStringLiteral("hearth: licence %1%2")
            .arg(request.license.isEmpty() ? QStringLiteral("not stated") : request.license,
                 request.licenseUrl.isEmpty() ? QString() : QStringLiteral(" (") + request.licenseUrl + QLatin1Char(')')));

    DownloadQueue queue;
    DownloadOptions options;
    options.parallel = 1;
    queue.setOptions(options);
    queue.setEndpoint(chooseHfEndpoint(setup.endpointSetting));
    queue.setToken(setup.token);
    const QString database = setup.databasePath.isEmpty() ? store::ConversationStore::defaultPath() : setup.databasePath;
    if (const hearth::Status s = queue.open(database); !s.isOk())
        say(QStringLiteral("hearth: the download list could not be opened (a restart will not resume): %1")
                .arg(QString::fromStdString(s.message())));
    const hearth::Result<qint64> id = queue.add(request, setup.modelsFolder);
    if (!id.isOk()) {
        say(QStringLiteral("hearth: %1").arg(QString::fromStdString(id.status().message())));
        return 1;
    }
    int rc = -1;
    ProgressPrinter printer;
    auto settle = [&](const DownloadProgress& p) {
        if (p.id != *id)
            return;
        printer.print(p);
        if (p.state == DownloadState::Done) {
            printer.end();
            std::printf("%s\n", qPrintable(p.path));
            std::fflush(stdout);
            rc = 0;
        } else if (p.state == DownloadState::Failed || p.state == DownloadState::Paused) {
            printer.end();
            say(QStringLiteral("hearth: %1: %2").arg(variant->id(), p.error.isEmpty() ? downloadtext::stateText(p.state) : p.error));
            rc = 1;
        }
        if (rc >= 0)
            QMetaObject::invokeMethod(QCoreApplication::instance(), [rc] { QCoreApplication::exit(rc); },
                                      Qt::QueuedConnection);
    };
    QObject::connect(&queue, &DownloadQueue::changed, &queue, settle);
    // Already there (or the queue settled it at once).
    if (const DownloadTask* task = queue.task(*id))
        settle(task->progress());
    if (rc >= 0)
        return rc;
    return QCoreApplication::exec();
}
