"""``dice-workbench diff``: --help, exit status 2 on a usage mistake or a refused variant, the
printed verdict and movers, CSV on standard output with ``--csv -`` and in a file equal to compare.diff,
and output files checked before the work."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from workbench import compare, variants

from test_cli import cli_run

A = "changes:weapon=heavy,action=shot"
B = "changes:weapon=heavy,action=shot,heavy_shot=flat_4"


def test_help_says_what_it_does_and_how_to_write_a_grid(capsys):
    code, out, _ = cli_run(capsys, "diff", "--help")
    assert code == 0
    assert out.startswith("usage: dice-workbench diff")
    flat = " ".join(out.split())
    for words in ("--grid", "STAT=VALUES", "1..12", "--csv", "standard output", "--png", "heavy_shot=flat_4"):
        assert words in flat
    code, out, _ = cli_run(capsys, "--help")
    assert "diff" in out


@pytest.mark.parametrize("args, problem", [
    (["diff", A, B], "the following arguments are required: --grid"),
    (["diff", A], "the following arguments are required: B"),
    (["diff", A, B, "--grid", "bs"], "sweep argument: expected STAT=VALUES"),
    (["diff", A, "chnages", "--grid", "bs=1..3"], "system: expected one of 'changes'"),
    (["diff", A, B, "--grid", "bs=1..14"], "bs: expected a whole number from 1 to 13"),
    (["diff", A, B, "--grid", "bs=1..3", "--matchup", "shots=1..3"], "--matchup shots: one value"),
])
def test_usage_errors_exit_2_naming_the_problem(capsys, args, problem):
    code, out, err = cli_run(capsys, *args)
    assert code == 2
    assert problem in err
    assert "Traceback" not in err and out == ""


def test_prints_the_verdict_the_movers_and_the_grid(capsys):
    code, out, err = cli_run(capsys, "diff", A, B, "--grid", "bs=1..12", "t=-2..4")
    assert code == 0, err
    df = compare.diff(A, B, grid=dict(bs=range(1, 13), t=range(-2, 5)))
    assert "helps most at BS 9+, T -2" in out and "hurts none" in out
    assert "Space Marine (Heavy Bolter) at Space Marine" in out
    row = out.split("\n  -2 ")[1].split("\n")[0].split()
    assert [float(x) for x in row] == pytest.approx(df[df.t == -2]["mean_diff"].round(2).tolist(), abs=1e-9)


def test_csv_to_standard_output_is_the_tidy_diff(capsys):
    code, out, err = cli_run(capsys, "diff", "kill6", "kill6:stationary=true", "--grid", "bs=2..6", "sv=2,4,7",
                             "--matchup", "shots=10", "--csv", "-")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    want = compare.diff("kill6", "kill6:stationary=true", grid=dict(bs=range(2, 7), sv=[2, 4, 7]),
                        matchup=dict(shots=10))
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float), rtol=1e-12, atol=1e-12)


def test_csv_to_a_file_is_the_tidy_diff(capsys, tmp_path):
    out_file = tmp_path / "diff.csv"
    code, out, err = cli_run(capsys, "diff", "kill6", "kill6:stationary=true", "--grid", "bs=2..4",
                             "--matchup", "shots=10", "--csv", str(out_file))
    assert code == 0, err
    assert out == "" and f"wrote {out_file} (3 rows)" in err
    want = compare.diff("kill6", "kill6:stationary=true", grid=dict(bs=range(2, 5)), matchup=dict(shots=10))
    got = pd.read_csv(out_file)
    np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("option", ["--csv", "--png"])
def test_a_file_in_a_missing_folder_is_refused_before_the_work_and_no_folder_is_made(capsys, tmp_path, monkeypatch,
                                                                                     option):
    def never(*_a, **_k):
        raise AssertionError("the diff was computed before its output file was checked")

    monkeypatch.setattr(variants, "diff", never)
    missing = tmp_path / "no-such-folder" / "out.file"
    code, out, err = cli_run(capsys, "diff", A, B, "--grid", "bs=1..3", option, str(missing))
    assert code == 2
    assert option in err and "a file in a folder that exists" in err and "Traceback" not in err
    assert not missing.parent.exists()


def test_png_and_csv_cannot_both_go_to_standard_output(capsys):
    code, out, err = cli_run(capsys, "diff", A, B, "--grid", "bs=1..3", "--png", "-", "--csv", "-")
    assert code == 2
    assert "--png and --csv cannot both write to standard output" in err and out == ""
