#!/usr/bin/env python3
"""Fails when modules of a Python package import each other in a circle.

Usage: check_import_cycles.py [ROOT [PACKAGE]]   (default: python mycel)

Every import counts, module-level or inside a function: an import deferred into a function
only hides a circle. `from pkg import name` depends on the module pkg.name when that is a
module (or the extension pkg._mycel), else on pkg itself. Prints each circle (a strongly
connected component of the import graph) with its edges and exits 1; exits 0 when there is
none. Run by tests/python/test_package_structure.py.
"""
import ast
import os
import sys


def modules(root, package):
    """{module name: file path} for every .py file of the package (None for extensions)."""
    found = {}
    for folder, _, files in os.walk(os.path.join(root, package)):
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".py"):
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
            elif f.endswith(".so"):
                found[os.path.relpath(path, root).split(".")[0].replace(os.sep, ".")] = None
    return found


def imports(name, path, known):
    """The known modules that module `name` (file `path`) imports."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names]
            out.update(s for s in subs if s in known)
            if any(s not in known for s in subs):
                out.add(base)
    return {m for m in out if m in known and m != name}


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main(argv):
    root = argv[1] if len(argv) > 1 else "python"
    package = argv[2] if len(argv) > 2 else "mycel"
    known = modules(root, package)
    graph = {m: (imports(m, p, known) if p else set()) for m, p in known.items()}
    found = cycles(graph)
    for comp in found:
        print("import circle: " + ", ".join(comp))
        for m in comp:
            print(f"  {m} -> {', '.join(sorted(graph[m] & set(comp)))}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
