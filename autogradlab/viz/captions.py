"""Captions: each step in words, with the chain rule filled in with its numbers.

:func:`caption` gives two HTML forms of the same text: one with LaTeX between ``$...$`` for the
widget (``ipywidgets.HTMLMath`` typesets it with MathJax), and one with plain HTML formulas for
the exported file (which must work offline, where MathJax cannot load).

    $\\bar{a} = \\bar{y} \\cdot b = 1 \\cdot 3 = 3$        # widget
    ā = ȳ · b = 1 · 3 = 3                              # export
"""
from __future__ import annotations

import functools
import html
import re

import numpy

from .. import events as ev

__all__ = ["caption", "error_caption"]

_ELEMENTWISE = {"add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid",
                "relu", "abs", "maximum", "minimum", "clamp", "where", "clone", "to_dtype"}
_FUNCS = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sign", "softmax", "logsumexp", "sum", "max", "min")
_FORMULA = re.compile(r"^d\((.*)\)/d(\w+) = (.*)$")
_SAFE = re.compile(r"^[\w\s.+\-*/^(),]+$")


# -- names and values ---------------------------------------------------------------------

# The helpers below are pure functions of names, formulas and (immutable) Values, and a tape repeats
# them many times over (the same op, the same gradient in three events): each is cached.
_cached = functools.lru_cache(maxsize=4096)


_escape = _cached(html.escape)   # names and words repeat in every caption


@_cached
def _tex_name(name: str) -> str:
    clean = re.sub(r"[^\w.]", "", name) or "?"
    if len(clean) == 1 and clean.isalpha():
        return clean
    return r"\mathrm{" + clean.replace("_", r"\_") + "}"


@_cached
def _tex_bar(name: str) -> str:
    inner = _tex_name(name)
    return rf"\bar{{{inner}}}" if len(inner) == 1 else rf"\overline{{{inner}}}"


@_cached
def _plain_bar(name: str) -> str:
    return f'<span style="text-decoration: overline">{html.escape(name)}</span>'


@_cached
def _short(v) -> str:
    return "None" if v is None else v.short()


@_cached
def _tex_value(v) -> str:
    if v is None:
        return r"\text{None}"
    text = v.short()
    if text.startswith("<"):
        return r"\text{" + html.escape(text.replace("{", "(").replace("}", ")")) + "}"
    text = re.sub(r"(\d(?:\.\d+)?)e([+-])0*(\d+)",
                  lambda m: rf"{m.group(1)}\times 10^{{{'-' if m.group(2) == '-' else ''}{m.group(3)}}}", text)
    return text.replace("nan", r"\text{nan}").replace("inf", r"\infty")


@_cached
def _plain_value_of(v) -> str:
    return html.escape(_short(v))


_BY_ID: dict = {}   # id(Value) -> (Value, its plain text): a tape shares one Value among the events that
                    # show it, and hashing a Value (every element) costs more than finding it by identity


def _plain_value(v) -> str:
    hit = _BY_ID.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    if len(_BY_ID) > 4096:
        _BY_ID.clear()
    text = _plain_value_of(v)
    _BY_ID[id(v)] = (v, text)   # (holds the Value, so its id stays its own)
    return text


# -- local derivatives -------------------------------------------------------------------------

@_cached
def _parse(formula: str):
    m = _FORMULA.match(formula or "")
    return (m.group(1), m.group(2), m.group(3)) if m else None


@_cached
def _substitute(local: str, names: tuple) -> str:
    """Letters ``a``, ``b`` -> the tensors bound to them, each between two \\x01 marks (ops of 1-2 inputs)."""
    if not names or len(names) > 2:
        return local
    letters = "ab"[:len(names)]
    return re.sub(rf"(?<![\w^\x01])[{letters}](?![\w(\x01])",
                  lambda m: "\x01" + names["ab".index(m.group(0))] + "\x01", local)


