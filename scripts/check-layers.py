#!/usr/bin/env python3
"""Checks that tcl's code keeps to its layers (ARCHITECTURE.md, "Layers").

Usage: python3 scripts/check-layers.py [PROJECT_ROOT]

Fails (exit 1), naming each offending line, when
  - an `#include` runs from a lower layer to a higher one, or sideways
    between the ground-floor layers (Dialect, Frontend, Target);
  - a library links one on a higher floor (the CMake link graph:
    add_mlir_library LINK_LIBS, add_library + target_link_libraries);
  - the include graph between modules has a circle: a module is a header
    and its implementation (include/tcl/X/Y.h + lib/X/Y.cpp, or a private
    lib/X/Y.h), so A.cpp including B.h while B.cpp includes A.h is one;
  - the link graph between tcl libraries has a circle;
  - a source file in lib/ is longer than its layer allows (a concept that
    wants its own room);
  - a header's include guard does not match its path;
  - a file's LLVM banner is broken (its first line must be
    `//===- <file name> - <what it is> ---...---===//`, 80 columns).
"""
import os
import re
import sys

# Layers, lowest first. Dialect, Frontend and Target share the ground floor
# and must not use each other.
RANK = {"Support": 0, "Dialect": 1, "Frontend": 1, "Target": 1,
        "Transforms": 2, "Registration": 3, "Runtime": 4, "Tuning": 5,
        "Driver": 6, "tools": 7, "bench": 7, "fuzz": 7, "unittests": 8}
GROUND_FLOOR = {"Dialect", "Frontend", "Target"}
# The top-level directories of programs built on the libraries (drivers,
# benchmarks, the libFuzzer targets, tests): layers of their own, above all.
DRIVERS = ("tools", "bench", "fuzz", "unittests")

# Longest source file in lib/<layer>, in lines.
MAX_LINES = {"Tuning": 600, "Frontend": 800}
MAX_LINES_DEFAULT = 800

SOURCE_SUFFIXES = (".h", ".cpp", ".td", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    """The layer of a project path (include/tcl/X/..., lib/X/..., tools/...)."""
    parts = path.split("/")
    if parts[0] in DRIVERS:
        return parts[0]
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "tcl":
        return parts[2]
    if parts[0] == "lib" and len(parts) > 1:
        return parts[1]
    return None


def module_of(path):
    """Header and implementation are one module: include/tcl/X/Y.h and
    lib/X/Y.cpp are both X/Y. A dialect's IR (its ODS ops, interfaces and
    the dialect class that registers them) is one module."""
    stem = os.path.splitext(path)[0]
    for prefix in ("include/tcl/", "lib/"):
        if stem.startswith(prefix):
            stem = stem[len(prefix):]
            break
    match = re.match(r"(Dialect/\w+/IR)/", stem)
    return match.group(1) if match else stem


def source_files(root, tops):
    for top in tops:
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(directory, name), root)


def resolve_include(root, path, target):
    """The project path an include names, or None for generated and
    external headers."""
    if target.startswith("tcl/"):
        candidate = os.path.join("include", target)
        return candidate if os.path.exists(os.path.join(root, candidate)) else None
    candidate = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return candidate if os.path.exists(os.path.join(root, candidate)) else None


def find_cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {d for ds in edges.values() for d in ds}

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return cycles


def against_layers(src, dst):
    if src not in RANK or dst not in RANK or src == dst:
        return False
    return RANK[dst] > RANK[src] or (src in GROUND_FLOOR and dst in GROUND_FLOOR)


