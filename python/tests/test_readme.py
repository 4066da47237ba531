"""The README's two examples, run as a user would: the random agents through the AEC API, and
the policy in a real `referee match` through the bot bridge."""
import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
README = (HERE.parent / "README.md").read_text()
REFEREE = os.environ.get("ALUETTE_REFEREE", str(HERE.parents[1] / "target/debug/referee"))


def blocks(lang):
    """The fenced code blocks of the README in language ``lang``, in order."""
    found, current = [], None
    for line in README.splitlines(keepends=True):
        if current is None and line.strip() == f"```{lang}":
            current = []
        elif current is not None and line.strip() == "```":
            found.append("".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def test_the_examples_are_ten_lines_or_fewer():
    for code in blocks("python"):
        assert len(code.strip().splitlines()) <= 10, code


def test_random_agents_through_the_aec_api(tmp_path):
    code = blocks("python")[0]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("final score")


def test_a_policy_in_a_referee_match(tmp_path):
    (tmp_path / "my_policy.py").write_text(blocks("python")[1])
    (command,) = [b for b in blocks("sh") if b.startswith("referee match")]
    command = " ".join(command.replace("\\\n", " ").split())
    args = shlex.split(command)
    assert args[:2] == ["referee", "match"]
    args = [REFEREE, *args[1:], "--records", str(tmp_path / "records")]
    args = [a.replace("python -m", f"{sys.executable} -m") for a in args]
    done = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "py-policy" in done.stdout, done.stdout
    faults = [line for line in (tmp_path / "records").glob("*.jsonl")
              for line in line.read_text().splitlines() if '"type":"fault"' in line]
    assert faults == []
