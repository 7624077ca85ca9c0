"""The import contract: the package's rooms in layers, checked over the import graph read from the
source (every import, at module level or inside a function, `TYPE_CHECKING` blocks included).

A contract is a list of layers, lowest first; a layer is one room or several independent rooms
(`a | b`). A room is a module or a package (with everything under it that no other room claims).
The rules, each a kind of `Violation`:
- climb: a module imports a room of a higher layer;
- sibling: a module imports a room of its own layer that is not its own room;
- unplaced: a module is in no room;
- cycle: modules that import each other at module level (a loop Python may or may not survive);
- private: a module imports another module's private name (`from a import _b`);
- eager-lazy: an import inside a function without a `# lazy:` comment saying why it waits (on its
  line or the line above); imports inside functions are for lazy loads that matter, and say so.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (a name imported from a package is its submodule if one exists)
    names: tuple[str, ...]  # names taken from the target (empty: the module itself)
    line: int
    in_function: bool
    commented_lazy: bool


@dataclass(frozen=True)
class Violation:
    rule: str
    where: str  # module:line
    what: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.where}: {self.what}"


def modules(package_dirs: dict[str, Path]) -> dict[str, Path]:
    """Module name -> file, for packages given as {dotted name: folder}."""
    found = {}
    for name, folder in package_dirs.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([name, *parts])] = path
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".")[:len(module.split(".")) - (0 if is_package else 1)]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports(found: dict[str, Path], prefix: str) -> list[Import]:
    """Every import of a module of `prefix` by a module of `found`."""
    out = []
    for module, path in found.items():
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        is_package = path.name == "__init__.py"

        def lazy(first) -> bool:
            """A `# lazy:` comment on the line of `first` or just above it; `first` opens a run of
            consecutive imports, which one comment covers."""
            here, above = lines[first.lineno - 1], lines[first.lineno - 2] if first.lineno > 1 else ""
            return "# lazy:" in here or above.strip().startswith("# lazy:")

        def visit(node, in_function: bool) -> None:
            opener = None  # the first import of the run of imports the current one belongs to
            for child in ast.iter_child_nodes(node):
                inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                opener = (opener or child) if isinstance(child, (ast.Import, ast.ImportFrom)) else None
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        out.append(Import(module, alias.name, (), child.lineno, in_function, lazy(opener)))
                elif isinstance(child, ast.ImportFrom):
                    target = _resolve(module, is_package, child.level, child.module)
                    for alias in child.names:
                        sub = f"{target}.{alias.name}"
                        if sub in found:
                            out.append(Import(module, sub, (), child.lineno, in_function, lazy(opener)))
                        else:
                            out.append(Import(module, target, (alias.name,), child.lineno, in_function,
                                              lazy(opener)))
                visit(child, inside)

        visit(ast.parse(text), False)
    return [i for i in out if i.in_function or i.target == prefix or i.target.startswith(prefix + ".")]


def _room(module: str, rooms: list[str]) -> str | None:
    matches = [r for r in rooms if module == r or module.startswith(r + ".")]
    return max(matches, key=len) if matches else None


def check(found: dict[str, Path], layers: list[str], prefix: str) -> list[Violation]:
    """Every breach of the contract `layers` by the modules `found` (all under `prefix`)."""
    layer_of = {}
    for index, layer in enumerate(layers):
        for room in (r.strip() for r in layer.split("|")):
            layer_of[room] = index
    rooms = list(layer_of)
    every = imports(found, prefix)
    violations = []
    for module in found:
        if _room(module, rooms) is None:
            violations.append(Violation("unplaced", module, "in no room of the contract"))
    for imp in every:
        where = f"{imp.source}:{imp.line}"
        internal = imp.target == prefix or imp.target.startswith(prefix + ".")
        if imp.in_function and not imp.commented_lazy:
            violations.append(Violation("eager-lazy", where, f"import of {imp.target} inside a function with no "
                                                             "'# lazy:' comment saying why it waits"))
        if not internal:
            continue
        for name in imp.names:
            if name.startswith("_") and not name.startswith("__") and imp.target != imp.source:
                violations.append(Violation("private", where, f"imports the private name {name} of {imp.target}"))
        a, b = _room(imp.source, rooms), _room(imp.target, rooms)
        if a is None or b is None or a == b:
            continue
        if layer_of[b] > layer_of[a]:
            violations.append(Violation("climb", where, f"{a} imports {imp.target} of the higher room {b}"))
        elif layer_of[b] == layer_of[a]:
            violations.append(Violation("sibling", where, f"{a} imports {imp.target} of its sibling room {b}"))
    violations += _cycles({(i.source, i.target) for i in every if not i.in_function and i.target in found})
    return violations


def _cycles(edges: set[tuple[str, str]]) -> list[Violation]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, []).append(b)
            graph.setdefault(b, [])
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop(); on_stack.discard(member); component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(Violation("cycle", sorted(component)[0],
                                               "modules import each other at module level: "
                                               + " -> ".join(sorted(component))))
    return found
