// Probing the devices off the UI thread (the CUDA module's load and the driver's start take
// noticeable time): one place for DeviceStatus and Diagnostics.
#pragma once

#include <QString>
#include <QThread>

#include <functional>
#include <memory>

#include "hearth/devices.h"

// Starts a thread named `name` that runs `probe` (an exception becomes a CudaError report) and
// hands the report to `apply` as a queued call on `receiver`'s thread, so only once its event loop
// runs. The caller owns the thread and waits for it before `receiver` goes.
std::unique_ptr<QThread> startDeviceProbe(QObject* receiver, std::function<hearth::DeviceReport()> probe,
                                          const QString& name,
                                          std::function<void(const hearth::DeviceReport&)> apply);