@_cached
def _tex_expr(local: str) -> str:
    """A local derivative as LaTeX when it is simple arithmetic, else as upright text."""
    plain = local.replace("\x01", "")
    if not _SAFE.match(plain):
        return r"\text{" + html.escape(plain.replace("{", "(").replace("}", ")").replace("\\", "/")) + "}"
    out = local.replace("**", "^")
    parts = out.split("\x01")   # odd positions are tensor names
    for i in range(0, len(parts), 2):
        seg = parts[i]
        for fn in _FUNCS:
            seg = re.sub(rf"(?<![\w\\]){fn}(?=\()", rf"\\operatorname{{{fn}}}", seg)
        seg = re.sub(r"\^\(([^()]*)\)", r"^{(\1)}", seg)
        parts[i] = seg.replace("*", r" \cdot ")
    for i in range(1, len(parts), 2):
        parts[i] = _tex_name(parts[i])
    return "".join(parts)


@_cached
def _plain_expr(local: str) -> str:
    return html.escape(local.replace("\x01", "")).replace("*", "·")


@_cached
def _tex_grad(name: str) -> str:
    clean = re.sub(r"[^\w.]", "", name) or "?"
    return r"\mathrm{" + clean.replace("_", r"\_") + ".grad}"


_RATIOS: dict = {}   # (id(upstream), id(contribution), elementwise) -> (upstream, contribution, ratio)


def _local_value(e, op_name):
    """The local derivative's numbers, as contribution / upstream, when that is what they are."""
    up, c, elementwise = e.upstream, e.contribution, op_name in _ELEMENTWISE
    key = (id(up), id(c), elementwise)
    hit = _RATIOS.get(key)
    if hit is not None and hit[0] is up and hit[1] is c:
        return hit[2]
    if len(_RATIOS) > 4096:
        _RATIOS.clear()
    ratio = _ratio(up, c, elementwise)
    _RATIOS[key] = (up, c, ratio)   # (holds both Values, so their ids stay theirs)
    return ratio


@_cached
def _ratio(up, c, elementwise):
    if up.data is None or c.data is None:
        return None
    complex_up, complex_c = up.dtype.startswith("complex"), c.dtype.startswith("complex")
    if complex_up and not complex_c:   # (a real input took the real part: no local derivative to read off)
        return None
    kind = complex if complex_up or complex_c else float
    u, cv = numpy.asarray(up.data, dtype=kind), numpy.asarray(c.data, dtype=kind)
    with numpy.errstate(all="ignore"):   # NaN / inf gradients give NaN ratios, without a warning
        if u.size == 1:
            if u[0] == 0:
                return None
            ratio = cv / u[0]
        elif elementwise and u.shape == cv.shape and tuple(up.shape) == tuple(c.shape) and numpy.all(u != 0):
            ratio = cv / u
        else:
            return None
    shape = tuple(c.shape)
    return ev.snapshot(ratio.reshape(shape) if shape else ratio.reshape(()), max(ratio.size, 1))


# -- the captions ----------------------------------------------------------------------------

def _node(model, nid, name):
    return f"node #{nid} ({name})"


def _out_name(model, nid, fallback):
    tid = model.node_tensor.get(nid)
    if tid is None and nid in model.ops:
        tid = model.ops[nid].output
    return model.name(tid) if tid is not None else fallback


def caption(model, e, tex: bool = True) -> tuple[str, str]:
    """``(html with $LaTeX$, html with plain formulas)`` describing event ``e`` (``tex=False``: the
    first is left empty and no LaTeX is made; the player shows the plain form)."""
    head = f"<b>Step {e.step} &middot; {type(e).__name__}</b>: "
    words, math, plain = _explain(model, e, tex)
    plain_html = head + words + (f'<br><span class="agl-formula">{plain}</span>' if plain else "")
    if not tex:
        return "", plain_html
    return head + words + (f"<br>${math}$" if math else ""), plain_html


