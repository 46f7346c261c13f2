"""Shared pieces of the IRT tests on Dask input (user guide, "More data than
one machine"): long tables, Dask's transfer counter, and the comparison of a
fit on Dask input with the in-memory fit for its per-agent outputs."""

import re
import warnings

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose


def long_table(X):
    """The long table (agent, item, score) of X's observed responses, shuffled."""
    rows, columns = np.nonzero(~np.isnan(X))
    table = pd.DataFrame({
        "agent": [f"agent{r:04d}" for r in rows],
        "item": [f"item{c:03d}" for c in columns],
        "score": X[rows, columns],
    })
    return table.sample(frac=1.0, random_state=0).reset_index(drop=True)


_CLUSTER_CODE = re.compile(r"[/\\](dask|distributed|tornado)[/\\]")


def library_warnings(function, *args):
    """``(function(*args), messages)``: the warnings the library gave meanwhile.

    Those raised in the cluster's own code (dask, distributed, tornado) and
    the ``ResourceWarning`` of sockets collected at whatever moment the
    garbage collector runs are not the library's.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = function(*args)
    return out, [str(w.message) for w in caught
                 if not issubclass(w.category, ResourceWarning)
                 and not _CLUSTER_CODE.search(w.filename)]


def transfer_bytes(client):
    """Bytes the workers sent (to each other and to the client): Dask's counter."""
    totals = client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
    return sum(totals.values())


def transfer_per_call(client, call, repeats=3):
    """Bytes the workers send per ``call()`` (Dask's counter; one warm-up call)."""
    call()
    before = transfer_bytes(client)
    for _ in range(repeats):
        call()
    return (transfer_bytes(client) - before) / repeats


def assert_flat_traffic(per_call, table, multiple):
    """Bytes per call at every size within ``multiple`` tables (plus 10 kB)
    and the same at every size (independent of the number of agents)."""
    for value in per_call:
        assert 0 < value <= multiple * table + 10_000
    assert len(set(per_call)) == 1


def assert_same_agents(fit, memory_fit, mean_column):
    """Abilities kept on the workers (Dask arrays) and equal to 1e-10, the
    same labels, and the agent table's ``mean_column`` equal."""
    import dask.array as da

    for name in ("abilities_", "abilities_sd_"):
        value = getattr(fit, name)
        assert isinstance(value, da.Array), name  # stays on the workers
        assert_allclose(value.compute(), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    np.testing.assert_array_equal(fit.agents_, memory_fit.agents_)
    np.testing.assert_array_equal(fit.tasks_, memory_fit.tasks_)
    table, memory_table = fit.agent_table(), memory_fit.agent_table()
    assert_allclose(table.loc[memory_table.index, mean_column],
                    memory_table[mean_column], rtol=1e-12)


def assert_same_passes(fit, memory_fit, X_dask, X_memory, predict):
    """``transform`` and ``predict`` (the method named) of Dask input are Dask
    arrays equal to the in-memory ones to 1e-10, and so is ``score``."""
    import dask.array as da

    for method in ("transform", predict):
        out = getattr(fit, method)(X_dask)
        assert isinstance(out, da.Array), method
        assert_allclose(out.compute(), getattr(memory_fit, method)(X_memory),
                        rtol=1e-10, atol=1e-10, err_msg=method)
    assert_allclose(fit.score(X_dask), memory_fit.score(X_memory), rtol=1e-10)
