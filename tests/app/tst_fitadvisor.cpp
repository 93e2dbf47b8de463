// Will it fit, for catalog variants that are not downloaded: the engine's estimate from the
// family's shape against fixed GPU figures (no GPU is needed), the verdicts fits / tight / does
// not fit, the largest context, the recommended quant per family, and the CPU's speed class.
#include <QTest>

#include "catalog.h"
#include "fitadvisor.h"

namespace {

constexpr double kGiB = double(1ull << 30);

hearth::DeviceInfo gpu(double totalGiB, double freeGiB)
{
    hearth::DeviceInfo d;
    d.kind = hearth::DeviceKind::Cuda;
    d.name = "test GPU";
    d.totalBytes = quint64(totalGiB * kGiB);
    d.freeBytes = quint64(freeGiB * kGiB);
    return d;
}

hearth::DeviceInfo cpu(double ramGiB, double freeGiB)
{
    hearth::DeviceInfo d;
    d.kind = hearth::DeviceKind::Cpu;
    d.name = "test CPU";
    d.totalBytes = quint64(ramGiB * kGiB);
    d.freeBytes = quint64(freeGiB * kGiB);
    return d;
}

QList<VariantFit> fitsOf(const CatalogFamily& family, const FitTarget& target)
{
    QList<VariantFit> fits;
    for (const CatalogVariant& v : family.variants)
        fits << estimateVariantFit(family, v, target);
    return fits;
}

int indexOfQuant(const CatalogFamily& family, const QString& quant)
{
    for (int i = 0; i < family.variants.size(); ++i)
        if (family.variants[i].quant == quant)
            return i;
    return -1;
}

} // namespace

class TestFitAdvisor : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void classification();
    void estimatesOnAFixedGpu();
    void budgetAndFreedMemory();
    void recommendation();
    void hybridModelsAreEstimated();
    void unknownSizesHaveNoEstimate();
    void comingModelsHaveNoEstimate();
    void cpuSpeedClass();

private:
    Catalog m_catalog;
    const CatalogFamily* m_qwen8 = nullptr;
};

void TestFitAdvisor::initTestCase()
{
    QString error;
    QVERIFY2(m_catalog.load(Catalog::builtInPath(), &error), qPrintable(error));
    m_qwen8 = m_catalog.family(QStringLiteral("qwen3-8b"));
    QVERIFY(m_qwen8);
    for (const char* quant : {"Q4_K_M", "Q8_0", "BF16"})
        QVERIFY(indexOfQuant(*m_qwen8, QString::fromLatin1(quant)) >= 0);
}

void TestFitAdvisor::classification()
{
    const quint64 g = 1ull << 30;
    QCOMPARE(classifyFit(10 * g, 20 * g, 24 * g, 0), FitVerdict::Fits);
    QCOMPARE(classifyFit(19 * g, 20 * g, 24 * g, 0), FitVerdict::Tight);      // under 10% left
    QCOMPARE(classifyFit(22 * g, 20 * g, 24 * g, 0), FitVerdict::Tight);      // the card holds it; others use memory now
    QCOMPARE(classifyFit(25 * g, 20 * g, 24 * g, 0), FitVerdict::DoesNotFit); // more than the card
    QCOMPARE(classifyFit(10 * g, 8 * g, 24 * g, 8 * g), FitVerdict::DoesNotFit); // more than the budget
    QCOMPARE(speedClassFor(30), SpeedClass::Fast);
    QCOMPARE(speedClassFor(10), SpeedClass::Usable);
    QCOMPARE(speedClassFor(3), SpeedClass::Slow);
    QCOMPARE(speedClassFor(0.5), SpeedClass::VerySlow);
    QCOMPARE(speedClassFor(0), SpeedClass::Unknown);
}

