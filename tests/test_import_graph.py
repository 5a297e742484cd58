"""docs/ARCHITECTURE.md rules 12 and 13 and "Layers": each package depends one way, with no
import circle anywhere in pokerroom/ and tournaments/, and no module over 500 lines (one concern
per file) except the engine's hand state machine.

The graph is parsed with `ast` (as tests/test_purity.py does), never imported. Every import
counts: at the top, inside a function (a lazy import still needs the other module) and under
`if TYPE_CHECKING:` (a type names the other module's concept). A package's `__init__` is a
module of its own: its re-exports are its imports, and any `from pkg import x` depends on it
(and on `pkg.x` when that is a module). So a module that its package's `__init__` re-exports
imports its siblings as `import pkg.sibling as sibling` or `from pkg.sibling import name`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.test_purity import absolute_module

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("pokerroom", "tournaments")
MAX_LINES = 500
LONG_ALLOWED = frozenset({"pokerroom/engine/hand.py"})  # the engine's hand state machine

# Today's known circles and long modules in tournaments/, which its restructuring removes.
# This set may only shrink: a circle or long module not listed here fails, and an entry that
# is gone fails until it is taken out. It must be empty when the tournaments restructuring lands.
TOURNAMENTS_TODO_CIRCLES: frozenset[frozenset[str]] = frozenset()
TOURNAMENTS_TODO_LONG: frozenset[str] = frozenset()
# Not tournaments': the blackjack state machine of the casino core, which landed after this rule
# (the casino's own helper splits it, or the lead allows it beside the engine's hand). May only
# shrink, like the lists above.
OTHERS_TODO_LONG: frozenset[str] = frozenset()


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module under the packages, by dotted name (a package by its `__init__.py`)."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module `name` is or lies in (`a.b.Thing` -> `a.b`), or None outside the packages."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules of the packages that `module` (read from `path`) imports, anywhere in it."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(node, package)
            targets.append(base)  # the package's `__init__` too, whatever is taken from it
            targets.extend(f"{base}.{alias.name}" for alias in node.names)
        for target in targets:
            known = _known(target, modules)
            if known is not None and known != module:
                found.add(known)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Module -> the modules it imports, for every module of the packages under `root`."""
    modules = module_files(root, packages)
    return {name: module_imports(name, path, modules) for name, path in modules.items()}


def circles(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """The import circles: strongly connected components of two or more modules (Kosaraju)."""
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(graph[start])))]
        while stack:
            node, edges = stack[-1]
            for nxt in edges:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
            else:
                stack.pop()
                order.append(node)
    reverse: dict[str, set[str]] = {name: set() for name in graph}
    for name, targets in graph.items():
        for target in targets:
            reverse.setdefault(target, set()).add(name)
    found: list[frozenset[str]] = []
    assigned: set[str] = set()
    for start in reversed(order):
        if start in assigned:
            continue
        component, todo = {start}, [start]
        assigned.add(start)
        while todo:
            for prev in reverse[todo.pop()]:
                if prev not in assigned:
                    assigned.add(prev)
                    component.add(prev)
                    todo.append(prev)
        if len(component) > 1:
            found.append(frozenset(component))
    return found


def one_cycle(graph: Mapping[str, Iterable[str]], component: frozenset[str]) -> list[str]:
    """One closed path through the component, to name in a failure: a -> b -> ... -> a."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:  # breadth first inside the component, back to start
        following: list[str] = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt in component and nxt not in parents and nxt != start:
                    parents[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {sorted(component)}")


def new_circles(graph: Mapping[str, Iterable[str]], known: Iterable[frozenset[str]]) -> list[str]:
    """Each circle that is not inside a known one, as a readable path of its modules."""
    allowed = list(known)
    return [
        f"{len(c)} modules: {' -> '.join(one_cycle(graph, c))} (all: {', '.join(sorted(c))})"
        for c in circles(graph)
        if not any(c <= k for k in allowed)
    ]


def long_modules(root: Path, packages: Iterable[str]) -> dict[str, int]:
    """Module file (relative path) -> its line count, for each file over MAX_LINES."""
    counts = {
        path.relative_to(root).as_posix(): len(path.read_text().splitlines())
        for path in module_files(root, packages).values()
    }
    return {name: n for name, n in counts.items() if n > MAX_LINES}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The import graph of the two packages as they are."""
    return import_graph(REPO, PACKAGES)


