#include "recurrent_guard.h"

#include <vector>

#include "backend/backend.h"
#include "check.h"
#include "model/model_loader.h"

namespace hearth::test {

void checkRecurrentPositionGuard(const std::string& modelPath, DeviceKind device) {
    auto loaded = loadModel(modelPath);
    CHECK_OK(loaded);
    if (!loaded.isOk()) return;
    auto model = createDeviceModel(*loaded, {.kind = device, .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    auto session = model.value()->createSession({.contextLength = 32, .kvType = KvCacheType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return;
    BackendSession& s = *session.value();
    std::vector<float> logits;
    const std::vector<int32_t> ids = {1, 2, 3};
    CHECK_ERR(s.prefill(ids, 5, LogitsWanted::None, logits, nullptr), StatusCode::InvalidArgument,
              "recurrent state holds 0 tokens");
    CHECK_OK(s.prefill(ids, 0, LogitsWanted::None, logits, nullptr));
    s.checkpoint(3);
    CHECK_EQ(s.rewindTo(2), 0); // the copy at 3 is past 2 and dropped; nothing at 1 or 2: the start
    CHECK_OK(s.prefill(ids, 0, LogitsWanted::None, logits, nullptr));
    CHECK_EQ(s.rewindTo(5), 3); // the live state
    CHECK(s.stateBytes().recurrentState > 0);
}

} // namespace hearth::test
