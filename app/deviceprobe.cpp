#include "deviceprobe.h"

#include <QMetaObject>

#include <exception>
#include <string>

std::unique_ptr<QThread> startDeviceProbe(QObject* receiver, std::function<hearth::DeviceReport()> probe,
                                          const QString& name,
                                          std::function<void(const hearth::DeviceReport&)> apply)
{
    std::unique_ptr<QThread> thread(QThread::create([receiver, probe = std::move(probe), apply = std::move(apply)] {
        hearth::DeviceReport report;
        try {
            report = probe();
        } catch (const std::exception& e) {
            report.cudaUnavailable = hearth::CudaUnavailable::CudaError;
            report.cudaUnavailableReason = std::string("device probe failed: ") + e.what();
        }
        QMetaObject::invokeMethod(receiver, [apply, report] { apply(report); }, Qt::QueuedConnection);
    }));
    thread->setObjectName(name);
    thread->start();
    return thread;
}