def check_includes(root, problems):
    module_edges = {}
    for path in source_files(root, ("include", "lib") + DRIVERS):
        src_layer = layer_of(path)
        with open(os.path.join(root, path), errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                included = resolve_include(root, path, match.group(1))
                if not included:
                    continue
                dst_layer = layer_of(included)
                if against_layers(src_layer, dst_layer):
                    problems.append(f"{path}:{number}: {src_layer} includes "
                                    f"{match.group(1)} ({dst_layer})")
                if src_layer in DRIVERS:
                    continue
                src, dst = module_of(path), module_of(included)
                if src != dst:
                    module_edges.setdefault(src, set()).add(dst)
    for cycle in find_cycles(module_edges):
        problems.append("include circle between modules: " + " -> ".join(cycle))


def cmake_commands(text):
    """(command, arguments) of each CMake command call, comments removed."""
    text = re.sub(r"#[^\n]*", "", text)
    for match in re.finditer(r"\b(\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", text):
        yield match.group(1), match.group(2).split()


def check_links(root, problems):
    library_layer, library_file, links = {}, {}, {}
    keywords = {"PUBLIC", "PRIVATE", "INTERFACE", "LINK_LIBS", "STATIC",
                "SHARED", "OBJECT", "DEPENDS", "ADDITIONAL_HEADER_DIRS",
                "LINK_COMPONENTS", "PARTIAL_SOURCES_INTENDED"}
    for directory, _, files in os.walk(os.path.join(root, "lib")):
        if "CMakeLists.txt" not in files:
            continue
        path = os.path.relpath(os.path.join(directory, "CMakeLists.txt"), root)
        layer = layer_of(path)
        with open(os.path.join(root, path)) as f:
            text = f.read()
        for command, args in cmake_commands(text):
            if not args:
                continue
            if command in ("add_mlir_library", "add_mlir_dialect_library",
                           "add_library"):
                name = args[0]
                library_layer[name], library_file[name] = layer, path
                if "LINK_LIBS" in args:
                    after = args[args.index("LINK_LIBS") + 1:]
                    links.setdefault(name, set()).update(
                        a for a in after if a not in keywords)
            elif command == "target_link_libraries":
                links.setdefault(args[0], set()).update(
                    a for a in args[1:] if a not in keywords)
    graph = {}
    for name, deps in sorted(links.items()):
        if name not in library_layer:
            continue
        for dep in sorted(deps):
            if dep not in library_layer or dep == name:
                continue
            graph.setdefault(name, set()).add(dep)
            if against_layers(library_layer[name], library_layer[dep]):
                problems.append(
                    f"{library_file[name]}: {name} ({library_layer[name]}) "
                    f"links {dep} ({library_layer[dep]})")
    for cycle in find_cycles(graph):
        problems.append("link circle between libraries: " + " -> ".join(cycle))


def check_lengths(root, problems):
    for path in source_files(root, ("lib",)):
        limit = MAX_LINES.get(layer_of(path), MAX_LINES_DEFAULT)
        with open(os.path.join(root, path), errors="replace") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            problems.append(f"{path}: {lines} lines, over the {limit} its "
                            "layer allows")


def check_guards(root, problems):
    for path in source_files(root, ("include",)):
        if not path.endswith(".h"):
            continue
        expected = "TCL_" + re.sub(r"[^A-Za-z0-9]", "_",
                                   path[len("include/tcl/"):]).upper()
        with open(os.path.join(root, path)) as f:
            match = re.search(r"#ifndef (\w+)\n#define \1\n", f.read())
        if not match or match.group(1) != expected:
            found = match.group(1) if match else "none"
            problems.append(f"{path}: include guard {found}, expected "
                            f"{expected}")


def check_banners(root, problems):
    for path in source_files(root, ("include", "lib") + DRIVERS):
        if not path.endswith((".h", ".cpp")):
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            first = f.readline().rstrip("\n")
        name = os.path.basename(path)
        if (not first.startswith(f"//===- {name} - ") or len(first) != 80
                or not first.endswith("===//")):
            problems.append(f"{path}:1: broken banner (want '//===- {name} - "
                            "<description> ---===//', 80 columns)")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    problems = []
    check_includes(root, problems)
    check_links(root, problems)
    check_lengths(root, problems)
    check_guards(root, problems)
    check_banners(root, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) with the layers")
        return 1
    print("layers: one way, no circles, files within their limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
