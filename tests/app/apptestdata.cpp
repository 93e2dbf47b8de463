#include "apptestdata.h"

#include <QDir>
#include <QFileInfo>

#include <cstdlib>

#include "testdata.h"

namespace apptest {

QString testDataPath(const QString& relative)
{
    const QString root = QString::fromStdString(hearth::test::testDataRoot().string());
    const QFileInfo info(QDir(root).filePath(relative));
    return info.exists() ? info.absoluteFilePath() : QString();
}

bool testDataRequired()
{
    return qEnvironmentVariable("HEARTH_REQUIRE_TEST_DATA") == QLatin1String("1");
}

int& skippedForData()
{
    static int count = 0;
    return count;
}

QString scratchDir(const QString& testName)
{
    return QString::fromStdString(hearth::test::scratchDir(testName.toStdString()).string());
}

} // namespace apptest
