// The layouts of the records that cross JNI, as one line of text. Java builds the same line from
// its own constants (org.jrdma.impl.Layouts) and refuses a library whose line differs, so the two
// sides can never silently disagree on an offset.
#pragma once

#include <cstddef>
#include <string>

#include "context/context_settings.h"
#include "protocol/channel_counters.h"
#include "protocol/channel_settings.h"
#include "protocol/code_layout.h"
#include "protocol/event_record.h"
#include "protocol/submission.h"

namespace jrdma {

inline std::string cross_language_layout() {
  auto field = [](const char* name, std::size_t value) { return std::string(name) + "=" + std::to_string(value); };
  return "record " + field("size", sizeof(EventRecord)) + "," + field("key", offsetof(EventRecord, key)) + "," +
         field("a", offsetof(EventRecord, a)) + "," + field("b", offsetof(EventRecord, b)) + "," +
         field("c", offsetof(EventRecord, c)) + "," + field("d", offsetof(EventRecord, d)) + "; submission " +
         field("size", sizeof(Submission)) + "," + field("kind", offsetof(Submission, kind)) + "," +
         field("receive_slot", offsetof(Submission, receive_slot)) + "," +
         field("deadline_ms", offsetof(Submission, deadline_ms)) + "," +
         field("local_address", offsetof(Submission, local_address)) + "," +
         field("length", offsetof(Submission, length)) + "," + field("lkey", offsetof(Submission, lkey)) + "," +
         field("remote_address", offsetof(Submission, remote_address)) + "," +
         field("rkey", offsetof(Submission, rkey)) + "," + field("immediate", offsetof(Submission, immediate)) + "," +
         field("seq", offsetof(Submission, seq)) + "," + field("compare_add", offsetof(Submission, compare_add)) + "," +
         field("swap", offsetof(Submission, swap)) + "; " + channel_settings_layout() + "; " +
         context_settings_layout() + "; counters " + ChannelCounters::layout() +
         "; poll modes EVENT,ADAPTIVE,BUSY" +  // context/adaptive_spin.h
         "; transports AUTO,VERBS,TCP,SHM" +   // jni/context_handle.h: TransportKind
         "; " + code_layout();
}

}  // namespace jrdma