void TestFitAdvisor::estimatesOnAFixedGpu()
{
    FitTarget target;
    target.device = gpu(12, 11.5);
    target.context = 8192;
    const QList<VariantFit> fits = fitsOf(*m_qwen8, target);
    const VariantFit& q4 = fits[indexOfQuant(*m_qwen8, QStringLiteral("Q4_K_M"))];
    const VariantFit& q8 = fits[indexOfQuant(*m_qwen8, QStringLiteral("Q8_0"))];
    const VariantFit& bf16 = fits[indexOfQuant(*m_qwen8, QStringLiteral("BF16"))];
    for (const VariantFit& f : fits)
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
    QCOMPARE(q4.context, 8192);
    QCOMPARE(q4.verdict, FitVerdict::Fits);
    QVERIFY(q4.maxContext > 8192);
    // 8.2 B weights in BF16 are more than 12 GiB: no context makes them fit.
    QVERIFY(bf16.weightsBytes > quint64(15 * kGiB));
    QCOMPARE(bf16.verdict, FitVerdict::DoesNotFit);
    QCOMPARE(bf16.maxContext, 0);
    // More bits: more memory and less room for context.
    QVERIFY(q4.weightsBytes < q8.weightsBytes && q8.weightsBytes < bf16.weightsBytes);
    QVERIFY(q8.maxContext < q4.maxContext);
    // On a large card everything fits with the model's whole context.
    target.device = gpu(80, 79);
    for (const VariantFit& f : fitsOf(*m_qwen8, target)) {
        QCOMPARE(f.verdict, FitVerdict::Fits);
        QCOMPARE(f.maxContext, m_qwen8->shape.context);
    }
    // The context asked for is capped at the model's own; 0 asks for the model's, at most 4096.
    target.context = 1 << 20;
    QCOMPARE(estimateVariantFit(*m_qwen8, m_qwen8->variants.first(), target).context, m_qwen8->shape.context);
    target.context = 0;
    QCOMPARE(estimateVariantFit(*m_qwen8, m_qwen8->variants.first(), target).context, 4096);
}

void TestFitAdvisor::budgetAndFreedMemory()
{
    const CatalogVariant& q4 = m_qwen8->variants[indexOfQuant(*m_qwen8, QStringLiteral("Q4_K_M"))];
    FitTarget target;
    target.device = gpu(24, 23);
    target.context = 4096;
    QCOMPARE(estimateVariantFit(*m_qwen8, q4, target).verdict, FitVerdict::Fits);
    target.budgetBytes = quint64(3 * kGiB); // a VRAM budget below the model
    QCOMPARE(estimateVariantFit(*m_qwen8, q4, target).verdict, FitVerdict::DoesNotFit);
    // Another model holds most of the card now: tight (it needs freeing) until that memory counts.
    target.budgetBytes = 0;
    target.device = gpu(24, 2);
    const VariantFit busy = estimateVariantFit(*m_qwen8, q4, target);
    QCOMPARE(busy.verdict, FitVerdict::Tight);
    QVERIFY(busy.needsFreeing);
    target.freedBytes = quint64(20 * kGiB); // ...which a load releases first
    const VariantFit freed = estimateVariantFit(*m_qwen8, q4, target);
    QCOMPARE(freed.verdict, FitVerdict::Fits);
    QVERIFY(!freed.needsFreeing);
    QVERIFY(freed.maxContext > busy.maxContext);
}

