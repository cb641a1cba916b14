"""One self-contained HTML page: templates, the inline style sheet and script, and the
Content-Security-Policy that allows exactly those two and nothing else.

The policy names the SHA-256 of the page's one ``<style>`` and one ``<script>`` element: no
other script (an answer that smuggled one in, an event-handler attribute) and no inline
``style`` attribute can run, and nothing can be fetched from anywhere (``default-src
'none'``). On top of that, every piece of case and judge text goes through Jinja2's
autoescaping, and the script only shows, hides and reorders what the page already holds.
A section added to a report must therefore use classes, not ``style="..."`` attributes.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import jinja2

__all__ = ["prepare_template", "render_app", "render_page", "write_page"]


def _asset(name: str) -> str:
    return (resources.files("jury.report") / "templates" / name).read_text("utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _heat(value: float | None) -> str:
    """A cell's class from red (agreement at or below chance, 0) to green (1)."""
    if value is None:
        return "hnone"
    return f"h{round(10 * min(1.0, max(0.0, value)))}"


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(_asset),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["pct"] = _pct
    environment.filters["heat"] = _heat
    return environment


def _assets(style_file: str = "report.css", script_file: str = "report.js") -> dict[str, str]:
    style, script = _asset(style_file), _asset(script_file)
    policy = (
        f"default-src 'none'; script-src {_digest(script)}; style-src {_digest(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return {"policy": policy, "style": style, "script": script}


@cache
def prepare_template(template: str) -> None:
    """Compile `template` now, and every template it extends, includes or imports (Jinja2
    keeps them for the page). Compiling the report's takes about 5 MB for a moment; done
    before the records are read back for the page, that memory is free again for them to
    reuse, instead of adding to the run's peak (issue 36)."""
    from jinja2 import meta

    environment, todo, seen = _environment(), [template], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            environment.get_template(name)
            found = meta.find_referenced_templates(environment.parse(_asset(name)))
            todo += [other for other in found if other is not None]


def render_page(template: str, **context: Any) -> str:
    """`template` (a file in ``jury/report/templates``) rendered with the style sheet, the
    script and the policy that allows them."""
    return _environment().get_template(template).render(**_assets(), **context)


def write_page(out: TextIO, template: str, **context: Any) -> None:
    """`render_page` written to `out` as it is rendered (a page of any size is never held
    whole)."""
    for chunk in _environment().get_template(template).generate(**_assets(), **context):
        out.write(chunk)


def render_app(template: str, style: str, script: str, **context: Any) -> tuple[str, str]:
    """A page served by a local command (`jury label`): (the page, its policy). The policy is
    the report's with one addition, ``connect-src 'self'``, because the page's script talks
    to the server that served it, and nowhere else."""
    assets = _assets(style, script)
    assets["policy"] += "; connect-src 'self'"
    return _environment().get_template(template).render(**assets, **context), assets["policy"]
