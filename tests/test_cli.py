"""The command line (``dice-workbench``, ``python -m workbench``): the four-system
comparison table run as a user would, and the explain / post / sweep / serve
subcommands with their --help, usage errors (exit 2, the problem named) and
the library's own message for a refused value (exit 2)."""
from __future__ import annotations

import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import pandas as pd

from workbench import cli, systems
from workbench.compare import sweep as library_sweep
from workbench.errors import WorkbenchError
from workbench.ui.query import parse_query

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def table() -> str:
    res = run("table")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    return res.stdout


def summary_row(text: str, system: str) -> list[str]:
    for line in text.splitlines():
        if line.startswith(system + " "):
            return re.split(r"\s{2,}", line.strip())
    raise AssertionError(f"no row for {system}:\n{text}")


def test_table_lists_every_system(table):
    for key in systems.BUILTINS:
        row = summary_row(table, key)
        assert len(row) == 6, row  # system, matchup, per shot, %, E[1], E[10]
        assert row[2] != "n/a"


def test_changes_reference_row(table):
    # RULES.md: space marine, S5+ AP5+ gun, aimed shot, at a space marine in the open: 8/12 x 5/12 x 6/12 = 5/36
    row = summary_row(table, "changes")
    assert row[1] == "Space Marine (Boltgun) at Space Marine"
    assert row[2] == "5/36" and row[3] == "13.9%"
    assert float(row[4]) == pytest.approx(5 / 36, abs=5e-4)
    assert float(row[5]) == pytest.approx(10 * 5 / 36, abs=5e-4)
    for frac in ("8/12", "5/12", "6/12"):  # RULES.md writes them as faces out of the D12
        assert re.search(rf"^\s+to \w+\s+{re.escape(frac)}\s", table, re.M)


def test_antares_reference_row(table):
    # RULES.md: Rever Acc 5 shoots Rever Res 5, SV 1, no armour or cover: 5/10 x 6/10 = 3/10
    row = summary_row(table, "antares")
    assert row[1] == "Rever (Carbine) at Rever"
    assert row[2] == "3/10" and row[3] == "30.0%"
    assert float(row[5]) == pytest.approx(3.0, abs=5e-4)


def test_expected_removals_are_shots_times_per_shot(table):
    # every basic matchup is one model per success, uncapped: E[10 shots] = 10 x per shot
    for key in systems.BUILTINS:
        row = summary_row(table, key)
        p = Fraction(row[2])
        assert float(row[4]) == pytest.approx(float(p), abs=5e-4)
        assert float(row[5]) == pytest.approx(10 * float(p), abs=5e-4)


def test_no_argument_prints_the_table(table):
    res = run()
    assert res.returncode == 0, res.stderr
    assert res.stdout == table


