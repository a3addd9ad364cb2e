#!/usr/bin/env bash
# Fails when a C++ file includes a header of a layer above its own (docs/architecture.md,
# "Layers"). Usage: scripts/check_layers.sh [TREE]   (default: the repository root)
#
# The layers, lowest first; a folder may include its own headers and those of lower ranks.
# Folders of one rank are siblings and do not include each other (runtime and data).
#   base < tensor < device, comm < ops < kernels < ir < runtime, data < compiler < serialize
#   < frontend < python (the bindings)
# comm/ holds the communicators (the Communicator interface, Gloo and MPI backends, process
# groups), siblings of the devices: collective kernels reach them through KernelContext.
# device/ holds the device backends (device/cuda: memory, streams, copies), below the op
# table; their kernels live in kernels/<device>/. CUDA sources (.cu, .cuh) are checked too.
# A folder of src/ without a rank is an error too: a new layer says where it stands.
# Prints each upward include as file:line and exits 1; exits 0 when there is none.
set -euo pipefail
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
declare -A rank=([base]=0 [tensor]=1 [device]=2 [comm]=2 [ops]=3 [kernels]=4 [ir]=5 [runtime]=6
                 [data]=6 [compiler]=7 [serialize]=8 [frontend]=9 [python]=10)
bad=0
for dir in "$tree"/src/*/; do
  name=$(basename "$dir")
  if [[ -z ${rank[$name]:-} ]]; then
    echo "src/$name/: not a known layer (give it a rank in scripts/check_layers.sh)"
    bad=1
  fi
done
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  header=$(sed -E 's/^[0-9]+:#include "([^"]+)".*/\1/' <<<"$rest")
  rel=${file#"$tree"/src/}
  from=${rel%%/*}
  to=${header%%/*}
  [[ -n ${rank[$from]:-} && -n ${rank[$to]:-} && $from != "$to" ]] || continue
  if ((rank[$to] >= rank[$from])); then
    echo "$file:$line: $from/ includes $header, from layer $to/, which is not below it"
    bad=1
  fi
done < <(grep -rn --include='*.h' --include='*.cc' --include='*.def' --include='*.cu' \
  --include='*.cuh' '^#include "' "$tree/src")
exit $bad
