// Shared test data for the app's QtTest tests, by the rules of tests/common/testdata.h: data lives
// under $HEARTH_TEST_DATA (default: ../shared beside the source tree). A test function whose data
// is missing is skipped (QSKIP) and the executable then exits 77, unless something failed; with
// HEARTH_REQUIRE_TEST_DATA=1 missing data fails the function instead.
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QTest>

namespace apptest {

// The absolute path of `relative` under the test data root; empty when it does not exist.
QString testDataPath(const QString& relative);
bool testDataRequired();
int& skippedForData();
// A fresh scratch folder for this process (removed at exit).
QString scratchDir(const QString& testName);

} // namespace apptest

// Binds `var` to the data path, or ends the test function (skipped or failed).
#define APPTEST_DATA(var, relative)                                                                \
    const QString var = apptest::testDataPath(relative);                                           \
    do {                                                                                           \
        if (var.isEmpty()) {                                                                       \
            if (apptest::testDataRequired())                                                       \
                QFAIL(qPrintable(QStringLiteral("required test data missing "                      \
                                                "(HEARTH_REQUIRE_TEST_DATA=1): ") + QString(relative))); \
            ++apptest::skippedForData();                                                           \
            QSKIP(qPrintable(QStringLiteral("test data missing (set HEARTH_TEST_DATA): ") + QString(relative))); \
        }                                                                                          \
    } while (0)

// main() for a test object: like QTEST_GUILESS_MAIN, but exit 77 when data was missing and
// nothing failed.
#define APPTEST_MAIN(TestObject)                                                                   \
    int main(int argc, char** argv)                                                                \
    {                                                                                              \
        QCoreApplication app(argc, argv);                                                          \
        TestObject test;                                                                           \
        const int rc = QTest::qExec(&test, argc, argv);                                            \
        return rc == 0 && apptest::skippedForData() > 0 ? 77 : rc;                                 \
    }