def cli_run(capsys, *args: str) -> tuple[int, str, str]:
    """``dice-workbench ARGS`` in this process: (exit status, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# -- usage: --help and usage errors --------------------------------------------
def test_help_lists_every_subcommand(capsys):
    code, out, _ = cli_run(capsys, "--help")
    assert code == 0
    assert out.startswith("usage: dice-workbench")
    for command in ("table", "explain", "post", "sweep", "serve"):
        assert re.search(rf"^\s+{command}\s+\S", out, re.M), command


@pytest.mark.parametrize("command,words", [
    ("table", ["basic trooper"]),
    ("explain", ["system", "query", "--sampled"]),
    ("post", ["--format", "{text,md,bbcode,png,svg,html}", "--out"]),
    ("sweep", ["function", "STAT=VALUES", "--csv", "1..6"]),
])
def test_each_subcommand_has_help(capsys, command, words):
    code, out, err = cli_run(capsys, command, "--help")
    assert code == 0, err
    assert out.startswith(f"usage: dice-workbench {command}")
    flat = " ".join(out.split())  # argparse wraps to the terminal's width
    for word in words:
        assert word in flat


def test_serve_help_is_the_servers_own(capsys):
    code, out, _ = cli_run(capsys, "serve", "--help")
    assert code == 0
    assert "--port" in out and "--pool-size" in out


@pytest.mark.parametrize("args,problem", [
    (["table", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["explain"], "the following arguments are required: system"),
    (["explain", "warhammer"], "argument system: invalid choice: 'warhammer'"),
    (["post", "changes", "--format", "gif"], "argument --format/-f: invalid choice: 'gif'"),
    (["post", "changes", "--format", "png"], "--format png needs --out FILE"),
    (["sweep", "changes", "shooting"], "the following arguments are required: STAT=VALUES"),
    (["explain", "changes", "--sampled", "many"], "argument --sampled: invalid int value: 'many'"),
])
def test_usage_errors_exit_2_naming_the_problem(capsys, args, problem):
    code, out, err = cli_run(capsys, *args)
    assert code == 2
    assert out == ""
    assert problem in err
    assert "usage: dice-workbench" in err


def library_message(call) -> str:
    with pytest.raises(WorkbenchError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("args,call", [
    (["explain", "changes", "bs=14"], lambda: parse_query("changes", "bs=14")),
    (["post", "antares", "acc=eleven", "--format", "md"], lambda: parse_query("antares", "acc=eleven")),
    (["explain", "gunfire", "colour=red"], lambda: parse_query("gunfire", "colour=red")),
    (["sweep", "changes", "shooting", "bq=1..3"], lambda: library_sweep("changes", "shooting", bq=[1, 2, 3])),
    (["sweep", "changes", "shooting", "bs=0..3", "s=5", "ap=5"],
     lambda: library_sweep("changes", "shooting", bs=[0, 1, 2, 3], s=5, ap=5)),
])
def test_refused_value_gives_the_librarys_message(capsys, args, call):
    code, out, err = cli_run(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.strip() == f"dice-workbench {args[0]}: error: {library_message(call)}"
    assert "Traceback" not in err


def test_query_key_of_another_mode_is_refused(capsys):
    # ws belongs to melee; the link does not pick melee
    code, _, err = cli_run(capsys, "explain", "changes", "ws=3")
    assert code == 2
    assert "query key: expected one of bs, " in err and "(the shooting controls), got 'ws'" in err


def test_bad_sweep_range(capsys):
    code, _, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=6..1")
    assert code == 2
    assert "bs: expected a range from low to high like 1..6, got '6..1'" in err
    code, _, err = cli_run(capsys, "sweep", "changes", "shooting", "bs")
    assert code == 2
    assert "sweep argument: expected STAT=VALUES" in err


# -- explain / post: a dashboard link's values -----------------------------------
# RULES.md's marine with BS 4+ at a marine in the open (the dashboard's defaults:
# S 5+, AP 5+, T +2, Sv +3, aimed, a unit of 10): 9/12 x 5/12 x 6/12 = 5/32 per shot
PER_SHOT = Fraction(9, 12) * Fraction(5, 12) * Fraction(6, 12)


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def test_explain_reads_a_dashboard_link(capsys):
    code, out, err = cli_run(capsys, "explain", "changes", "?bs=4&shots=10")
    assert code == 0, err
    assert PER_SHOT == Fraction(5, 32)
    assert "9/12 × 5/12 × 6/12 = 5/32" in out
    assert f"With 10 shots: expected {10 * float(PER_SHOT):.2f} models removed" in out
    p_any = 1 - (1 - PER_SHOT) ** 10
    assert f"P(at least 1) = {100 * float(p_any):.1f} %" in out


def test_explain_picks_the_mode_of_the_link(capsys):
    code, out, err = cli_run(capsys, "explain", "changes", "mode=melee&ws=3&attacks=4")
    assert code == 0, err
    # WS 3+ against dodge +2 needs 5+: 8/12, then 5/12 and 6/12 as above
    assert "8/12 × 5/12 × 6/12 = 5/36" in out
    assert "With 4 attacks" in out


def test_explain_sampled_agrees_with_exact(capsys):
    code, out, err = cli_run(capsys, "explain", "antares", "acc=5&res=5&sv=1&shots=10&models=none",
                             "--sampled", "40000", "--seed", "3")
    assert code == 0, err
    m = re.search(r"expected (\d+\.\d+) models removed \(± ([0-9.e-]+)\)", out)
    assert m, out
    # RULES.md: Rever Acc 5 at Res 5, SV 1: 5/10 x 6/10 = 3/10 per shot, 10 shots, no cap
    assert abs(float(m.group(1)) - 3.0) <= max(5 * float(m.group(2)), 0.01)
    assert "Sampled: 40,000 simulated volleys" in out


def test_post_text_is_the_explanation(capsys):
    _, explained, _ = cli_run(capsys, "explain", "gunfire", "shots=3")
    code, posted, err = cli_run(capsys, "post", "gunfire", "shots=3", "--format", "text")
    assert code == 0, err
    assert posted == explained


def test_post_markdown_table_is_the_binomial(capsys, tmp_path):
    out_file = tmp_path / "post.md"
    code, out, err = cli_run(capsys, "post", "changes", "bs=4&shots=10", "--format", "md", "--out", str(out_file))
    assert code == 0, err
    assert out == "" and f"wrote {out_file}" in err
    text = out_file.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \| ([^|]+) \|$", text, re.M)
    exact = binomial(10, PER_SHOT)
    assert [int(r[0]) for r in rows] == list(range(11))
    for n, p_exactly, p_at_least in rows:
        n = int(n)
        for shown, value in ((p_exactly, exact[n]), (p_at_least, sum(exact[n:]))):
            shown = shown.strip()
            if shown.startswith("<") or shown.startswith(">"):
                continue  # a bound for a tail the rounding cannot show
            assert abs(float(shown.rstrip(" %")) - 100 * float(value)) <= 0.0051, (n, shown, float(value))


def test_post_bbcode(capsys):
    code, out, err = cli_run(capsys, "post", "changes", "bs=4&shots=10", "--format", "bbcode")
    assert code == 0, err
    assert out.startswith("[b]")
    assert "5/32" in out
    assert out.count("[b]") == out.count("[/b]")


@pytest.mark.parametrize("fmt,magic", [("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<svg"), ("html", b"<html")])
def test_post_figures(capsys, tmp_path, fmt, magic):
    out_file = tmp_path / f"odds.{fmt}"
    code, out, err = cli_run(capsys, "post", "forgotten", "shots=4", "--format", fmt, "--out", str(out_file))
    assert code == 0, err
    data = out_file.read_bytes()
    assert magic in data[:400]
    assert len(data) > 1000


# -- sweep ---------------------------------------------------------------------------
def test_sweep_range_to_csv(capsys, tmp_path):
    csv = tmp_path / "bs.csv"
    code, out, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=1..6", "s=5", "ap=5", "t=2", "sv=3",
                             "--csv", str(csv))
    assert code == 0, err
    df = pd.read_csv(csv)
    assert df["bs"].tolist() == [1, 2, 3, 4, 5, 6]
    for bs, mean in zip(df["bs"], df["mean"]):
        # one shot: P(D12 >= bs) x 5/12 (AP 5+ vs Sv +3: 8+) x 6/12 (S 5+ vs T +2: 7+)
        assert mean == pytest.approx(float(Fraction(13 - bs, 12) * Fraction(5, 12) * Fraction(6, 12)), abs=1e-12)


def test_sweep_lists_and_words_to_stdout(capsys):
    code, out, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=5", "s=5", "ap=5", "t=2", "sv=3",
                             "action=snap,aimed", "go_to_ground=false")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 3  # a header and one row per action
    assert {line.split()[lines[0].split().index("action")] for line in lines[1:]} == {"snap", "aimed"}


def test_serve_without_voila_says_what_to_install(capsys, monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a))
    code, out, err = cli_run(capsys, "serve", "--port", "0")
    assert code == 1 and out == ""
    assert "pip install 'dice-workbench[dashboard]'" in err


def test_output_cut_short_by_a_pipe_is_not_an_error():
    # `dice-workbench sweep ... | head -1`: the reader closes the pipe early; the
    # table (about 2,000 rows) is larger than the pipe's buffer, so the writer meets the closed pipe
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "sweep", "changes", "shooting", "bs=1..13",
                             "s=1..13", "ap=1..13"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(proc.stdout.readline()) > 10
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(120) == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err


# -- where the output goes, and files that cannot be written -----------------------------
def test_dash_is_standard_output(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_run(capsys, "post", "changes", "bs=4&shots=10", "--format", "md", "-o", "-")
    assert code == 0, err
    assert "5/32" in out and out.count("|") > 4
    code, out, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=1..3", "s=5", "ap=5", "t=2", "sv=3",
                             "--csv", "-")
    assert code == 0, err
    df = pd.read_csv(__import__("io").StringIO(out))
    assert df["bs"].tolist() == [1, 2, 3]
    assert list(tmp_path.iterdir()) == []  # no file named '-'


def _write_targets(tmp_path: Path) -> list[tuple[str, str]]:
    return [(str(tmp_path), "not a folder"), ("/", "not a folder"),
            (str(tmp_path / "missing" / "deeper" / "odds.txt"), "a folder that exists"),
            ("/proc/version", "a file this user may write")]  # the kernel's: read-only even for root


@pytest.mark.parametrize("command", [
    ["post", "changes", "shots=2", "--out"],
    ["sweep", "changes", "shooting", "bs=3..4", "s=5", "ap=5", "t=2", "sv=3", "--csv"],
])
def test_unwritable_outputs_exit_2_in_one_line(capsys, tmp_path, command):
    for target, words in _write_targets(tmp_path):
        code, out, err = cli_run(capsys, *command, target)
        assert code == 2, (target, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"dice-workbench {command[0]}: error: {command[-1]}: expected ") and words in err
        assert f"got {target!r}"[:40] in err  # the value as given (a long one is cut short)
    assert not (tmp_path / "missing").exists()  # no folder is created on the way


def test_a_grid_too_large_is_refused_at_once(capsys):
    # a billion-value range used to be built as a list (out of memory) before any check
    code, out, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=1..1000000000", "s=5")
    assert code == 2 and out == ""
    assert "bs: expected a range of at most 100,000 values, got '1..1000000000'" in err
    code, out, err = cli_run(capsys, "sweep", "changes", "shooting", "bs=1..400", "s=1..400", "ap=5")
    assert code == 2 and out == ""
    assert "sweep grid: expected at most 100,000 combinations, got '400 bs x 400 s = 160,000'" in err


def test_a_missing_browser_is_not_a_usage_error(capsys, tmp_path, monkeypatch):
    from workbench import export
    monkeypatch.delenv("WORKBENCH_CHROMIUM", raising=False)
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(export, "_discover", lambda: None)
    monkeypatch.setattr(export, "CHROMIUM", str(tmp_path / "no-chromium"))
    code, out, err = cli_run(capsys, "post", "changes", "--format", "png", "--out", str(tmp_path / "odds.png"))
    assert code == cli.EXIT_NO_BROWSER == 3
    assert "needs a Chrome-family browser" in err
    code, out, _ = cli_run(capsys, "--help")
    assert "3 a PNG/SVG that needs a browser" in " ".join(out.split())


def test_serve_and_deploy_help_name_this_command(capsys):
    from workbench.serve import DASHBOARDS
    code, out, _ = cli_run(capsys, "serve", "--help")
    assert code == 0 and out.startswith("usage: dice-workbench serve")
    flat = " ".join(out.split())
    assert "python -m" not in flat and "seven" not in flat
    assert "default: every one: " + ", ".join(d.notebook.removesuffix(".ipynb") for d in DASHBOARDS) in flat
    code, out, _ = cli_run(capsys, "deploy", "--help")
    assert code == 0 and out.startswith("usage: dice-workbench deploy") and "--run-dir" in out


def test_deploy_writes_the_nginx_configuration(capsys, tmp_path):
    code, out, err = cli_run(capsys, "deploy", "--listen", "8080", "--base-url", "/dice/",
                             "--server", "127.0.0.1:8866", "--server", "127.0.0.1:8867", "--run-dir", str(tmp_path))
    assert code == 0, err
    conf = (tmp_path / "nginx.conf").read_text()
    assert "server 127.0.0.1:8866;" in conf and "server 127.0.0.1:8867;" in conf and "listen 8080" in conf
    assert not re.search(r"@[A-Z_]+@", conf)  # every field of the template filled in
    code, out, err = cli_run(capsys, "deploy", "--run-dir", str(tmp_path))
    assert code == 2 and err.startswith("dice-workbench deploy: error: server: expected at least one")
