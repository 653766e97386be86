// Tags of the context's epoll registrations (epoll_event.data.u32).
#pragma once

#include <cstdint>

namespace jrdma {

constexpr uint32_t kTagCompletion = 1;
constexpr uint32_t kTagAsync = 2;
constexpr uint32_t kTagWake = 3;
constexpr uint32_t kTagCm = 4;

}  // namespace jrdma
