#!/usr/bin/env bash
# Fails when a C++ file includes a header of a layer that is not below its own
# (docs/architecture.md, "Layers"). Usage: scripts/check_layers.sh [TREE]   (default: the
# repository root)
#
# The layers are the lines of TREE/src/layers.txt, lowest first, the list the build's
# one-library-per-layer link check reads too: a folder may include its own headers and those
# of lower lines. Folders on one line are siblings and do not include each other (runtime
# and data). CUDA sources (.cu, .cuh) are checked too.
# A folder of src/ without a line is an error too: a new layer says where it stands.
# Prints each upward include as file:line and exits 1; exits 0 when there is none.
set -euo pipefail
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
declare -A rank=()
r=0
while IFS= read -r line; do
  line=${line%%#*}
  read -ra folders <<<"$line"
  ((${#folders[@]})) || continue
  for f in "${folders[@]}"; do rank[$f]=$r; done
  r=$((r + 1))
done <"$tree/src/layers.txt"
bad=0
for dir in "$tree"/src/*/; do
  name=$(basename "$dir")
  if [[ -z ${rank[$name]:-} ]]; then
    echo "src/$name/: not a known layer (give it a line in src/layers.txt)"
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