def test_no_import_circle(graph: dict[str, set[str]]) -> None:
    """ARCHITECTURE "Layers": no two modules import each other, directly or around a circle
    (tournaments' known circles aside, and those may only shrink)."""
    assert new_circles(graph, TOURNAMENTS_TODO_CIRCLES) == []


def test_known_tournament_circles_are_still_there(graph: dict[str, set[str]]) -> None:
    """The TODO list only shrinks: a known circle that has gone is taken off it."""
    found = circles(graph)
    gone = [sorted(k) for k in TOURNAMENTS_TODO_CIRCLES if not any(len(c & k) > 1 for c in found)]
    assert gone == [], "take these off TOURNAMENTS_TODO_CIRCLES"


def test_no_module_over_500_lines() -> None:
    """ARCHITECTURE rule 12: one concern per file, none over 500 lines but the hand engine."""
    long = long_modules(REPO, PACKAGES)
    known = LONG_ALLOWED | TOURNAMENTS_TODO_LONG | OTHERS_TODO_LONG
    assert {m: n for m, n in long.items() if m not in known} == {}
    gone = sorted((TOURNAMENTS_TODO_LONG | OTHERS_TODO_LONG) - set(long))
    assert gone == [], "take these off the TODO lists"


def test_todo_lists_name_only_tournaments() -> None:
    """pokerroom/ has no exemption: the TODO lists name tournaments' modules alone."""
    names = {m for c in TOURNAMENTS_TODO_CIRCLES for m in c} | set(TOURNAMENTS_TODO_LONG)
    assert all(n.startswith("tournaments") for n in names)


def _tree(root: Path, files: Mapping[str, str]) -> None:
    """Write a small package tree under root: relative path -> source."""
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        (  # a plain two-module circle
            {"p/__init__.py": "", "p/a.py": "from p.b import B\n", "p/b.py": "import p.a\n"},
            {"p.a", "p.b"},
        ),
        (  # relative imports, one under TYPE_CHECKING, one inside a function
            {
                "p/__init__.py": "",
                "p/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from .b import B\n",
                "p/b.py": "def f():\n    from . import c\n",
                "p/c.py": "from .a import A\n",
            },
            {"p.a", "p.b", "p.c"},
        ),
        (  # a package re-exports a module that imports a name from the package
            {
                "p/__init__.py": "from p.core import Core\n",
                "p/core.py": "from p import helper\nfrom p import VERSION\n",
                "p/helper.py": "",
            },
            {"p", "p.core"},
        ),
        (  # across packages: a subpackage of one imports the other, which imports it back
            {
                "p/__init__.py": "",
                "p/server/__init__.py": "",
                "p/server/lobby.py": "from q.desk import Desk\n",
                "q/__init__.py": "",
                "q/desk.py": "from p.server.lobby import Answer\n",
            },
            {"p.server.lobby", "q.desk"},
        ),
    ],
)
def test_checker_finds_each_kind_of_circle(
    tmp_path: Path, files: dict[str, str], circle: set[str]
) -> None:
    """An added circle fails the check, named by its modules, however it is imported."""
    _tree(tmp_path, files)
    graph = import_graph(tmp_path, ("p", "q"))
    assert circles(graph) == [frozenset(circle)]
    (message,) = new_circles(graph, TOURNAMENTS_TODO_CIRCLES)
    assert all(name in message for name in circle)
    # a known circle allows itself and anything smaller, nothing that reaches further
    assert new_circles(graph, [frozenset(circle)]) == []
    assert new_circles(graph, [frozenset(sorted(circle)[1:])]) != []


def test_checker_passes_a_one_way_tree(tmp_path: Path) -> None:
    """A module the package re-exports may import its siblings by their full path."""
    _tree(
        tmp_path,
        {
            "p/__init__.py": "from p.hand import Hand\nfrom p import errors\n",
            "p/errors.py": "",
            "p/hand.py": "import p.errors as errors\nfrom p.errors import E\n",
            "p/replay.py": "from p import Hand, errors\n",  # not re-exported: one way
        },
    )
    assert circles(import_graph(tmp_path, ("p",))) == []


