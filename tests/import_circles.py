#!/usr/bin/env python3
"""Counts import circles between modules of each crate (STYLE.md rule 9).

A module is a source file (`a.rs` beside `a/` is one module; `mod.rs`
names its folder). Every `use crate::…`, `use super::…` and `use self::…`
path is read, group imports included, and so is every `crate::…` or
`super::…` path written in place; each is resolved to the deepest module it
names. A circle is a ring in the graph of those imports, leaving out a
module's reading of its own ancestors: a parent re-exporting its children
and a child reading its parent are fine; two modules importing each other,
directly or around a ring, are not. Production and test code are both read:
a test module that closes a ring is a ring.

Usage: import_circles.py [ROOT]   (default: the workspace root above this
file). Prints each circle found and a closing count; exits 1 when any.
"""

import os
import re
import sys

# The crates of the workspace: (crate name for the report, source root
# file). The tests crate has no module tree worth a rule.
CRATES = [
    ("rypsok-proto", "proto/src/lib.rs"),
    ("rypsok-egress", "proto/egress/src/lib.rs"),
    ("rypsok", "supervisor/src/main.rs"),
    ("rypsok-core", "supervisor/core/src/lib.rs"),
    ("rypsok-worker-net", "worker-net/src/lib.rs"),
    ("rypsok-worker-parse", "worker-parse/src/lib.rs"),
]

LINE_COMMENT = re.compile(r"//[^\n]*")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
# A `use` item up to its semicolon; `pub`, `pub(crate)` and the like before it.
USE_ITEM = re.compile(r"\buse\s+((?:crate|super|self)\b[^;]*);", re.S)
INLINE_PATH = re.compile(r"(?<![\w:])(?:crate|super)(?:::\w+)+")


def strip_comments(text):
    text = BLOCK_COMMENT.sub(" ", text)
    return LINE_COMMENT.sub("", text)


def module_files(root_file):
    """Maps each module path (a tuple of names) to its file, walking the
    `mod NAME;` declarations from the crate root."""
    modules = {}

    def walk(path, file, is_dir_owner):
        modules[path] = file
        text = strip_comments(open(file, encoding="utf-8").read())
        folder = os.path.dirname(file)
        if not is_dir_owner:
            folder = os.path.join(folder, os.path.splitext(os.path.basename(file))[0])
        for name in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M):
            flat = os.path.join(folder, name + ".rs")
            nested = os.path.join(folder, name, "mod.rs")
            if os.path.exists(flat):
                walk(path + (name,), flat, False)
            elif os.path.exists(nested):
                walk(path + (name,), nested, True)

    walk((), root_file, True)
    return modules


def expand_use_tree(tree):
    """Expands `a::{b, c::{d, e}}` into every leaf path, as lists of
    segments."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def expand(prefix, text):
        brace = text.find("{")
        if brace < 0:
            for part in split_top(text):
                segs = [s for s in part.split("::") if s]
                segs = [s.split("as")[0] if False else s for s in segs]
                out.append(prefix + segs)
            return
        head = text[:brace].rstrip(":")
        inner = text[brace + 1 : matching_brace(text, brace)]
        head_segs = [s for s in head.split("::") if s]
        for part in split_top(inner):
            if "{" in part:
                expand(prefix + head_segs, part)
            else:
                out.append(prefix + head_segs + [s for s in part.split("::") if s])

    expand([], tree)
    # `x as y`: the imported path is `x`.
    return [[re.sub(r"as\w+$", "", s) if re.search(r"\bas\b", s) else s for s in p] for p in out]


def matching_brace(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            if cur:
                parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return parts


def resolve(module, segs, modules):
    """The deepest module a use path names, from module `module`."""
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = module
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    target = base
    for seg in rest:
        seg = seg.split(" ")[0]
        if target + (seg,) in modules:
            target = target + (seg,)
        else:
            break
    return target


def edges_of(modules):
    edges = {}
    for module, file in modules.items():
        text = strip_comments(open(file, encoding="utf-8").read())
        # Inline `mod x { … }` blocks (test modules) are read as part of the
        # file's module: their imports are the file's.
        for match in USE_ITEM.finditer(text):
            for segs in expand_use_tree(match.group(1)):
                target = resolve(module, segs, modules)
                if target is None or target == module:
                    continue
                edges.setdefault(module, set()).add(target)
        # Paths written in place (`crate::http::serve(…)`) import too.
        for match in INLINE_PATH.finditer(USE_ITEM.sub(";", text)):
            target = resolve(module, match.group(0).split("::"), modules)
            if target is not None and target != module:
                edges.setdefault(module, set()).add(target)
    return edges


def module_graph(modules, edges):
    """The graph whose rings are circles: each import, except a module's
    reading of its own ancestors."""
    out = {}
    for a, targets in edges.items():
        for b in targets:
            if a[: len(b)] == b:
                continue  # a child reading its parent or an ancestor
            out.setdefault(a, {}).setdefault(b, set()).add((a, b, "imports"))
    return out


def circles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            connect(v)
    return found


def name(path):
    return "::".join(("crate",) + path)


def self_check():
    """The check finds a ring it is shown: two siblings importing each
    other, one through a group import, one through a path in place, and a
    child reading its parent (no ring)."""
    import tempfile

    files = {
        "lib.rs": "mod a;\nmod b;\n",
        "a.rs": "use crate::b::{Thing, other::*};\nmod inner;\n",
        "a/inner.rs": "use super::Thing;\nuse crate::a::Thing as T;\n",
        "b.rs": "pub fn f() { crate::a::g(); }\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        modules = module_files(os.path.join(tmp, "lib.rs"))
        found = circles(module_graph(modules, edges_of(modules)))
    return found == [[("a",), ("b",)]]


def main():
    if not self_check():
        print("import circles: the check no longer finds a ring it is shown")
        return 2
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    total = 0
    module_count = 0
    for crate, root_file in CRATES:
        modules = module_files(os.path.join(root, root_file))
        module_count += len(modules)
        graph = module_graph(modules, edges_of(modules))
        for comp in circles(graph):
            total += 1
            print(f"{crate}: circle between {', '.join(name(m) for m in comp)}")
            members = set(comp)
            for x in comp:
                for y, why in sorted(graph.get(x, {}).items()):
                    if y in members:
                        for a, b, how in sorted(why):
                            print(f"    {name(a)} {how} {name(b)}")
    print(f"import circles: {total} ({module_count} modules in {len(CRATES)} crates)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
