// The replaced operator new and the watchdog of allocation_failure.h.
// free() in the replaced operators pairs with their malloc(); GCC cannot see that through operator new.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include "test/device/allocation_failure.h"

#include <arpa/inet.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

// ASan's, when linked in (the device tests run from the ASan build): ALLOCATION_FAILURE_TRACE=1
// prints where each injected failure happened.
extern "C" void __sanitizer_print_stack_trace() __attribute__((weak));

namespace jrdma::test {
thread_local long fail_countdown = -1;
thread_local long failures = 0;
std::atomic<const char*> step{"starting"};
std::atomic<long> step_allocation{-1};

ChannelOptions small_channels() {
  ChannelOptions channel;
  channel.engine.eager = 4096;
  channel.engine.depth = 16;
  channel.engine.max_message = 1u << 20;
  return channel;
}

VerbsListener* listen_on(VerbsContext& context, int port) {
  sockaddr_in bind{};
  bind.sin_family = AF_INET;
  bind.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, kServerIp, &bind.sin_addr);
  return context.listen(reinterpret_cast<sockaddr*>(&bind), small_channels(), 16);
}

void with_watchdog(int seconds, void (*body)()) {
  std::atomic<bool> finished{false};
  std::thread dog([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!finished && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!finished) {
      std::fprintf(stderr, "HUNG for %d s in step '%s' (failing allocation %ld)\n", seconds, step.load(),
                   step_allocation.load());
      std::_Exit(3);
    }
  });
  body();
  finished = true;
  dog.join();
}
}  // namespace jrdma::test

using jrdma::test::fail_countdown;

void* operator new(std::size_t size) {
  if (fail_countdown >= 0 && fail_countdown-- == 0) {
    ++jrdma::test::failures;
    if (__sanitizer_print_stack_trace != nullptr && std::getenv("ALLOCATION_FAILURE_TRACE") != nullptr) {
      __sanitizer_print_stack_trace();
    }
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
