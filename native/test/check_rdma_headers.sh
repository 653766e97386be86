#!/bin/sh
# The verbs layer is compiled against the copy of rdma-core's headers in native/third_party/rdma-core,
# never the host's (/usr/include/infiniband, /usr/include/rdma/rdma_cma.h): the build must not need
# rdma-core's development packages. Reads the compiler's dependency files of the jrdma_verbs objects;
# exit 1 when one names a host rdma-core header or none names the copy.
dir=${1:?usage: check_rdma_headers.sh <CMakeFiles/jrdma_verbs.dir>}
deps=$(find "$dir" -name '*.o.d')
[ -n "$deps" ] || { echo "no dependency files under $dir"; exit 1; }
host=$(grep -l -e '/usr/include/infiniband/' -e '/usr/include/rdma/rdma_cma.h' $deps)
if [ -n "$host" ]; then
  echo "compiled against the host's rdma-core headers: $host"
  exit 1
fi
grep -q 'third_party/rdma-core/include/infiniband/verbs.h' $deps || { echo "no object includes the bundled verbs.h"; exit 1; }
echo "jrdma_verbs: rdma-core headers from native/third_party/rdma-core only"
