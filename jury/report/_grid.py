"""A table of figures for the terminal whose every cell is shown whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["grid", "table_width"]


def table_width(widths: Sequence[int]) -> int:
    """A SIMPLE_HEAD table without edges: each column padded by one space on each side and
    separated by one."""
    return sum(widths) + 3 * len(widths) - 1


def grid(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    alert: dict[str, str],
) -> None:
    """A table whose every cell is shown whole: a table when the terminal is wide enough,
    else one line per row (wrapped, never cut). A column in `alert` is coloured where it is
    not 0. The first and any "served by" column are text; the others are figures."""
    widths = [
        max([len(column), *(len(row[i]) for row in rows)]) for i, column in enumerate(columns)
    ]
    if table_width(widths) > console.width:
        console.print(Text(title, style="italic"))
        for row in rows:
            figures = " · ".join(
                f"{c} {v}" for c, v in zip(columns[1:], row[1:], strict=True) if v != "-"
            )
            console.print(Text.assemble((row[0], "bold"), "  ", figures), overflow="fold")
        return
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for index, (column, width) in enumerate(zip(columns, widths, strict=True)):
        justify: Literal["left", "right"] = (
            "left" if index == 0 or column == "served by" else "right"
        )
        table.add_column(column, justify=justify, no_wrap=True, min_width=width)
    for row in rows:
        table.add_row(
            *(
                Text(cell, style=alert.get(column, "") if cell not in ("0", "-") else "")
                for column, cell in zip(columns, row, strict=True)
            )
        )
    console.print(table)