def _portable_traceback(text: str) -> str:
    """A message's traceback lines (anomaly mode's ``File "/home/me/lab/train.py", line 3``) without the
    machine's paths: the same rule as a tape's source lines (``<cell>``, relative, or the base name)."""
    def repl(m):
        file = m.group(1)
        return f'File "{ev.records.portable_path(file, ev.SourceLine(file, 0, "").in_cell)}"'
    return re.sub(r'File "([^"]+)"', repl, text)


def error_caption(step, error) -> tuple[str, str]:
    text = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
    msg = html.escape(_portable_traceback(text))
    text = (f"<b>Step {step} &middot; Error</b>: the next call raised, so the pass stops here.<br>"
            f'<span class="agl-error-message" style="white-space: pre-wrap">{msg}</span>')
    return text, text


def _explain(model, e, want_tex=True):
    """``(words, LaTeX, plain formula)``; the LaTeX only if ``want_tex`` (else it may be "")."""
    kind = type(e)
    esc = _escape
    if kind is ev.OpRecorded:
        ins = [r.name for r in e.inputs]
        op = model.ops.get(e.node_id)
        where = "create_graph=True records the backward itself: " if op is not None and op.backward else "Forward: "
        words = (f"{where}<code>{esc(e.output.name)} = {esc(e.op)}({esc(', '.join(ins))})</code> creates "
                 f"{_node(model, e.node_id, e.node_name)}"
                 + (f", which saves {esc(', '.join(e.saved))} for the backward pass." if e.saved else "."))
        tex = (rf"{_tex_name(e.output.name)} = \mathrm{{{e.op.replace('_', chr(92) + '_')}}}"
               rf"({', '.join(_tex_name(n) for n in ins)}) = {_tex_value(e.value)}") if want_tex else ""
        plain = f"{esc(e.output.name)} = {esc(e.op)}({esc(', '.join(ins))}) = {_plain_value(e.value)}"
        return words, tex, plain
    if kind is ev.BackwardStarted:
        roots = ", ".join(r.name for r in e.roots)
        words = (f"<code>{e.api}()</code> pass {e.pass_index} starts from {esc(roots)} "
                 f"(retain_graph={e.retain_graph}, create_graph={e.create_graph}"
                 + (f", inputs=[{esc(', '.join(r.name for r in e.inputs))}]" if e.inputs is not None else "") + ")."
                 + (" Nodes on no path to inputs= are pruned." if e.inputs is not None else "")
                 + (" The backward ops will be recorded as a new graph (drawn in the dashed cluster)."
                    if e.create_graph else ""))
        return words, "", ""
    if kind is ev.Seeded:
        n = e.tensor.name
        how = "ones, because it has one element" if e.implicit else "the gradient you passed"
        words = f"Seed root {e.root_index}: the gradient of {esc(n)} with respect to itself starts as {how}."
        tex = (rf"{_tex_bar(n)} = \frac{{\partial {_tex_name(n)}}}{{\partial {_tex_name(n)}}} = {_tex_value(e.seed)}"
               if want_tex else "")
        plain = f"{_plain_bar(n)} = ∂{esc(n)}/∂{esc(n)} = {_plain_value(e.seed)}"
        return words, tex, plain
    if kind is ev.NodeStarted:
        out = e.output.name
        if e.grad is None:
            return f"{_node(model, e.node_id, e.node_name)} runs, but no gradient reached {esc(out)}.", "", ""
        if e.node_name == "AccumulateGrad":
            words = (f"{_node(model, e.node_id, e.node_name)} runs: all of leaf {esc(out)}'s gradient has arrived; "
                     f"next it is added into {esc(out)}.grad.")
        else:
            words = (f"{_node(model, e.node_id, e.node_name)} runs: every contribution to {esc(out)}'s gradient "
                     f"has arrived, so the chain rule can go on below it.")
        return (words, f"{_tex_bar(out)} = {_tex_value(e.grad)}" if want_tex else "",
                f"{_plain_bar(out)} = {_plain_value(e.grad)}")
    if kind is ev.GradientComputed:
        return _chain_rule(model, e, want_tex)
    if kind is ev.Accumulated:
        return _accumulated(model, e, want_tex)
    if kind is ev.SavedFreed:
        words = (f"{_node(model, e.node_id, e.node_name)} frees what it saved: {esc(', '.join(e.names))} "
                 f"({e.nbytes} bytes) because retain_graph=False: a second backward through it would fail.")
        return words, "", ""
    if kind is ev.NodePruned:
        return (f"{_node(model, e.node_id, e.node_name)} is pruned: no path from it leads to inputs=, "
                f"so it does not run."), "", ""
    if kind is ev.HookRan:
        words = f"A {esc(e.hook)} hook on node #{e.node_id} ran" + (" and replaced the gradient" if e.changed else "")
        if e.before is None:    # a tape saved before hooks' gradients were recorded
            return words + ".", "", ""
        def vals(vs):
            return ", ".join(_plain_value(v) for v in vs)
        same = e.before == e.after
        what = "the leaf's .grad" if e.hook == "post_accumulate" else "the gradient"
        if same:
            return f"{words}: {what} stays {vals(e.before)}.", "", ""
        return f"{words}: {what} was {vals(e.before)}, now {vals(e.after)}.", "", ""
    if kind is ev.BackwardFinished:
        return (f"Pass {e.pass_index} done: {e.nodes_run} nodes ran, {e.contributions} contributions, "
                f"{e.bytes_freed} bytes of saved tensors freed."), "", ""
    return esc(ev.describe(e)), "", ""


