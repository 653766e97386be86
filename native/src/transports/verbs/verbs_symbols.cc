// The libibverbs and librdmacm functions the core calls (directly, or through verbs.h's inline
// functions), defined here so that libjrdma.so needs neither library at load time: each forwards to
// the function verbs_library resolved at run time. Hidden (-fvisibility=hidden): they bind the core's
// calls and are never seen by librdmacm or anything else in the process.
#include "transports/verbs/verbs_library.h"

using jrdma::verbs_library::symbols;

extern "C" {

// libibverbs
ibv_device** ibv_get_device_list(int* num_devices) { return symbols().ibv_get_device_list(num_devices); }
void ibv_free_device_list(ibv_device** list) { symbols().ibv_free_device_list(list); }
const char* ibv_get_device_name(ibv_device* device) { return symbols().ibv_get_device_name(device); }
ibv_context* ibv_open_device(ibv_device* device) { return symbols().ibv_open_device(device); }
int ibv_close_device(ibv_context* context) { return symbols().ibv_close_device(context); }
int ibv_query_device(ibv_context* context, ibv_device_attr* attr) { return symbols().ibv_query_device(context, attr); }
// ibv_query_port and ibv_reg_mr are also function-like macros: the parentheses keep them from expanding.
int(ibv_query_port)(ibv_context* context, uint8_t port, _compat_ibv_port_attr* attr) {
  return (symbols().ibv_query_port)(context, port, attr);
}
ssize_t _ibv_query_gid_table(ibv_context* context, ibv_gid_entry* entries, size_t max_entries, uint32_t flags,
                             size_t entry_size) {
  return symbols()._ibv_query_gid_table(context, entries, max_entries, flags, entry_size);
}
int ibv_get_async_event(ibv_context* context, ibv_async_event* event) {
  return symbols().ibv_get_async_event(context, event);
}
void ibv_ack_async_event(ibv_async_event* event) { symbols().ibv_ack_async_event(event); }
ibv_pd* ibv_alloc_pd(ibv_context* context) { return symbols().ibv_alloc_pd(context); }
int ibv_dealloc_pd(ibv_pd* pd) { return symbols().ibv_dealloc_pd(pd); }
ibv_mr*(ibv_reg_mr)(ibv_pd* pd, void* addr, size_t length, int access) {
  return (symbols().ibv_reg_mr)(pd, addr, length, access);
}
ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova, unsigned int access) {
  return symbols().ibv_reg_mr_iova2(pd, addr, length, iova, access);
}
int ibv_dereg_mr(ibv_mr* mr) { return symbols().ibv_dereg_mr(mr); }
ibv_comp_channel* ibv_create_comp_channel(ibv_context* context) { return symbols().ibv_create_comp_channel(context); }
int ibv_destroy_comp_channel(ibv_comp_channel* channel) { return symbols().ibv_destroy_comp_channel(channel); }
ibv_cq* ibv_create_cq(ibv_context* context, int cqe, void* cq_context, ibv_comp_channel* channel, int comp_vector) {
  return symbols().ibv_create_cq(context, cqe, cq_context, channel, comp_vector);
}
int ibv_resize_cq(ibv_cq* cq, int cqe) { return symbols().ibv_resize_cq(cq, cqe); }
int ibv_destroy_cq(ibv_cq* cq) { return symbols().ibv_destroy_cq(cq); }
int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context) {
  return symbols().ibv_get_cq_event(channel, cq, cq_context);
}
void ibv_ack_cq_events(ibv_cq* cq, unsigned int nevents) { symbols().ibv_ack_cq_events(cq, nevents); }
ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) { return symbols().ibv_create_qp(pd, attr); }
int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) { return symbols().ibv_modify_qp(qp, attr, mask); }
int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) {
  return symbols().ibv_query_qp(qp, attr, mask, init);
}
int ibv_destroy_qp(ibv_qp* qp) { return symbols().ibv_destroy_qp(qp); }
ibv_srq* ibv_create_srq(ibv_pd* pd, ibv_srq_init_attr* attr) { return symbols().ibv_create_srq(pd, attr); }
int ibv_modify_srq(ibv_srq* srq, ibv_srq_attr* attr, int mask) { return symbols().ibv_modify_srq(srq, attr, mask); }
int ibv_destroy_srq(ibv_srq* srq) { return symbols().ibv_destroy_srq(srq); }

// librdmacm
ibv_context** rdma_get_devices(int* num_devices) { return symbols().rdma_get_devices(num_devices); }
void rdma_free_devices(ibv_context** list) { symbols().rdma_free_devices(list); }
rdma_event_channel* rdma_create_event_channel() { return symbols().rdma_create_event_channel(); }
void rdma_destroy_event_channel(rdma_event_channel* channel) { symbols().rdma_destroy_event_channel(channel); }
int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event) {
  return symbols().rdma_get_cm_event(channel, event);
}
int rdma_ack_cm_event(rdma_cm_event* event) { return symbols().rdma_ack_cm_event(event); }
const char* rdma_event_str(rdma_cm_event_type event) { return symbols().rdma_event_str(event); }
int rdma_create_id(rdma_event_channel* channel, rdma_cm_id** id, void* context, rdma_port_space ps) {
  return symbols().rdma_create_id(channel, id, context, ps);
}
int rdma_destroy_id(rdma_cm_id* id) { return symbols().rdma_destroy_id(id); }
int rdma_bind_addr(rdma_cm_id* id, sockaddr* addr) { return symbols().rdma_bind_addr(id, addr); }
int rdma_resolve_addr(rdma_cm_id* id, sockaddr* src, sockaddr* dst, int timeout_ms) {
  return symbols().rdma_resolve_addr(id, src, dst, timeout_ms);
}
int rdma_resolve_route(rdma_cm_id* id, int timeout_ms) { return symbols().rdma_resolve_route(id, timeout_ms); }
int rdma_set_option(rdma_cm_id* id, int level, int optname, void* optval, size_t optlen) {
  return symbols().rdma_set_option(id, level, optname, optval, optlen);
}
int rdma_listen(rdma_cm_id* id, int backlog) { return symbols().rdma_listen(id, backlog); }
int rdma_connect(rdma_cm_id* id, rdma_conn_param* param) { return symbols().rdma_connect(id, param); }
int rdma_accept(rdma_cm_id* id, rdma_conn_param* param) { return symbols().rdma_accept(id, param); }
int rdma_reject(rdma_cm_id* id, const void* private_data, uint8_t length) {
  return symbols().rdma_reject(id, private_data, length);
}
int rdma_establish(rdma_cm_id* id) { return symbols().rdma_establish(id); }
int rdma_disconnect(rdma_cm_id* id) { return symbols().rdma_disconnect(id); }
int rdma_init_qp_attr(rdma_cm_id* id, ibv_qp_attr* attr, int* mask) {
  return symbols().rdma_init_qp_attr(id, attr, mask);
}
__be16 rdma_get_src_port(rdma_cm_id* id) { return symbols().rdma_get_src_port(id); }
__be16 rdma_get_dst_port(rdma_cm_id* id) { return symbols().rdma_get_dst_port(id); }

}  // extern "C"
