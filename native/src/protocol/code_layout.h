// The codes that cross JNI inside records (event kinds, operation kinds, statuses, close causes,
// connect failures, refusal reasons...), as part of the layout line (protocol/layout.h). Java
// spells the same list from its own constants (org.jrdma.impl.NativeCodes): a code renumbered or
// added on one side only makes the library unavailable instead of reporting one thing as another.
#pragma once

#include <string>

#include "protocol/event_record.h"
#include "protocol/submission.h"
#include "wire/agent_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

namespace jrdma {

#define JRDMA_CODE(type, name) (std::string(" " #name "=") + std::to_string(static_cast<long long>(type::name)))

inline std::string code_layout() {
  return "codes EventKind" + JRDMA_CODE(EventKind, kOpDone) + JRDMA_CODE(EventKind, kOpsUnposted) +
         JRDMA_CODE(EventKind, kMessage) + JRDMA_CODE(EventKind, kImmediate) + JRDMA_CODE(EventKind, kChannelOpen) +
         JRDMA_CODE(EventKind, kChannelClosed) + JRDMA_CODE(EventKind, kIncoming) +
         JRDMA_CODE(EventKind, kIncomingRejected) + JRDMA_CODE(EventKind, kAsyncEvent) +
         JRDMA_CODE(EventKind, kWakeup) + JRDMA_CODE(EventKind, kTransferNeedsBuffer) +
         JRDMA_CODE(EventKind, kLargeMessage) + JRDMA_CODE(EventKind, kReceiveDone) +
         JRDMA_CODE(EventKind, kAgentRequest) + JRDMA_CODE(EventKind, kAgentReply) +
         JRDMA_CODE(EventKind, kAgentRelease) + JRDMA_CODE(EventKind, kToken) +
         JRDMA_CODE(EventKind, kAdmissionRequest) + JRDMA_CODE(EventKind, kDeviceRemoved) +
         //
         ", OpKind" + JRDMA_CODE(OpKind, kSend) + JRDMA_CODE(OpKind, kCredit) + JRDMA_CODE(OpKind, kWrite) +
         JRDMA_CODE(OpKind, kWriteWithImmediate) + JRDMA_CODE(OpKind, kRead) + JRDMA_CODE(OpKind, kCompareAndSwap) +
         JRDMA_CODE(OpKind, kFetchAndAdd) + JRDMA_CODE(OpKind, kReleaseReceive) + JRDMA_CODE(OpKind, kReceive) +
         JRDMA_CODE(OpKind, kTransferBuffer) + JRDMA_CODE(OpKind, kControl) + JRDMA_CODE(OpKind, kTransferRead) +
         JRDMA_CODE(OpKind, kAllocateRemote) + JRDMA_CODE(OpKind, kReleaseRemote) + JRDMA_CODE(OpKind, kSendToken) +
         JRDMA_CODE(OpKind, kAgentAnswer) +
         //
         ", OpStatus" + JRDMA_CODE(OpStatus, kPeerBufferTooSmall) + JRDMA_CODE(OpStatus, kPeerCouldNotReceive) +
         JRDMA_CODE(OpStatus, kExposeFailed) +
         //
         ", ReceiveStatus" + JRDMA_CODE(ReceiveStatus, kReceived) + JRDMA_CODE(ReceiveStatus, kReceiveTooSmall) +
         //
         ", ClosedCause" + JRDMA_CODE(ClosedCause, kLocal) + JRDMA_CODE(ClosedCause, kPeerDisconnected) +
         JRDMA_CODE(ClosedCause, kOperationFailed) + JRDMA_CODE(ClosedCause, kProtocolError) +
         JRDMA_CODE(ClosedCause, kConnectFailed) + JRDMA_CODE(ClosedCause, kGracefulTimeout) +
         JRDMA_CODE(ClosedCause, kPeerSilent) + JRDMA_CODE(ClosedCause, kOperationTimeout) +
         JRDMA_CODE(ClosedCause, kDeviceRemoved) +
         //
         ", ChannelFailure" + JRDMA_CODE(ChannelFailure, kAddressError) + JRDMA_CODE(ChannelFailure, kRouteError) +
         JRDMA_CODE(ChannelFailure, kRefused) + JRDMA_CODE(ChannelFailure, kRejected) +
         JRDMA_CODE(ChannelFailure, kUnreachable) + JRDMA_CODE(ChannelFailure, kConnectError) +
         JRDMA_CODE(ChannelFailure, kSetupError) + JRDMA_CODE(ChannelFailure, kDeviceRemoved) +
         JRDMA_CODE(ChannelFailure, kWrongPort) + JRDMA_CODE(ChannelFailure, kAttributeRefused) +
         JRDMA_CODE(ChannelFailure, kAuthFailed) +
         //
         ", AuthFailure" + JRDMA_CODE(AuthFailure, kWrongProof) + JRDMA_CODE(AuthFailure, kPeerHungUp) +
         JRDMA_CODE(AuthFailure, kTimedOut) + JRDMA_CODE(AuthFailure, kNotOffered) +
         //
         ", RejectReason" + JRDMA_CODE(wire::RejectReason, kVersionMismatch) +
         JRDMA_CODE(wire::RejectReason, kEagerMismatch) + JRDMA_CODE(wire::RejectReason, kAttributeRefused) +
         JRDMA_CODE(wire::RejectReason, kTooManyPending) + JRDMA_CODE(wire::RejectReason, kAuthMismatch) +
         JRDMA_CODE(wire::RejectReason, kLastReason) +
         //
         ", DecodeStatus" + JRDMA_CODE(wire::DecodeStatus, kControlLength) +
         //
         ", ProtocolViolation" + JRDMA_CODE(ProtocolViolation, kCreditOverflow) +
         JRDMA_CODE(ProtocolViolation, kTransferTooLong) + JRDMA_CODE(ProtocolViolation, kMalformedFrame) +
         //
         ", AgentStatus" + JRDMA_CODE(wire::AgentStatus, kGranted) + JRDMA_CODE(wire::AgentStatus, kOverCount) +
         JRDMA_CODE(wire::AgentStatus, kOverBytes) + JRDMA_CODE(wire::AgentStatus, kFailed) +
         JRDMA_CODE(wire::AgentStatus, kTimedOut) +
         //
         ", AsyncSeverity" + JRDMA_CODE(AsyncSeverity, kInfo) + JRDMA_CODE(AsyncSeverity, kError) +
         JRDMA_CODE(AsyncSeverity, kFatal);
}

#undef JRDMA_CODE

}  // namespace jrdma
