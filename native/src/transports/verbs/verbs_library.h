// libibverbs and librdmacm are resolved at run time (dlopen), not linked: libjrdma.so then loads on
// any host — without rdma-core too — and only the use of verbs needs them (as NCCL and UCX do).
// The verbs and rdma_cm functions the core calls are defined in verbs_symbols.cc, hidden inside
// libjrdma.so, and forward to the pointers resolved here (each with the symbol version it was
// built against, dlvsym). docs/configuration.md lists the minimum rdma-core.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

namespace jrdma::verbs_library {

// Every symbol, with the version node this build's headers bind to.
#define JRDMA_IBVERBS_SYMBOLS(X) \
  X(ibv_get_device_list, "IBVERBS_1.1") \
  X(ibv_free_device_list, "IBVERBS_1.1") \
  X(ibv_get_device_name, "IBVERBS_1.1") \
  X(ibv_open_device, "IBVERBS_1.1") \
  X(ibv_close_device, "IBVERBS_1.1") \
  X(ibv_query_device, "IBVERBS_1.1") \
  X(ibv_query_port, "IBVERBS_1.1") \
  X(_ibv_query_gid_table, "IBVERBS_1.11") \
  X(ibv_get_async_event, "IBVERBS_1.1") \
  X(ibv_ack_async_event, "IBVERBS_1.1") \
  X(ibv_alloc_pd, "IBVERBS_1.1") \
  X(ibv_dealloc_pd, "IBVERBS_1.1") \
  X(ibv_reg_mr, "IBVERBS_1.1") \
  X(ibv_reg_mr_iova2, "IBVERBS_1.8") \
  X(ibv_dereg_mr, "IBVERBS_1.1") \
  X(ibv_create_comp_channel, "IBVERBS_1.0") \
  X(ibv_destroy_comp_channel, "IBVERBS_1.0") \
  X(ibv_create_cq, "IBVERBS_1.1") \
  X(ibv_resize_cq, "IBVERBS_1.1") \
  X(ibv_destroy_cq, "IBVERBS_1.1") \
  X(ibv_get_cq_event, "IBVERBS_1.1") \
  X(ibv_ack_cq_events, "IBVERBS_1.1") \
  X(ibv_create_qp, "IBVERBS_1.1") \
  X(ibv_modify_qp, "IBVERBS_1.1") \
  X(ibv_query_qp, "IBVERBS_1.1") \
  X(ibv_destroy_qp, "IBVERBS_1.1") \
  X(ibv_create_srq, "IBVERBS_1.1") \
  X(ibv_modify_srq, "IBVERBS_1.1") \
  X(ibv_destroy_srq, "IBVERBS_1.1")

#define JRDMA_RDMACM_SYMBOLS(X) \
  X(rdma_get_devices, "RDMACM_1.0") \
  X(rdma_free_devices, "RDMACM_1.0") \
  X(rdma_create_event_channel, "RDMACM_1.0") \
  X(rdma_destroy_event_channel, "RDMACM_1.0") \
  X(rdma_get_cm_event, "RDMACM_1.0") \
  X(rdma_ack_cm_event, "RDMACM_1.0") \
  X(rdma_event_str, "RDMACM_1.0") \
  X(rdma_create_id, "RDMACM_1.0") \
  X(rdma_destroy_id, "RDMACM_1.0") \
  X(rdma_bind_addr, "RDMACM_1.0") \
  X(rdma_resolve_addr, "RDMACM_1.0") \
  X(rdma_resolve_route, "RDMACM_1.0") \
  X(rdma_set_option, "RDMACM_1.0") \
  X(rdma_listen, "RDMACM_1.0") \
  X(rdma_connect, "RDMACM_1.0") \
  X(rdma_accept, "RDMACM_1.0") \
  X(rdma_reject, "RDMACM_1.0") \
  X(rdma_establish, "RDMACM_1.2") \
  X(rdma_disconnect, "RDMACM_1.0") \
  X(rdma_init_qp_attr, "RDMACM_1.2") \
  X(rdma_get_src_port, "RDMACM_1.0") \
  X(rdma_get_dst_port, "RDMACM_1.0")

// The resolved functions. The member names are the functions' own (some are also function-like
// macros in verbs.h: call them as (symbols().ibv_reg_mr)(...)).
struct Symbols {
#define JRDMA_SYMBOL_MEMBER(name, version) decltype(&::name) name;
  JRDMA_IBVERBS_SYMBOLS(JRDMA_SYMBOL_MEMBER)
  JRDMA_RDMACM_SYMBOLS(JRDMA_SYMBOL_MEMBER)
#undef JRDMA_SYMBOL_MEMBER
};

// The functions, loaded on first use (thread-safe). Throws RdmaError (kConfiguration) naming the
// library or symbol that is missing, why (dlerror) and the remedy; later calls throw the same.
const Symbols& symbols();

}  // namespace jrdma::verbs_library