void TestFitAdvisor::recommendation()
{
    FitTarget target;
    target.context = 4096;
    for (double total : {6.0, 10.0, 12.0, 16.0, 24.0, 48.0, 80.0}) {
        target.device = gpu(total, total - 0.5);
        const QList<VariantFit> fits = fitsOf(*m_qwen8, target);
        const int best = recommendedVariant(*m_qwen8, fits);
        if (best < 0) {
            for (const VariantFit& f : fits) // none: nothing fits with 16K of context
                QVERIFY(f.verdict == FitVerdict::DoesNotFit || f.maxContext < kRecommendedContext || f.needsFreeing);
            continue;
        }
        QVERIFY(fits[best].verdict != FitVerdict::DoesNotFit);
        QVERIFY(fits[best].maxContext >= kRecommendedContext);
        // A comfortable fit with 16K beats a tight one, and none carries more weight bytes (a better quant).
        for (const VariantFit& f : fits)
            if (f.verdict == FitVerdict::Fits && f.maxContext >= kRecommendedContext)
                QVERIFY(fits[best].verdict == FitVerdict::Fits && f.weightsBytes <= fits[best].weightsBytes);
    }
    target.device = gpu(80, 79);
    QCOMPARE(m_qwen8->variants[recommendedVariant(*m_qwen8, fitsOf(*m_qwen8, target))].quant, QStringLiteral("BF16"));
    target.device = gpu(10, 9.5);
    const int small = recommendedVariant(*m_qwen8, fitsOf(*m_qwen8, target));
    QVERIFY(small >= 0);
    QVERIFY(m_qwen8->variants[small].quant != QStringLiteral("BF16"));
    target.device = gpu(4, 3.5); // under the Q4_K_M weights
    QCOMPARE(recommendedVariant(*m_qwen8, fitsOf(*m_qwen8, target)), -1);
}

// Qwen3.6-27B (qwen35: 48 Gated DeltaNet + 16 attention layers) gets the engine's estimate.
void TestFitAdvisor::hybridModelsAreEstimated()
{
    const CatalogFamily* family = m_catalog.family(QStringLiteral("qwen3.6-27b"));
    QVERIFY(family);
    // engines.md §4a's arithmetic: 26.9 B parameters in the text model.
    QVERIFY2(qAbs(double(shapeParameterCount(family->shape)) - 26.90e9) < 0.02e9,
             qPrintable(QString::number(shapeParameterCount(family->shape))));
    const int q4 = indexOfQuant(*family, QStringLiteral("Q4_K_M"));
    QVERIFY(q4 >= 0);
    FitTarget target;
    target.context = 32768;
    target.device = gpu(24, 23.5); // a 24 GB card: ~16 GB of weights and a 32K context fit
    const QList<VariantFit> fits = fitsOf(*family, target);
    for (const VariantFit& f : fits) {
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        QVERIFY(f.verdict != FitVerdict::Unknown && !f.sizesUnknown);
    }
    QVERIFY(fits[q4].verdict == FitVerdict::Fits || fits[q4].verdict == FitVerdict::Tight);
    QVERIFY(fits[q4].weightsBytes > quint64(14 * kGiB) && fits[q4].weightsBytes < quint64(18 * kGiB));
    QVERIFY(fits[q4].maxContext > 32768 && fits[q4].maxContext < family->shape.context);
    const int best = recommendedVariant(*family, fits);
    QVERIFY(best >= 0);
    QVERIFY(fits[best].maxContext >= kRecommendedContext);
    // A 12 GB card holds no context beside the weights.
    target.device = gpu(12, 11.5);
    const VariantFit small = estimateVariantFit(*family, family->variants[q4], target);
    QCOMPARE(small.verdict, FitVerdict::DoesNotFit);
    QCOMPARE(small.maxContext, 0);
}

// The smaller Qwen3.5 sizes are offered, but the catalog does not know their sizes: no estimate,
// said as such, and never recommended.
void TestFitAdvisor::unknownSizesHaveNoEstimate()
{
    const CatalogFamily* family = m_catalog.family(QStringLiteral("qwen3.5-9b"));
    QVERIFY(family);
    QVERIFY(family->requiresArch.isEmpty());
    QCOMPARE(shapeParameterCount(family->shape), quint64(0));
    for (const hearth::DeviceInfo& device : {gpu(80, 79), cpu(64, 48)}) {
        FitTarget target;
        target.device = device;
        const QList<VariantFit> fits = fitsOf(*family, target);
        for (const VariantFit& f : fits) {
            QCOMPARE(f.verdict, FitVerdict::Unknown);
            QVERIFY(f.sizesUnknown);
            QVERIFY2(f.error.contains(QStringLiteral("sizes")), qPrintable(f.error));
            QCOMPARE(f.totalBytes, quint64(0));
            QCOMPARE(f.maxContext, 0);
        }
        QCOMPARE(recommendedVariant(*family, fits), -1);
    }
}

