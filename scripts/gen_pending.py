#!/usr/bin/env python3
"""Development scaffold: writes src/ops/pending.cc with weak definitions of every hook named
in the .def files, each throwing "pending". Strong definitions in the family files override
them. The file is deleted once every family is implemented (the op-table test then links)."""
import re, pathlib
root = pathlib.Path(__file__).resolve().parent.parent
names = {"infer": set(), "kernel": set()}
for f in sorted((root / "src/ops/defs").glob("*.def")):
    for m in re.finditer(r"^OP\(\s*(\w+)\s*,\s*[\w]+\s*,\s*[\w]+\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)",
                         f.read_text(), re.M):
        names["infer"].add(m.group(2)); names["kernel"].add(m.group(3)); names["kernel"].add(m.group(4))
out = ['#include "ops/op_table.h"', "namespace mycel {"]
for n in sorted(names["infer"]):
    out.append(f'[[gnu::weak]] void {n}(InferContext& c) {{ MC_THROW(Runtime, "pending: {n} for ", c.op.name); }}')
for n in sorted(names["kernel"]):
    out.append(f'[[gnu::weak]] void {n}(const KernelContext& c) {{ MC_THROW(Runtime, "pending: {n} for ", c.op.name); }}')
out.append('[[gnu::weak]] Tensor view_op(const OpDef&, const Tensor&, const TensorMeta&, const Attrs&) { return {}; }')
out.append("}  // namespace mycel")
(root / "src/ops/pending.cc").write_text("\n".join(out) + "\n")
