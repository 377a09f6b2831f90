"""Layout once: run ``dot`` a single time per graph, then make every frame by filling slots.

:func:`run_dot` is the one place that runs Graphviz (it counts its calls in :data:`LAYOUT_CALLS`).
:class:`SvgTemplate` cuts the SVG it returns into fixed text and *slots*: the class of each
node/edge ``<g>``, the text of each label line, the root's ``data-step``. A frame is the fixed
text with the slots filled in, so every frame keeps the same positions and costs one string join.
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess

__all__ = ["INSTALL_HELP", "LAYOUT_CALLS", "DotNotFoundError", "SvgTemplate", "check_dot", "run_dot"]

LAYOUT_CALLS = 0   # how many times dot ran for a player/export layout (tests check: once per graph)

INSTALL_HELP = """Graphviz's `dot` program was not found on PATH, so the graph cannot be drawn.
`pip install graphviz` installs only the Python bindings; install the program itself with one of:
    sudo apt-get install graphviz          (Debian, Ubuntu)
    conda install -c conda-forge graphviz  (conda, mamba)
    brew install graphviz                  (macOS)
then restart the kernel. Meanwhile, print(tape.table()) shows the same steps as a text table."""


class DotNotFoundError(RuntimeError):
    """Graphviz's ``dot`` program is not installed (the message says how to install it)."""

    def __init__(self, message=INSTALL_HELP):
        super().__init__(message)


def check_dot() -> str:
    """The path of ``dot``, or :class:`DotNotFoundError`."""
    path = shutil.which("dot")
    if path is None:
        raise DotNotFoundError()
    return path


def run_dot(source: str, fmt: str = "svg", timeout: float = 120.0, engine: str = "dot", count=True,
            args=()) -> bytes:
    """Run Graphviz on DOT ``source``; returns its output (bytes)."""
    global LAYOUT_CALLS
    exe = check_dot() if engine == "dot" else shutil.which(engine)
    if exe is None:
        raise DotNotFoundError()
    try:
        proc = subprocess.run([exe, f"-T{fmt}", *args], input=source.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except FileNotFoundError:
        raise DotNotFoundError() from None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"graphviz `{engine}` took longer than {timeout:.0f} s on this graph; draw it with a "
                           f"smaller max_nodes=, or read tape.table()") from None
    if count:
        LAYOUT_CALLS += 1
    if proc.returncode != 0:
        raise RuntimeError(f"graphviz `{engine}` failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


_GROUP = re.compile(r'<g id="(agl-[^"]*)" class="(node|edge|cluster)">')
_TEXT = re.compile(r"(<text)([^>]*>)(.*?)(</text>)")
_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)
_SVG_OPEN = re.compile(r"<svg\b([^>]*)>", re.DOTALL)


def clean_svg(svg: str) -> str:
    """Graphviz SVG -> inline SVG: no prolog, comments or namespace URLs; plain ``-`` in ids and texts."""
    svg = svg[svg.index("<svg"):]
    svg = _COMMENT.sub("", svg)
    svg = svg.replace("&#45;", "-")
    return svg


class SvgTemplate:
    """Graphviz SVG cut into fixed ``parts`` and slots: ``svg = parts[0] + v0 + parts[1] + v1 + ...``.

    ``slot_keys[j]`` names slot j: ``("root",)``, ``("cls", dom_id)`` (a node/edge/cluster ``<g>``'s
    class) or ``("text", dom_id, k)`` (the k-th text line of that ``<g>``). ``text_roles`` maps
    ``dom_id`` to the role of each of its text lines (given by the caller, in label order).
    """

    def __init__(self, svg: str, text_roles: dict, css: str = ""):
        svg = clean_svg(svg)
        m = _SVG_OPEN.search(svg)
        attrs = m.group(1)
        attrs = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", attrs)
        attrs = re.sub(r"\s+", " ", attrs).strip()
        self.size = dict(re.findall(r'(width|height)="([^"]*)"', attrs))
        parts, keys, defaults = ["<svg "], [("root",)], [""]
        buf = [f" {attrs}>\n"]
        if css:
            buf.append(f"<style>{css}</style>\n")
        body = svg[m.end():]
        current, line_no, roles = None, 0, None
        for line in body.split("\n"):
            g = _GROUP.match(line)
            if g:
                current, line_no = g.group(1), 0
                roles = text_roles.get(current)
                buf.append(f'<g id="{current}" class="')
                parts.append("".join(buf))
                keys.append(("cls", current))
                defaults.append(g.group(2))
                buf = ['">\n']
                continue
            if current is not None and line.startswith("<text"):
                t = _TEXT.match(line)
                if t is not None and roles is not None:
                    role = roles[line_no] if line_no < len(roles) else f"line{line_no}"
                    buf.append(f'{t.group(1)} class="agl-l-{role}"{t.group(2)}')
                    parts.append("".join(buf))
                    keys.append(("text", current, role))
                    defaults.append(t.group(3))
                    buf = [t.group(4) + "\n"]
                    line_no += 1
                    continue
                line_no += 1
            if line == "</g>":
                current = None
            buf.append(line + "\n")
        parts.append("".join(buf).rstrip("\n"))
        self.parts = parts
        self.slot_keys = keys
        self.defaults = defaults
        self.index = {k: i for i, k in enumerate(keys)}

    def render(self, values) -> str:
        """The SVG with slot j set to ``values[j]`` (already escaped)."""
        parts = self.parts
        out = [parts[0]]
        for j, v in enumerate(values):
            out.append(v)
            out.append(parts[j + 1])
        return "".join(out)


def esc(text: str) -> str:
    """Text for an SVG/HTML text node or attribute."""
    return html.escape(text, quote=True)