def test_from_the_package_counts_the_package(tmp_path: Path) -> None:
    """`from p import errors` in a module that `p/__init__.py` re-exports is a circle with the
    package (the name is read from the package, whose `__init__` is importing that module)."""
    _tree(
        tmp_path,
        {
            "p/__init__.py": "from p.hand import Hand\n",
            "p/errors.py": "",
            "p/hand.py": "from p import errors\n",
        },
    )
    assert circles(import_graph(tmp_path, ("p",))) == [frozenset({"p", "p.hand"})]


def test_long_module_check_counts_lines(tmp_path: Path) -> None:
    """A module of 501 lines is long; one of 500 is not."""
    _tree(tmp_path, {"p/__init__.py": "", "p/a.py": "x = 1\n" * 501, "p/b.py": "x = 1\n" * 500})
    assert long_modules(tmp_path, ("p",)) == {"p/a.py": 501}


# ------------------------------------------------------------------ actors are composed
#: The actors: each owns its parts and has no base class (ARCHITECTURE rule 13; the tournament
#: actor was one class spread over mixins).
ACTORS = {
    "tournaments/actor/tournament.py": "TournamentActor",
    "pokerroom/cash/actor.py": "TableActor",
    "pokerroom/casino/actor.py": "CasinoTable",
}


def class_bases(source: str) -> dict[str, list[str]]:
    """Every class defined in `source` and the names of its bases (as written)."""
    tree = ast.parse(source)
    return {
        node.name: [ast.unparse(base) for base in node.bases]
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def mixins_of_actors(root: Path) -> list[str]:
    """Classes anywhere in the packages whose bases include a class defined in an actor's module
    or in tournaments/actor/ (a part must be composed, never inherited), or an actor with bases."""
    found: list[str] = []
    actor_classes: set[str] = set()
    for path in (root / "tournaments" / "actor").glob("*.py"):
        actor_classes |= {name for name, _ in class_bases(path.read_text()).items()}
    for relative, actor in ACTORS.items():
        bases = class_bases((root / relative).read_text()).get(actor)
        if bases is None:
            found.append(f"{relative}: no class {actor}")
        elif bases:
            found.append(f"{relative}: {actor}({', '.join(bases)})")
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for name, bases in class_bases(path.read_text()).items():
                inherited = [  # a bare name, or one named through tournaments (not click.Group)
                    b
                    for b in bases
                    if b.rpartition(".")[2] in actor_classes
                    and ("." not in b or b.startswith("tournaments."))
                ]
                inherited += [b for b in bases if b.endswith("Mixin")]
                if inherited:
                    found.append(f"{path.relative_to(root)}: {name}({', '.join(inherited)})")
    return found


def test_actors_have_no_bases_and_no_class_inherits_an_actors_part() -> None:
    assert mixins_of_actors(REPO) == []


def test_the_mixin_check_finds_an_actor_spread_over_mixins(tmp_path: Path) -> None:
    for relative, actor in ACTORS.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(f"class {actor}:\n    pass\n")
    (tmp_path / "pokerroom" / "x.py").write_text("class Helper(object):\n    pass\n")
    assert mixins_of_actors(tmp_path) == []
    (tmp_path / "tournaments/actor/staff.py").write_text("class StaffActions:\n    pass\n")
    (tmp_path / "tournaments/actor/tournament.py").write_text(
        "from tournaments.actor.staff import StaffActions\n\n"
        "class TournamentActor(StaffActions):\n    pass\n"
    )
    (tmp_path / "pokerroom/y.py").write_text("class Seats(TableMixin):\n    pass\n")
    assert mixins_of_actors(tmp_path) == [
        "tournaments/actor/tournament.py: TournamentActor(StaffActions)",
        "pokerroom/y.py: Seats(TableMixin)",
        "tournaments/actor/tournament.py: TournamentActor(StaffActions)",
    ]
