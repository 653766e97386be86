#!/bin/sh
# Checks what the shipped libjrdma.so asks of the host it loads on (issue 15): no glibc symbol
# version above 2.28 and no libstdc++ one above GCC 8's (3.4.25), no libibverbs/librdmacm dependency
# (opened at run time), exported symbols limited to the JNI entry points, and no debug info (kept in
# libjrdma.so.debug).
# Usage: check_library_abi.sh path/to/libjrdma.so   (OBJDUMP, NM, READELF: another architecture's binutils)
set -u
objdump() { command "${OBJDUMP:-objdump}" "$@"; }
nm() { command "${NM:-nm}" "$@"; }
readelf() { command "${READELF:-readelf}" "$@"; }
so=$1
status=0
fail() { echo "FAIL: $*"; status=1; }

newest=$(objdump -T "$so" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
echo "newest glibc version required: $newest"
case "$(printf '%s\n2.28\n' "$newest" | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)" in
  2.28) ;;
  *) fail "a symbol needs glibc $newest (above 2.28): $(objdump -T "$so" | grep "GLIBC_$newest" | awk '{print $NF}' | tr '\n' ' ')" ;;
esac

newest_cxx=$(objdump -T "$so" | grep -o 'GLIBCXX_3\.4\.[0-9]*' | sed 's/GLIBCXX_3.4.//' | sort -n | tail -1)
echo "newest libstdc++ version required: 3.4.${newest_cxx:-none}"
if [ -n "$newest_cxx" ] && [ "$newest_cxx" -gt 25 ]; then
  fail "needs GLIBCXX_3.4.$newest_cxx (above GCC 8's 3.4.25): $(objdump -T "$so" | grep "GLIBCXX_3.4.$newest_cxx" | awk '{print $NF}' | tr '\n' ' ')"
fi

needed=$(readelf -d "$so" | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')
echo "needs: $needed"
for lib in libibverbs librdmacm; do
  case " $needed" in *" $lib"*) fail "depends on $lib at load time" ;; esac
done

exported=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^Java_' | tr '\n' ' ')
echo "exported besides Java_*: $exported"
for symbol in $exported; do
  case "$symbol" in JNI_OnLoad|JNI_OnUnload) ;; *) fail "exports $symbol" ;; esac
done

if readelf -S "$so" | grep -q '\.debug_info'; then fail "carries debug info (should be stripped)"; fi
readelf -S "$so" | grep -q '\.gnu_debuglink' || fail "no .gnu_debuglink to libjrdma.so.debug"
echo "size: $(stat -c %s "$so") bytes"
exit $status
