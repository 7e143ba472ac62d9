"""Sphinx directives that render the plugin system's own tables.

``.. sglang-constants::`` lists every entry-point group, environment
variable and API version from :mod:`sglang.sdk.constants`;
``.. sglang-operations:: TABLE`` renders one operation-status table
(``DEVICE_OPERATIONS``, ``SRT_OPERATIONS`` or ``DIFFUSION_OPERATIONS``);
``.. sglang-hook-targets::`` lists the documented hook targets with their
signatures and signature versions (:data:`sglang.sdk.targets.HOOK_TARGETS`);
``.. sglang-contract-versions::`` lists the versions every contract accepts;
``.. sglang-clauses::`` lists the conformance suite's clauses from its registry.
The docs thus show the values the code uses, not copies of them.
"""

from __future__ import annotations

import ast
import inspect
import itertools
from collections.abc import Mapping
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

import sglang.sdk as sdk
from sglang.sdk import constants
from sglang.sdk.contract import Operation

Cell = str | list[nodes.Node]
"""A table cell: text (a paragraph), or the nodes to put in it."""


def value_cell(value: object) -> list[nodes.Node]:
    """The whole *value* as Python source a reader can copy (no smart quotes, no ellipsis).

    A tuple or frozenset of several items shows one item per line, so a long
    value wraps between its items instead of running past the column.
    """
    if isinstance(value, tuple) and len(value) > 1:
        opening, closing, items = "(", ")", [repr(item) for item in value]
    elif isinstance(value, frozenset) and len(value) > 1:
        opening, closing, items = "frozenset({", "})", sorted(map(repr, value))
    else:
        return [nodes.paragraph("", "", nodes.literal(text=repr(value)))]
    lines = [f"{opening}{items[0]},", *(f"{item}," for item in items[1:-1]), items[-1] + closing]
    return [nodes.paragraph("", "", nodes.literal(text=line)) for line in lines]


def _table(headers: list[str], rows: list[list[Cell]]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for target, cells in ((head, [headers]), (body, rows)):
        for cells_row in cells:
            row = nodes.row()
            for cell in cells_row:
                entry = nodes.entry()
                if isinstance(cell, str):
                    entry += nodes.paragraph(text=cell)
                else:
                    entry.extend(cell)
                row += entry
            target += row
    return table


def _constant_docs() -> dict[str, str]:
    """Map each constant's name to the docstring written below it."""
    tree = ast.parse(inspect.getsource(constants))
    docs: dict[str, str] = {}
    # a constant defined for type checkers only sits in ``if TYPE_CHECKING:``
    body = [
        stmt for node in tree.body for stmt in (node.body if isinstance(node, ast.If) else [node])
    ]
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign | ast.Assign)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name):
                docs[target.id] = " ".join(following.value.value.split())
    return docs


class ConstantsDirective(Directive):
    """Render every public constant of :mod:`sglang.sdk.constants`."""

    def run(self) -> list[nodes.Node]:
        """Build the constants table."""
        docs = _constant_docs()
        rows: list[list[Cell]] = [
            [name, value_cell(getattr(constants, name)), docs.get(name, "")]
            for name in constants.__all__
            if name in docs and not name[0].islower()
        ]
        return [_table(["constant", "value", "meaning"], rows)]


class OperationsDirective(Directive):
    """Render one operation table, named by its attribute in :mod:`sglang.sdk`."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Build the table named by the directive's argument."""
        table: Mapping[str, Operation] = getattr(sdk, self.arguments[0])
        rows: list[list[Cell]] = [
            [
                f"{op.name}()" if op.name != "dispatch_key" else op.name,
                op.status.value,
                op.default,
                op.area,
                op.summary,
                op.serve or "-",
            ]
            for op in table.values()
        ]
        headers = ["operation", "status", "default", "area", "meaning", "default serve calls it"]
        return [_table(headers, rows)]


class HookTargetsDirective(Directive):
    """Render :data:`sglang.sdk.targets.HOOK_TARGETS`: path, signature, version, use."""

    def run(self) -> list[nodes.Node]:
        """Build the documented hook targets' table."""
        from sglang.sdk.targets import HOOK_TARGETS

        rows = [
            [
                target.path,
                target.signature,
                target.runtime,
                ", ".join(str(v) for v in sorted(target.versions.supported)),
                target.use,
            ]
            for target in HOOK_TARGETS.values()
        ]
        return [_table(["target", "signature", "runtime", "api_version", "use"], rows)]


class ContractVersionsDirective(Directive):
    """Render the versions of every kind of contract this release accepts."""

    def run(self) -> list[nodes.Node]:
        """Build the table of contracts, current versions and accepted versions."""
        from sglang.sdk.contract import CONTRACT_VERSIONS
        from sglang.sdk.targets import HOOK_TARGETS

        tables = [*CONTRACT_VERSIONS.values(), *(t.versions for t in HOOK_TARGETS.values())]
        rows = [
            [
                table.contract,
                str(table.current),
                ", ".join(str(v) for v in sorted(table.deprecated)) or "-",
            ]
            for table in tables
        ]
        return [_table(["contract", "current", "deprecated (accepted with a WARNING)"], rows)]


def _shared_prefix(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("."), b.split("."), strict=False):
        if x != y:
            break
        count += 1
    return count


def _prefer_nearest_module() -> None:
    """Resolve a short name both runtimes define (``ServerArgs``) to the referrer's runtime.

    When a fuzzy lookup finds several objects, keep those whose dotted path
    shares the most leading parts with the referring module; Sphinx then
    prefers the canonical one among them as usual.
    """
    from sphinx.domains.python import PythonDomain

    original = PythonDomain.find_obj

    def find_obj(self: PythonDomain, env: Any, modname: str, classname: str, name: str,
                 type: str | None, searchmode: int = 0) -> Any:  # fmt: skip
        matches = original(self, env, modname, classname, name, type, searchmode)
        if len(matches) > 1 and modname:
            best = max(_shared_prefix(modname, found) for found, _ in matches)
            matches = [m for m in matches if _shared_prefix(modname, m[0]) == best]
        return matches

    PythonDomain.find_obj = find_obj  # type: ignore[method-assign]


class ClausesDirective(Directive):
    """Render the conformance suite's clause registry, level by level."""

    def run(self) -> list[nodes.Node]:
        """Build the clause table from :data:`sglang.conformance.CLAUSES`."""
        from sglang.conformance import CLAUSES

        rows: list[list[Cell]] = [
            [
                item.id,
                item.level.value,
                ", ".join(item.runtimes) or "serve backends",
                item.capability.value if item.capability is not None else "",
                item.rule,
            ]
            for item in CLAUSES.values()
        ]
        return [_table(["clause", "level", "applies to", "needs", "rule"], rows)]


def setup(app: Sphinx) -> dict[str, object]:
    """Register the directives."""
    _prefer_nearest_module()
    app.add_directive("sglang-constants", ConstantsDirective)
    app.add_directive("sglang-operations", OperationsDirective)
    app.add_directive("sglang-clauses", ClausesDirective)
    app.add_directive("sglang-hook-targets", HookTargetsDirective)
    app.add_directive("sglang-contract-versions", ContractVersionsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