// An architecture Hearth does not run (`requires`): no estimate, and the reason names it.
void TestFitAdvisor::comingModelsHaveNoEstimate()
{
    CatalogFamily coming = *m_qwen8;
    coming.requiresArch = QStringLiteral("mamba2");
    for (CatalogVariant& v : coming.variants)
        v.requiresArch = coming.requiresArch;
    FitTarget target;
    target.device = gpu(80, 79);
    const QList<VariantFit> fits = fitsOf(coming, target);
    for (const VariantFit& f : fits) {
        QCOMPARE(f.verdict, FitVerdict::Unknown);
        QVERIFY(!f.sizesUnknown);
        QVERIFY2(f.error.contains(QStringLiteral("mamba2")), qPrintable(f.error));
    }
    QCOMPARE(recommendedVariant(coming, fits), -1);
}

void TestFitAdvisor::cpuSpeedClass()
{
    FitTarget target;
    target.device = cpu(64, 48);
    target.context = 4096;
    const QList<VariantFit> fits = fitsOf(*m_qwen8, target);
    double previousSpeed = 1e30;
    quint64 previousBytes = 0;
    for (int i = 0; i < fits.size(); ++i) {
        const VariantFit& f = fits[i];
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        QCOMPARE(f.verdict, FitVerdict::Fits); // 48 GiB of RAM free
        QVERIFY(f.tokensPerSecond > 0);
        QCOMPARE(f.speed, speedClassFor(f.tokensPerSecond));
        // The bound is the bandwidth over the bytes a token reads: bigger weights, slower.
        if (f.weightsBytes > previousBytes)
            QVERIFY(f.tokensPerSecond < previousSpeed);
        previousSpeed = f.tokensPerSecond;
        previousBytes = f.weightsBytes;
    }
    const VariantFit& q4 = fits[indexOfQuant(*m_qwen8, QStringLiteral("Q4_K_M"))];
    // At the assumed 50 GB/s an 8B model in ~5 GB reads about ten tokens' worth a second.
    QVERIFY(q4.tokensPerSecond > 5 && q4.tokensPerSecond < 15);
    // The CPU's recommendation: the best quant that still reads at a usable pace.
    const int best = recommendedVariant(*m_qwen8, fits);
    QVERIFY(best >= 0);
    QVERIFY(fits[best].speed == SpeedClass::Usable || fits[best].speed == SpeedClass::Fast);
    for (const VariantFit& f : fits)
        if (f.speed == SpeedClass::Usable || f.speed == SpeedClass::Fast)
            QVERIFY(f.weightsBytes <= fits[best].weightsBytes);
    QVERIFY(m_qwen8->variants[best].quant != QStringLiteral("BF16"));
    // Where every quant crawls, the fastest (smallest) one.
    target.cpuBandwidth = 5e9;
    QCOMPARE(m_qwen8->variants[recommendedVariant(*m_qwen8, fitsOf(*m_qwen8, target))].quant, QStringLiteral("Q4_K_M"));
    target.cpuBandwidth = 1e12; // a machine with far more bandwidth
    QCOMPARE(estimateVariantFit(*m_qwen8, m_qwen8->variants[indexOfQuant(*m_qwen8, QStringLiteral("Q4_K_M"))], target).speed,
             SpeedClass::Fast);
    // Too little RAM: does not fit.
    target.device = cpu(8, 6);
    QCOMPARE(estimateVariantFit(*m_qwen8, m_qwen8->variants[indexOfQuant(*m_qwen8, QStringLiteral("BF16"))], target).verdict,
             FitVerdict::DoesNotFit);
}

QTEST_GUILESS_MAIN(TestFitAdvisor)
#include "tst_fitadvisor.moc"
