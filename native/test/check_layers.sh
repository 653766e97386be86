#!/bin/sh
# The native layers depend downwards only (docs/architecture.md, "Native layers"): every
# '#include "<folder>/..."' in native/src names the file's own layer or one below it.
#   base < wire < crypto < protocol < context < transports/stream, transports/verbs < jni
# The two transports do not include each other. Prints each violation; exit 1 if there is one.
src=${1:?usage: check_layers.sh native/src}
status=0
allowed() {
  case $1 in
    base) echo "base" ;;
    wire) echo "wire base" ;;
    crypto) echo "crypto base" ;;
    protocol) echo "protocol wire crypto base" ;;
    context) echo "context protocol wire crypto base" ;;
    transports/stream) echo "transports/stream context protocol wire crypto base" ;;
    transports/verbs) echo "transports/verbs context protocol wire crypto base" ;;
    jni) echo "jni transports/stream transports/verbs context protocol wire crypto base" ;;
    *) echo "" ;;
  esac
}
for file in $(cd "$src" && find . -name '*.h' -o -name '*.cc' | sed 's#^\./##' | sort); do
  layer=$(dirname "$file")
  ok=$(allowed "$layer")
  if [ -z "$ok" ]; then
    echo "$file: folder $layer is not a layer"
    status=1
    continue
  fi
  for included in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$src/$file"); do
    target=$(dirname "$included")
    case " $ok " in
      *" $target "*) ;;
      *) echo "$file includes $included: layer $layer may include only: $ok"; status=1 ;;
    esac
  done
done
[ $status = 0 ] && echo "layers: every include points down"
exit $status
