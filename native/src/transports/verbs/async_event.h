// Classification of device async events (ibv_get_async_event).
#pragma once

#include <infiniband/verbs.h>

#include "protocol/event_record.h"

namespace jrdma {

AsyncSeverity classify_async_event(ibv_event_type type) noexcept;

// 0 unless the event concerns a port.
int async_event_port(const ibv_async_event& event) noexcept;

}  // namespace jrdma
