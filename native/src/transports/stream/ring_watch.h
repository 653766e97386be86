// The channels whose frames come through shared-memory rings, as the loop looks at them. A ring
// raises no event: the loop looks at it on every poll. With many channels most rings are empty on
// most looks, and a turn that looked at every ring cost O(channels) (20 % of the loop's time with
// 2,000 streaming channels, docs/performance.md). So a channel whose ring was empty for kDozeAfter
// looks in a row dozes — once more than kAlwaysAwake channels are awake: it asks its peer to ring
// the socket after writing (the doorbell the loop arms before it sleeps, shm_pipe.h) and leaves the
// list the loop looks at, until the socket rings or a tick finds bytes in its ring (a doorbell the
// peer did not ring only delays its own channel, by a tick). A few channels never doze: a ring looked
// at while the loop spins costs no system call, a doorbell costs the writer one.
//
// Loop thread only. `Entry` has `transport` (a TcpChannel) and `ring` (a RingWatchState).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace jrdma::tcp {

struct RingWatchState {
  enum class List : uint8_t { kNone, kAwake, kDozing };
  List list = List::kNone;
  uint32_t empty_looks = 0;
  std::size_t index = 0;  // in its list
};

template <typename Entry>
class RingWatch {
 public:
  static constexpr std::size_t kAlwaysAwake = 64;  // no channel dozes while no more are awake
  static constexpr uint32_t kDozeAfter = 256;      // empty looks in a row before a channel may doze

  void add(Entry* entry) {
    entry->ring = RingWatchState{};
    push(awake_, entry, RingWatchState::List::kAwake);
  }

  // The channel goes (its ring with it); nothing when it was never added.
  void remove(Entry* entry) noexcept {
    if (entry->ring.list == RingWatchState::List::kAwake) erase(awake_, entry);
    if (entry->ring.list == RingWatchState::List::kDozing) erase(dozing_, entry);
    entry->ring = RingWatchState{};
  }

  std::size_t awake() const noexcept { return awake_.size(); }
  // Any thread (diagnostics, tests).
  std::size_t dozing() const noexcept { return dozing_count_.load(std::memory_order_relaxed); }

  // One look at every awake ring: `ready(entry)` for each with frames waiting (it may add or remove
  // entries); true when any had. Rings empty for long doze.
  template <typename Ready>
  bool poll(Ready ready) {
    bool worked = false;
    for (std::size_t i = 0; i < awake_.size();) {
      Entry* entry = awake_[i];
      if (entry->transport->input_waiting()) {
        entry->ring.empty_looks = 0;
        ready(*entry);
        worked = true;
      } else if (++entry->ring.empty_looks >= kDozeAfter && awake_.size() > kAlwaysAwake) {
        doze(*entry);
      }
      // An entry that left the list (dozing, removed) has another in its place: look at that one.
      if (i < awake_.size() && awake_[i] == entry) ++i;
    }
    return worked;
  }

  // The socket of a dozing channel rang (or a tick found bytes): it is looked at on every poll again.
  void wake(Entry* entry) {
    if (entry->ring.list != RingWatchState::List::kDozing) return;
    erase(dozing_, entry);
    entry->transport->disarm_sleep();
    entry->ring.empty_looks = 0;
    push(awake_, entry, RingWatchState::List::kAwake);
  }

  // Before the loop sleeps: the awake channels' peers are asked to ring too (the dozing ones were
  // asked already); true when bytes wait in any (then do not sleep).
  bool arm_awake() noexcept {
    bool waiting = false;
    for (Entry* entry : awake_) waiting = entry->transport->arm_sleep() || waiting;
    return waiting;
  }

  void disarm_awake() noexcept {
    for (Entry* entry : awake_) entry->transport->disarm_sleep();
  }

  // Once a tick: a dozing ring with bytes whose doorbell did not come wakes up.
  template <typename Ready>
  void tick(Ready ready) {
    for (std::size_t i = 0; i < dozing_.size();) {
      Entry* entry = dozing_[i];
      if (!entry->transport->input_waiting()) {
        ++i;
        continue;
      }
      wake(entry);  // the last dozing entry takes its place, looked at next
      ready(*entry);
    }
  }

 private:
  // Asks the peer to ring and leaves the awake list; stays when bytes came meanwhile or the channel
  // does not read its rings yet (its frames still come on the socket, whose events the loop sees; it
  // must not doze, as nobody would ring once its peer moves to the rings).
  void doze(Entry& entry) {
    entry.ring.empty_looks = 0;
    if (!entry.transport->reads_rings()) return;
    if (entry.transport->arm_sleep()) {
      entry.transport->disarm_sleep();
      return;
    }
    erase(awake_, &entry);
    push(dozing_, &entry, RingWatchState::List::kDozing);
  }

  void push(std::vector<Entry*>& list, Entry* entry, RingWatchState::List which) {
    entry->ring.list = which;
    entry->ring.index = list.size();
    list.push_back(entry);
    dozing_count_.store(dozing_.size(), std::memory_order_relaxed);
  }

  // Swaps the last entry into its place: O(1).
  void erase(std::vector<Entry*>& list, Entry* entry) noexcept {
    std::size_t at = entry->ring.index;
    list[at] = list.back();
    list[at]->ring.index = at;
    list.pop_back();
    entry->ring.list = RingWatchState::List::kNone;
    dozing_count_.store(dozing_.size(), std::memory_order_relaxed);
  }

  std::vector<Entry*> awake_;
  std::vector<Entry*> dozing_;
  std::atomic<std::size_t> dozing_count_{0};
};

}  // namespace jrdma::tcp
