"""The README's code runs and prints what the README says it prints."""
import contextlib
import io
import re
from pathlib import Path

import pytest

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def section(title):
    start = README.index(f"\n## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def run(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    return out.getvalue()


def test_first_lines_are_the_two_setup_commands():
    first = README.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == ["bash dev.sh lab", "bash dev.sh test"]
    assert README.index("```bash") < README.index("\n## ")


def test_quick_start_prints_what_its_comments_say(tmp_path, monkeypatch):
    code = re.search(r"```python\n(.*?)```", section("Quick start"), flags=re.S).group(1)
    out = run(code, tmp_path, monkeypatch).splitlines()
    assert out[0] == "tensor([0.3932, 0.2100, 0.0904])"
    assert out[1] == "<SumBackward> ((<TanhBackward>, 0),)"
    assert any("chain rule" in line for line in out[2:])


def test_events_example_prints_the_table_shown(tmp_path, monkeypatch):
    sec = section("Events")
    code = re.search(r"```python\n(.*?)```", sec, flags=re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", sec, flags=re.S).group(1).splitlines()
    printed = run(code, tmp_path, monkeypatch).splitlines()
    for line in shown:
        if line.strip() != "...":
            assert line in printed, f"README shows a line the code does not print: {line!r}"


def test_viz_example_runs(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot is not installed")
    code = re.search(r"```python\n(.*?)```", section("Seeing autograd"), flags=re.S).group(1)
    code = code.replace("names=model", "names={'a': a, 'b': b}")   # the README's `model` is any module
    run(code, tmp_path, monkeypatch)
    html = (tmp_path / "backward.html").read_text()
    assert 'id="agl-data"' in html and not re.search(r"<(?:script|img|link)[^>]+(?:src|href)=", html)


def test_toolkit_example_reaches_the_accuracy_it_claims(tmp_path, monkeypatch):
    code = re.search(r"```python\n(.*?)```", section("Course toolkit"), flags=re.S).group(1)
    out = run(code, tmp_path, monkeypatch)
    assert "accuracy 100.0%" in out
    assert (tmp_path / "moons.npz").exists()
