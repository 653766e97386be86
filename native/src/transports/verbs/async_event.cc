#include "transports/verbs/async_event.h"

namespace jrdma {

AsyncSeverity classify_async_event(ibv_event_type type) noexcept {
  switch (type) {
    case IBV_EVENT_DEVICE_FATAL:
    case IBV_EVENT_CQ_ERR:  // completions were lost: nothing on this CQ can be trusted
      return AsyncSeverity::kFatal;
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
    case IBV_EVENT_SRQ_ERR:
      return AsyncSeverity::kError;
    default:
      return AsyncSeverity::kInfo;
  }
}

int async_event_port(const ibv_async_event& event) noexcept {
  switch (event.event_type) {
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
      return event.element.port_num;
    default:
      return 0;
  }
}

}  // namespace jrdma
