"""Each op a tape records remembers the user's line that created it (OpRecorded.source)."""
import inspect
import json
import os

import autogradlab as ag
from autogradlab import events as ev
from autogradlab import nn


def _line_of(fn, marker):
    """The file line number of the line of ``fn`` that contains ``marker``."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if marker in ln)


def _ops(tape):
    return [e for e in tape.events if isinstance(e, ev.OpRecorded)]


def test_each_op_remembers_the_line_that_created_it():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        b = a * 3.0                      # op: mul
        c = b.sin()                      # op: sin
        c.sum().backward()               # op: sum
    mul, sin, total = _ops(tape)
    fn = test_each_op_remembers_the_line_that_created_it
    assert (mul.op, mul.source.line) == ("mul", _line_of(fn, "# op: mul"))
    assert (sin.op, sin.source.line) == ("sin", _line_of(fn, "# op: sin"))
    assert (total.op, total.source.line) == ("sum", _line_of(fn, "# op: sum"))
    # no machine path: relative to the current directory (tests/test_source_lines.py from the repository)
    assert mul.source.file == ev.records.portable_path(__file__) and not os.path.isabs(mul.source.file)
    assert mul.source.text == "b = a * 3.0                      # op: mul"
    assert mul.source.label() == f"test_source_lines.py, line {mul.source.line}"
    assert not mul.source.in_cell


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x).relu()         # op: net


def test_ops_inside_library_modules_point_at_the_users_line():
    ag.manual_seed(0)
    net, lin = Net(), nn.Linear(2, 1)
    x = ag.tensor([[1.0, -1.0]])
    with ag.trace() as tape:
        y = lin(net(x))                  # op: call
    ops = _ops(tape)
    by_line = {}
    for e in ops:
        assert e.source.file == ev.records.portable_path(__file__)  # never inside autogradlab
        by_line.setdefault(e.source.line, []).append(e.op)
    net_line = _line_of(Net.forward, "# op: net")
    call_line = _line_of(test_ops_inside_library_modules_point_at_the_users_line, "# op: call")
    assert set(by_line) == {net_line, call_line}
    assert by_line[net_line][-1] == "relu" and len(by_line[net_line]) >= 2  # Linear's ops, then relu
    assert len(by_line[call_line]) >= 1  # the outer Linear, called from this test
    assert y.shape == (1, 1)


def test_source_lines_survive_json_and_old_tapes_load_with_none():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        (a * a).sum().backward()
    back = ag.Tape.from_json(tape.to_json())
    assert back.events == tape.events and _ops(back)[0].source == _ops(tape)[0].source
    assert isinstance(_ops(back)[0].source, ev.SourceLine)
    payload = json.loads(tape.to_json())
    for raw in payload["events"]:
        raw.pop("source", None)
    old = ag.Tape.from_json(json.dumps(payload))
    assert [e.source for e in _ops(old)] == [None, None]
    assert old.table() == tape.table()


def test_no_tape_no_source_walk(monkeypatch):
    """Without a tape nothing is looked up (the walk is the tape's, and only a tape calls it)."""
    calls = []
    monkeypatch.setattr(ev.Tape, "source_line", lambda self: calls.append(1))
    a = ag.tensor([1.0], requires_grad=True)
    (a * 2.0).sum().backward()
    assert calls == []
    with ag.trace():
        (a * 2.0).sum()
    assert len(calls) == 2


def test_cell_file_names_show_as_cell_and_line():
    s = ev.SourceLine("/tmp/ipykernel_123/456.py", 3, "y = x * 2")
    assert s.in_cell and s.label() == "cell, line 3"
    assert ev.SourceLine("/home/me/lab/train.py", 12, "").label() == "train.py, line 12"


def test_player_data_carries_each_ops_line_without_the_machines_path():
    from autogradlab.viz.playerdata import player_data

    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        (a * a).sum().backward()       # op: both
    data = player_data(tape)
    line = _line_of(test_player_data_carries_each_ops_line_without_the_machines_path, "# op: both")
    assert data["sources"] == {str(e.node_id): {"where": f"test_source_lines.py, line {line}",
                                                "text": "(a * a).sum().backward()       # op: both"}
                               for e in _ops(tape)}
    assert __file__ not in json.dumps(data)


def test_in_a_notebook_cell_the_line_is_the_cells_line():
    """In a Jupyter kernel an op made in a cell (directly or inside nn.Linear) says "cell, line N" with
    that line's text, whatever temporary file IPython gave the cell."""
    import nbclient
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import autogradlab as ag\nfrom autogradlab import nn\nlin = nn.Linear(2, 1)"),
                nbformat.v4.new_code_cell("x = ag.tensor([[1.0, 2.0]])\nwith ag.trace() as tape:\n"
                                          "    y = lin(x).tanh()\n"
                                          "print({(e.source.label(), e.source.text) for e in tape.of_kind('OpRecorded')})")]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    assert nb.cells[1].outputs[0]["text"].strip() == "{('cell, line 3', 'y = lin(x).tanh()')}"