def _chain_rule(model, e, want_tex=True):
    esc = _escape
    op = model.ops.get(e.node_id)
    out = _out_name(model, e.node_id, e.node_name)
    inp = e.input.name if e.input is not None else f"input {e.input_index}"
    names = []
    if op is not None and sorted(op.inputs) == list(range(len(op.inputs))):
        names = [model.name(op.inputs[i]) for i in range(len(op.inputs))]
    parsed = _parse(e.formula)
    scalar = e.upstream.data is not None and len(e.upstream.data) == 1 and \
        (e.contribution.data is not None and len(e.contribution.data) == 1)
    dot_tex, dot_plain = (r"\cdot", "·") if scalar else (r"\odot", "⊙")
    words = (f"Chain rule at {_node(model, e.node_id, e.node_name)}, input {e.input_index} ({esc(inp)}): "
             f"this edge's contribution = upstream gradient {dot_plain} local derivative"
             + (f" <code>{esc(e.formula)}</code>" if e.formula else "") + f", sent to {esc(inp)}.")
    if parsed is None:
        tex = (rf"{_tex_bar(inp)} = \mathrm{{vjp}}({_tex_bar(out)}) = \mathrm{{vjp}}({_tex_value(e.upstream)}) "
               rf"= {_tex_value(e.contribution)}") if want_tex else ""
        plain = (f"{_plain_bar(inp)} = vjp({_plain_bar(out)}) = vjp({_plain_value(e.upstream)}) "
                 f"= {_plain_value(e.contribution)}")
        return words, tex, plain
    local = _substitute(parsed[2], tuple(names))
    unbound = _unbound(parsed[2], len(names))
    if unbound:  # e.g. x ** 2 drawn from a live graph: the exponent is a number with no node
        words += f" Here {', '.join(unbound)} is a constant input of the op (a number, not drawn)."
    lplain = _plain_expr(local)
    if e.upstream.dtype.startswith("complex") and not e.contribution.dtype.startswith("complex"):
        # a real input of a complex step keeps the real part of the product (PyTorch's rule)
        words += f" {esc(inp)} is real, so it takes the real part."
        plain = (f"{_plain_bar(inp)} = Re({_plain_bar(out)} {dot_plain} {lplain}) = "
                 f"Re({_plain_value(e.upstream)} {dot_plain} ({lplain})) = {_plain_value(e.contribution)}")
        if not want_tex:
            return words, "", plain
        ltex = _tex_expr(local)
        tex = (rf"{_tex_bar(inp)} = \mathrm{{Re}}({_tex_bar(out)} {dot_tex} {ltex}) = "
               rf"\mathrm{{Re}}({_tex_value(e.upstream)} {dot_tex} ({ltex})) = {_tex_value(e.contribution)}")
        return words, tex, plain
    lv = _local_value(e, op.op if op is not None else "")
    plain = f"{_plain_bar(inp)} = {_plain_bar(out)} {dot_plain} {lplain} = {_plain_value(e.upstream)} {dot_plain} "
    if lv is not None:
        plain += f"{_plain_value(lv)} = {_plain_value(e.contribution)}"
    else:
        plain += f"({lplain}) = {_plain_value(e.contribution)}"
    if not want_tex:
        return words, "", plain
    ltex = _tex_expr(local)
    tex = rf"{_tex_bar(inp)} = {_tex_bar(out)} {dot_tex} {ltex} = {_tex_value(e.upstream)} {dot_tex} "
    if lv is not None:
        tex += rf"{_tex_value(lv)} = {_tex_value(e.contribution)}"
    else:
        tex += rf"({ltex}) = {_tex_value(e.contribution)}"
    return words, tex, plain


