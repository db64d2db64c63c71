"""Sampled studies cut into seeded blocks: the same numbers in one process and on Dask."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench import compare, studies
from workbench.errors import InputError
from workbench.turn import UnitSpec, Weapon, design_questions, study

BOLTER = Weapon("Boltgun", s=5, ap=5, shots=1, kind="light")
HEAVY = Weapon("Heavy Bolter", s=4, ap=4, shots=3, kind="heavy")
FORCE_A = [UnitSpec("A1", models=5, weapons=(BOLTER,)), UnitSpec("A2", models=4, weapons=(HEAVY,)),
           UnitSpec("A3", models=8, weapons=(BOLTER,))]
FORCE_B = [UnitSpec("B1", models=6, weapons=(BOLTER,)), UnitSpec("B2", models=3, weapons=(HEAVY,), cover=2),
           UnitSpec("B3", models=5, weapons=(BOLTER,))]


@pytest.fixture(scope="module")
def cluster():
    client = studies.local_cluster(n_workers=2, threads_per_worker=1, processes=True)
    try:
        yield client
    finally:
        cluster_ = client.cluster
        client.close()
        cluster_.close()


def test_block_sizes_and_spawned_seeds():
    assert studies.block_sizes(10, 4) == [4, 4, 2]
    assert studies.block_sizes(8, 4) == [4, 4]
    a = [s.generate_state(2).tolist() for s in studies.spawn(7, 3)]
    b = [s.generate_state(2).tolist() for s in studies.spawn(7, 3)]
    assert a == b and len({tuple(x) for x in a}) == 3
    with pytest.raises(InputError, match="block"):
        studies.block_sizes(10, 0)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_local_cluster_listens_on_free_loopback_ports_only(cluster):
    """The scheduler's HTTP routes (served even without a dashboard) take a free port of
    127.0.0.1, not distributed's fixed 8787, which a second cluster at once finds taken."""
    http = cluster.cluster.scheduler.http_server
    assert http.address == "127.0.0.1" and http.port not in (0, 8787)
    assert cluster.scheduler.address.startswith("tcp://127.0.0.1:")


def test_a_turn_study_is_identical_on_two_processes_and_in_one(cluster):
    kw = dict(policy_a="greedy", policy_b="spread", turns=700, seed=42, block=100, progress=False)
    here = study(FORCE_A, FORCE_B, **kw)
    there = study(FORCE_A, FORCE_B, client=cluster, **kw)
    assert len(set(cluster.scheduler_info()["workers"])) == 2
    pd.testing.assert_frame_equal(here, there, check_exact=True)
    assert here["lost_B"].sum() > 0
    # the same cluster reached by its scheduler address (a client opened and closed by the call)
    by_address = study(FORCE_A, FORCE_B, client=cluster.scheduler.address, **kw)
    pd.testing.assert_frame_equal(here, by_address, check_exact=True)
    # another seed gives other dice
    other = study(FORCE_A, FORCE_B, **{**kw, "seed": 43})
    assert not other[["lost_A", "lost_B"]].equals(here[["lost_A", "lost_B"]])


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_sampled_sweep_is_identical_on_two_processes_and_in_one(cluster):
    grid = dict(bs=[3, 5, 7], s=5, ap=5, t=2, sv=3, shots=6, models=5, method="sampled", samples=9_000,
                seed=3, progress=False)
    here = compare.sweep("changes", "shooting", **grid)
    there = compare.sweep("changes", "shooting", client=cluster, **grid)
    assert here.attrs["path"] == "blocks"
    pd.testing.assert_frame_equal(here, there, check_exact=True)


def test_a_blocked_sampled_sweep_agrees_with_the_exact_one():
    grid = dict(bs=[3, 6], s=5, ap=4, t=2, sv=3, shots=8, models=4)
    exact = compare.sweep("changes", "shooting", progress=False, **grid)
    # 20,000 samples in blocks of 25,000 would be one block: ask for several, the last one short
    cells, pmf, effects, path = studies.sampled_evaluate("changes", "shooting", method="sampled",
                                                         samples=20_000, seed=9, block=6_000,
                                                         progress=False, **grid)
    assert path == "blocks" and pmf.shape[0] == 2
    ex = exact[[f"p_at_least_{k}" for k in range(1, 5)]].to_numpy()
    n = 20_000
    mean = pmf @ np.arange(pmf.shape[1])
    assert np.all(np.abs(mean - exact["mean"].to_numpy()) < 5 * effects["mean_stderr"])
    tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1][:, 1:5]
    assert np.all(np.abs(tail - ex) <= 5 * np.sqrt(ex * (1 - ex) / n) + 1e-9)
    assert np.all(np.abs(effects["destroyed"] - exact["destroyed"].to_numpy())
                  < 5 * np.sqrt(exact["destroyed"].to_numpy() * (1 - exact["destroyed"].to_numpy()) / n))


def test_design_questions_table_has_every_scenario():
    t = design_questions(FORCE_A, FORCE_B, turns=60, seed=1, progress=False)
    assert list(t["scenario"]) == [
        "changes, focus, passive engage", "changes, focus, passive under_fire",
        "changes, spread, passive engage", "changes, spread, passive under_fire",
        "changes, greedy, passive engage", "changes, greedy, passive under_fire", "I-go-you-go, A first"]
    # staying under fire never fires back during the phase
    assert (t.loc[t["response"] == "under_fire", "return_fire_lost"] == 0).all()
    assert (t["turns"] == 60).all()


@pytest.mark.parametrize("client, match", [(5, "client"), ("", "client")])
def test_bad_clients_are_refused(client, match):
    with pytest.raises(InputError, match=match):
        study(FORCE_A, FORCE_B, turns=5, client=client, progress=False)


def test_a_client_with_an_exact_sweep_is_refused():
    with pytest.raises(InputError, match="method"):
        compare.sweep("changes", "shooting", bs=5, s=5, ap=5, client="local", progress=False)


def test_design_questions_keeps_every_option_of_the_passive_policy(monkeypatch):
    """Each passive scenario changes only the response of ``policy_b``: a Desperate Charge, its
    distance and staying embarked are kept (they were once dropped)."""
    import importlib

    study_module = importlib.import_module("workbench.turn.study")
    from workbench.turn.policies import FocusFire

    seen = []
    real = study_module._scenario

    def spy(force_a, force_b, policy_a, policy_b, *args, **kw):
        seen.append(policy_b)
        return real(force_a, force_b, policy_a, policy_b, *args, **kw)

    monkeypatch.setattr(study_module, "_scenario", spy)
    passive = FocusFire(charge=True, charge_kind="desperate", charge_distance=6.0, disembark=False)
    design_questions(FORCE_A, FORCE_B, policies=("focus",), policy_b=passive, turns=5, seed=1, progress=False)
    assert [p.response_choice for p in seen] == ["engage", "under_fire", "engage"]
    for p in seen:
        assert (p.charge, p.charge_kind, p.charge_distance, p.disembark) == (True, "desperate", 6.0, False)
    assert passive.response_choice == "engage"  # the caller's policy is not changed
