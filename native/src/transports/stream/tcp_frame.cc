#include "transports/stream/tcp_frame.h"

#include "wire/byte_order.h"

namespace jrdma::tcp {

void encode_frame(const Frame& f, uint8_t* out) noexcept {
  out[0] = static_cast<uint8_t>(f.type);
  out[1] = f.status;
  out[2] = static_cast<uint8_t>(f.atomic);
  out[3] = 0;
  wire::store_le32(out + 4, f.length);
  wire::store_le32(out + 8, f.key);
  wire::store_le32(out + 12, f.immediate);
  wire::store_le64(out + 16, f.address);
  wire::store_le64(out + 24, f.request);
  wire::store_le64(out + 32, f.operand0);
  wire::store_le64(out + 40, f.operand1);
}

bool carries_payload(const Frame& f) noexcept {
  switch (f.type) {
    case FrameType::kSend:
    case FrameType::kWrite:
    case FrameType::kWriteImmediate:
    case FrameType::kSourceAhead:
      return true;
    case FrameType::kReadResponse:
      return f.status == 0;
    default:
      return false;
  }
}

bool decode_frame(const uint8_t* in, Frame* f) noexcept {
  if (in[0] < static_cast<uint8_t>(FrameType::kSend) || in[0] > static_cast<uint8_t>(FrameType::kSourceAhead))
    return false;
  if (in[2] > static_cast<uint8_t>(AtomicOp::kCompareAndSwap) || in[3] != 0) return false;
  f->type = static_cast<FrameType>(in[0]);
  f->status = in[1];
  f->atomic = static_cast<AtomicOp>(in[2]);
  f->length = wire::load_le32(in + 4);
  f->key = wire::load_le32(in + 8);
  f->immediate = wire::load_le32(in + 12);
  f->address = wire::load_le64(in + 16);
  f->request = wire::load_le64(in + 24);
  f->operand0 = wire::load_le64(in + 32);
  f->operand1 = wire::load_le64(in + 40);
  bool response = f->type == FrameType::kReadResponse || f->type == FrameType::kAtomicResponse ||
                  f->type == FrameType::kWriteResponse;
  if (!response && f->status != 0) return false;
  if (f->type != FrameType::kAtomicRequest && f->atomic != AtomicOp::kFetchAndAdd) return false;
  if ((f->type == FrameType::kAtomicRequest || f->type == FrameType::kAtomicResponse ||
       f->type == FrameType::kWriteResponse || f->type == FrameType::kRingsFollow) &&
      f->length != 0) {
    return false;
  }
  return true;
}

}  // namespace jrdma::tcp