@_cached
def _unbound(local: str, bound: int) -> list:
    """The letters of a formula (after the first ``bound``) that name no drawn input."""
    return [ch for ch in "ab"[bound:] if bound and re.search(rf"(?<![\w^])[{ch}](?![\w(])", local)]


def _accumulated(model, e, want_tex=True):
    """``(words, LaTeX, plain formula)`` of an Accumulated event; the LaTeX only if ``want_tex`` (else "")."""
    esc = _escape
    c, b, a = e.contribution, e.before, e.after
    tex = ""
    if e.where == "buffer":
        name = _out_name(model, e.node_id, f"node {e.node_id}")
        if b is None:
            words = (f"Accumulate at node #{e.node_id}: the first contribution to {esc(name)}'s gradient "
                     f"waits in its pending sum until every consumer of {esc(name)} has sent one.")
            if want_tex:
                tex = f"{_tex_bar(name)} = {_tex_value(c)}"
            plain = f"{_plain_bar(name)} = {_plain_value(c)}"
        else:
            words = (f"Accumulate at a fan-in: {esc(name)} is used more than once, so its gradient is the sum "
                     f"of the contributions; this one is added to the pending sum.")
            if want_tex:
                tex = rf"{_tex_bar(name)} = {_tex_value(b)} + {_tex_value(c)} = {_tex_value(a)}"
            plain = f"{_plain_bar(name)} = {_plain_value(b)} + {_plain_value(c)} = {_plain_value(a)}"
        return words, tex, plain
    name = e.tensor.name if e.tensor is not None else model.name(model.node_tensor.get(e.node_id))
    target = {"leaf": f"{name}.grad", "retained": f"{name}.grad (retain_grad)", "input": f"{name}.grad (inputs=)",
              "captured": f"the autograd.grad result for {name}"}[e.where]
    if b is None:
        words = f"Accumulate into {esc(target)}: it was None, so it becomes this gradient (before → after)."
        if want_tex:
            tex = rf"{_tex_grad(name)}: \text{{None}} \to {_tex_value(a)}"
        plain = f"{esc(name)}.grad: None → {_plain_value(a)}"
    else:
        words = (f"Accumulate into {esc(target)}: gradients add up (before + contribution → after)"
                 + (", across backward calls too." if e.where == "leaf" else "."))
        if want_tex:
            tex = rf"{_tex_grad(name)}: {_tex_value(b)} + {_tex_value(c)} \to {_tex_value(a)}"
        plain = f"{esc(name)}.grad: {_plain_value(b)} + {_plain_value(c)} → {_plain_value(a)}"
    if e.where == "captured":
        tex = tex.replace(".grad", "")
        plain = plain.replace(".grad", "")
    return words, tex, plain
