"""The load_* functions return the published data, shipped verbatim and licensed.

Shapes, values checked against the sources (when the shared reference data
are present), frames, licences and descriptions, and parameter validation.
"""

from importlib import resources

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import (
    describe_datasets,
    load_atari,
    load_atari_reference_scores,
    load_automl_benchmark,
    load_chembench,
    load_international_football,
    load_rrps,
    load_soccer,
    load_vicuna80,
)

# Shipped file -> folder of its byte-identical source under shared/data (the
# source has the same name without ".gz").
_SHIPPED_FOLDERS = {
    "rldb_atari_noop_matrix.csv": "atari",
    "rldb_atari_scores_long.csv.gz": "atari",
    "openspiel_atari_agent57_table.txt": "atari",
    "openspiel_atari_rainbow_table6.txt": "atari",
    "openspiel_atari_muesli_table11.txt": "atari",
    "dqnzoo_atari57_random_human.csv": "atari",
    "irt_on_bench_chembench_binary_matrix.csv.gz": "irt",
    "irt_on_bench_chembench_model_scores.csv": "irt",
    "prd_vicuna80_human_pairwise.csv.gz": "pairwise",
    "openspiel_pbe_rrps_bot_table_file.txt.gz": "pairwise",
    "openspiel_response_graph_ucb_soccer.txt": "pairwise",
    "amlb2019_1h_result_summary.csv": "ml_matrix",
    "amlb2019_4h_result_summary.csv": "ml_matrix",
    "amlb2019_1h_all_results.csv.gz": "ml_matrix",
    "amlb2019_4h_all_results.csv.gz": "ml_matrix",
    "martj42_international_results_full.csv.gz": "pairwise",
    "leaderbot_chatbotarena_20240814.json.gz": "pairwise",
}
_SHIPPED_SOURCES = {
    name: f"{folder}/{name.removesuffix('.gz')}"
    for name, folder in _SHIPPED_FOLDERS.items()
}
# the benchbench leaderboards: benchbench_<board>[_<file>].tsv[.gz]
_HELM = ("accuracy", "bias", "calibration", "efficiency", "fairness", "robustness",
         "summarization", "toxicity")
_HEIM = ("aesthetics_auto", "aesthetics_human", "alignment_auto", "alignment_human",
         "black_out", "nsfw", "nudity", "originality", "quality_auto", "quality_human")
_SHIPPED_SOURCES.update(
    {f"benchbench_helm_{f}.tsv": f"leaderboards/benchbench/helm/{f}.tsv"
     for f in _HELM}
    | {f"benchbench_heim_{f}.tsv": f"leaderboards/benchbench/heim/{f}.tsv"
       for f in _HEIM}
    | {
        f"benchbench_{board}.tsv{'.gz' if board in ('imagenet', 'mmlu') else ''}":
        f"leaderboards/benchbench/{board}/leaderboard.tsv"
        for board in ("helm_lite", "helm_capability", "openllm", "mmlu", "bbh",
                      "bigcode", "glue", "superglue", "mteb", "vtab", "imagenet")
    }
)
_PERMISSIVE = {"MIT", "Apache-2.0", "CC0-1.0", "BSD-3-Clause"}


def _data_dir():
    return resources.files("sklearn_eval.datasets").joinpath("data")


class TestShippedFiles:
    def test_exactly_the_listed_files_are_shipped(self):
        shipped = {p.name for p in _data_dir().iterdir() if p.is_file()}
        assert shipped == set(_SHIPPED_SOURCES)

    def test_total_size_is_small(self):
        total = sum(p.stat().st_size for p in _data_dir().iterdir())
        assert total < 5 * 1024 * 1024

    def test_files_are_verbatim_copies(self, shared_dir):
        import gzip

        for name, source in _SHIPPED_SOURCES.items():
            raw = _data_dir().joinpath(name).read_bytes()
            if name.endswith(".gz"):
                raw = gzip.decompress(raw)
            assert raw == (shared_dir / "data" / source).read_bytes(), name

    def test_only_permissive_sources_per_sources_md(self, shared_dir):
        table = (shared_dir / "data" / "SOURCES.md").read_text()
        licences = {}
        last = ""
        for line in table.splitlines():
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if len(cells) >= 6 and "/" in cells[0]:
                if cells[4].startswith("same"):  # as the row above
                    cells[4] = last
                licences[cells[0]] = last = cells[4]
                if "{" in cells[0]:  # "dir/{a,b}.tsv (2 files)": one per file
                    head, rest = cells[0].split("{")
                    names, tail = rest.split("}")
                    for name in names.split(","):
                        licences[f"{head}{name}{tail.split()[0]}"] = cells[4]
        for source in _SHIPPED_SOURCES.values():
            # the cell may add a note, e.g. "BSD-3-Clause (wheel's LICENSE.txt)"
            assert licences[source].split()[0] in _PERMISSIVE, source

    def test_licence_texts_are_shipped(self):
        folder = resources.files("sklearn_eval.datasets").joinpath("licenses")
        texts = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}
        assert set(texts) == {
            "MIT.txt", "Apache-2.0.txt", "CC0-1.0.txt", "BSD-3-Clause.txt"
        }
        assert "Apache License" in texts["Apache-2.0.txt"]
        assert "CC0 1.0 Universal" in texts["CC0-1.0.txt"]
        for holder in (
            "Seungjae Ryan Lee",
            "irt-on-bench maintainers",
            "bcdnlp",
            "OpenML",
            "Guanhua Zhang and Moritz Hardt",
        ):
            assert holder in texts["MIT.txt"]

    def test_notice_lists_every_shipped_file(self):
        from pathlib import Path

        notice = Path(__file__).resolve().parents[2] / "NOTICE"
        if not notice.is_file():
            pytest.skip("NOTICE not found beside the tests (installed package)")
        text = notice.read_text()
        for name in _SHIPPED_SOURCES:
            assert name in text, name


# ---------------------------------------------------------------------------
# Atari
# ---------------------------------------------------------------------------
class TestLoadAtari:
    def test_noop_matrix(self):
        atari = load_atari()
        assert atari.data.shape == (32, 57) and atari.data.dtype == np.float64
        assert atari.agent_names.shape == (32,)
        assert atari.feature_names.shape == (57,)
        assert np.isnan(atari.data).sum() == 75
        names = list(atari.agent_names)
        games = list(atari.feature_names)
        assert "bank_heist" in games and "bank-heist" not in games
        # Values from the source file (first row a3c@noisynet).
        assert atari.data[names.index("a3c@noisynet"), games.index("alien")] == 2027.0
        assert (
            atari.data[names.index("acktr@acktr"), games.index("atlantis")] == 3433182.0
        )
        assert np.isnan(
            atari.data[names.index("acktr@acktr"), games.index("chopper_command")]
        )
        assert atari.frame is None and "MIT" in atari.DESCR

    def test_noop_matrix_matches_source(self, shared_dir):
        source = pd.read_csv(
            shared_dir / "data/atari/rldb_atari_noop_matrix.csv", index_col=0
        )
        atari = load_atari()
        np.testing.assert_array_equal(atari.data, source.to_numpy())
        assert list(atari.agent_names) == list(source.index)
        assert list(atari.feature_names) == [
            c.replace("-", "_") for c in source.columns
        ]

    def test_long(self):
        long = load_atari("long")
        assert long.data.shape == (2740, 8) and long.data.dtype == object
        assert list(long.feature_names) == [
            "source",
            "arxiv",
            "algo",
            "algo_title",
            "frames",
            "variant",
            "game",
            "score",
        ]
        first = long.data[0].tolist()
        assert first == [
            "a3c",
            "1602.01783",
            "a3c_ff",
            "Asynchronous Advantage Actor Critic Feed Forward",
            "200 * 1000 * 1000",
            "Human start",
            "alien",
            518.4,
        ]
        variants = long.data[:, 5]
        assert np.sum(variants == "No-op start") == 1777
        assert np.sum(variants == "Human start") == 963
        assert sum(value is None for value in long.data[:, 1]) == 245

    def test_long_frame_matches_source(self, shared_dir):
        source = pd.read_csv(
            shared_dir / "data/atari/rldb_atari_scores_long.csv", dtype={"arxiv": str}
        )
        frame = load_atari("long", as_frame=True).frame
        np.testing.assert_array_equal(frame["score"], source["score"])
        assert list(frame["game"]) == [g.replace("-", "_") for g in source["game"]]
        assert frame["arxiv"].isna().sum() == source["arxiv"].isna().sum()
        kept = source["arxiv"].notna()
        assert list(frame["arxiv"][kept]) == list(source["arxiv"][kept])

    def test_agent57_table(self):
        a57 = load_atari("agent57")
        assert a57.data.shape == (6, 57) and a57.spread.shape == (6, 57)
        assert list(a57.agent_names) == [
            "agent57",
            "r2d2(bandit)",
            "muzero",
            "ngu",
            "r2d2(retrace)",
            "r2d2",
        ]
        games = list(a57.feature_names)
        alien, pong = games.index("alien"), games.index("pong")
        assert a57.data[0, alien] == 297638.17 and a57.spread[0, alien] == 37054.55
        assert a57.data[0, pong] == 20.67 and a57.spread[0, pong] == 0.47
        assert a57.data[2, alien] == 741812.63 and np.isnan(a57.spread[2]).all()
        assert a57.human_scores[alien] == 7127.70
        assert a57.random_scores[pong] == -20.70
        assert "2003.13350" in a57.source

    def test_rainbow_table_thousands_separators(self):
        rainbow = load_atari("rainbow")
        assert rainbow.data.shape == (8, 54)
        assert rainbow.random_scores is None and rainbow.human_scores is None
        assert np.isnan(rainbow.spread).all()
        names, games = list(rainbow.agent_names), list(rainbow.feature_names)
        alien = games.index("alien")
        assert rainbow.data[names.index("dueling-ddqn"), alien] == 1486.5
        assert rainbow.data[names.index("rainbow"), alien] == 6022.9
        assert rainbow.data[names.index("a3c"), games.index("atlantis")] == 911091.0
        assert {"jamesbond", "riverraid", "up_n_down"}.isdisjoint(games)
        assert "HUMAN-START" in rainbow.DESCR

    def test_muesli_table(self):
        muesli = load_atari("muesli")
        assert muesli.data.shape == (2, 57)
        assert list(muesli.agent_names) == ["muzero", "muesli"]
        games = list(muesli.feature_names)
        heist = games.index("bank_heist")
        assert muesli.data[1, heist] == 1213 and muesli.spread[1, heist] == 0
        assert muesli.data[0, heist] == 14176 and muesli.spread[0, heist] == 13044
        assert muesli.random_scores[games.index("pong")] == -21

    def test_all_views_share_game_spelling(self):
        reference = set(load_atari_reference_scores().games)
        for kind in ("noop_matrix", "agent57", "rainbow", "muesli"):
            assert set(load_atari(kind).feature_names) <= reference, kind
        assert set(load_atari("long").data[:, 6]) == reference

    @pytest.mark.parametrize("kind", ["noop_matrix", "agent57", "rainbow", "muesli"])
    def test_as_frame(self, kind):
        array = load_atari(kind)
        framed = load_atari(kind, as_frame=True)
        assert framed.frame is framed.data
        np.testing.assert_array_equal(framed.data.to_numpy(), array.data)
        assert list(framed.data.index) == list(array.agent_names)
        assert list(framed.data.columns) == list(array.feature_names)

    def test_reference_scores(self):
        ref = load_atari_reference_scores()
        assert ref.data.shape == (57, 2) and ref.data.dtype == np.float64
        games = list(ref.games)
        assert ref.human[games.index("pong")] == 14.6
        assert ref.random[games.index("pong")] == -20.7
        np.testing.assert_array_equal(ref.data[:, 0], ref.random)
        frame = load_atari_reference_scores(as_frame=True).data
        assert frame.loc["alien", "human"] == 7127.7

    def test_reference_scores_agree_with_agent57_table(self):
        ref = load_atari_reference_scores()
        a57 = load_atari("agent57")
        order = [list(ref.games).index(g) for g in a57.feature_names]
        np.testing.assert_allclose(a57.human_scores, ref.human[order], atol=0.051)
        # One known disagreement: dqn_zoo's random video_pinball score is
        # 16256.9 (as in the DQN Nature paper); Agent57's and Muesli's tables use 0.
        differs = np.abs(a57.random_scores - ref.random[order]) > 0.051
        assert list(a57.feature_names[differs]) == ["video_pinball"]
        assert ref.random[list(ref.games).index("video_pinball")] == 16256.9
        assert a57.random_scores[differs][0] == 0.0
        muesli = load_atari("muesli")
        assert (
            muesli.random_scores[list(muesli.feature_names).index("video_pinball")]
            == 0.0
        )

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"kind": "noop"}, ValueError, "kind"),
            ({"kind": None}, ValueError, "kind"),
            ({"as_frame": "yes"}, TypeError, "as_frame"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            load_atari(**kwargs)


# ---------------------------------------------------------------------------
# ChemBench
# ---------------------------------------------------------------------------
class TestLoadChembench:
    def test_shape_values_and_scores(self):
        chem = load_chembench()
        assert chem.data.shape == (22, 2854) and chem.data.dtype == np.float64
        assert set(np.unique(chem.data)) == {0.0, 1.0}
        assert chem.agent_names[0] == "Mistral-Large-2"
        assert chem.feature_names[0] == "item_0000"
        assert chem.feature_names[-1] == "item_2853"
        np.testing.assert_allclose(chem.data.mean(axis=1), chem.target, atol=1e-12)
        models = list(chem.agent_names)
        assert chem.target[models.index("Llama-3.1-70B-Instruct")] == 0.5
        # Row 1 of the source file (item 1), read across the models.
        assert chem.data[:3, 1].tolist() == [1.0, 0.0, 1.0]

    def test_is_transpose_of_source(self, shared_dir):
        source = pd.read_csv(
            shared_dir / "data/irt/irt_on_bench_chembench_binary_matrix.csv",
            index_col=0,
        )
        chem = load_chembench()
        np.testing.assert_array_equal(chem.data, source.to_numpy().T)
        assert list(chem.agent_names) == list(source.columns)

    def test_as_frame(self):
        chem = load_chembench(as_frame=True)
        assert chem.data.shape == (22, 2854)
        assert chem.target.index.equals(chem.data.index)
        assert chem.target.loc["Llama-3.1-70B-Instruct"] == 0.5


# ---------------------------------------------------------------------------
# Match tables
# ---------------------------------------------------------------------------
class TestLoadVicuna80:
    def test_matches(self):
        vicuna = load_vicuna80()
        assert vicuna.data.shape == (7040, 2) and vicuna.target.dtype == np.float64
        assert vicuna.data[0].tolist() == ["bard", "gpt35"]
        assert vicuna.target[:3].tolist() == [1.0, 1.0, 0.5]
        assert vicuna.score[:3].tolist() == [1, 1, 3]
        assert vicuna.question_id.min() == 1 and vicuna.question_id.max() == 80
        assert len(vicuna.players) == 9 and "gpt4" in vicuna.players
        counts = {v: int(np.sum(vicuna.target == v)) for v in (1.0, 0.0, 0.5)}
        assert counts == {1.0: 3211, 0.0: 3025, 0.5: 804}
        np.testing.assert_array_equal(
            vicuna.target,
            np.select([vicuna.score == 1, vicuna.score == 2], [1.0, 0.0], 0.5),
        )
        assert np.all(vicuna.data[:, 0] != vicuna.data[:, 1])

    def test_valid_for_match_validator(self):
        from sklearn_eval.utils import check_matches

        vicuna = load_vicuna80()
        checked = check_matches(vicuna.data, vicuna.target)
        np.testing.assert_array_equal(checked.y, vicuna.target)

    def test_as_frame(self):
        vicuna = load_vicuna80(as_frame=True)
        assert list(vicuna.data.columns) == ["model_a", "model_b"]
        assert list(vicuna.frame.columns) == [
            "model_a",
            "model_b",
            "question_id",
            "score",
            "y",
        ]
        assert vicuna.target.name == "y"


class TestLoadInternationalFootball:
    def test_full_table(self):
        football = load_international_football()
        assert football.data.shape == (49520, 2)
        assert football.data[0].tolist() == ["Scotland", "England"]
        assert football.target[:3].tolist() == [0.5, 1.0, 1.0]
        assert football.date[0] == np.datetime64("1872-11-30")
        assert np.all(np.diff(football.date.astype(np.int64)) >= 0)
        assert football.home_score[1] == 4 and football.away_score[1] == 2
        assert football.neutral.dtype == bool and not football.neutral[0]
        np.testing.assert_array_equal(
            football.target,
            np.where(
                football.home_score > football.away_score,
                1.0,
                np.where(football.home_score < football.away_score, 0.0, 0.5),
            ),
        )
        assert football.subset == "all" and "CC0" in football.DESCR

    def test_matches_source(self, shared_dir):
        source = pd.read_csv(
            shared_dir / "data/pairwise/martj42_international_results_full.csv"
        )
        frame = load_international_football(as_frame=True).frame
        for column in ("home_team", "away_team", "tournament", "city", "country"):
            assert list(frame[column]) == list(source[column]), column
        np.testing.assert_array_equal(frame["home_score"], source["home_score"])
        np.testing.assert_array_equal(frame["neutral"], source["neutral"])
        assert (frame["date"] == pd.to_datetime(source["date"])).all()

    def test_world_cup_subset(self, shared_dir):
        wc = load_international_football("world_cup")
        assert wc.data.shape == (1068, 2)
        assert set(wc.tournament) == {"FIFA World Cup"}
        assert wc.data[0].tolist() == ["Belgium", "United States"]
        assert wc.target[0] == 0.0 and wc.neutral[0]
        source = pd.read_csv(
            shared_dir / "data/pairwise/martj42_fifa_world_cup_matches.csv"
        )
        assert list(wc.data[:, 0]) == list(source["home_team"])
        np.testing.assert_array_equal(wc.away_score, source["away_score"])

    def test_valid_for_match_validator(self):
        from sklearn_eval.utils import check_matches

        wc = load_international_football("world_cup", as_frame=True)
        checked = check_matches(wc.data, wc.target)
        assert checked.y.shape == (1068,)

    def test_bad_subset(self):
        with pytest.raises(ValueError, match="subset"):
            load_international_football("euro")


# ---------------------------------------------------------------------------
# Payoff matrices
# ---------------------------------------------------------------------------
class TestLoadRRPS:
    def test_matrix(self):
        rrps = load_rrps()
        assert rrps.data.shape == (43, 43) and rrps.data.dtype == np.float64
        names = list(rrps.agent_names)
        assert names == sorted(names) and len(set(names)) == 43
        assert list(rrps.feature_names) == names
        assert np.all(np.abs(rrps.data) <= 1000)
        # Known cells of the source file.
        assert (
            rrps.data[names.index("inocencio"), names.index("addshiftbot3")] == 74.986
        )
        assert (
            rrps.data[names.index("rotatebot"), names.index("mixed_strategy")]
            == -957.369
        )
        assert rrps.data[names.index("boom"), names.index("boom")] == 0.0
        # Separate estimates per ordered pair: nearly, not exactly, antisymmetric.
        asym = rrps.data + rrps.data.T
        assert 0 < np.abs(asym).max() < 100
        assert np.abs(asym).mean() < 10

    def test_matches_source(self, shared_dir):
        import ast

        rrps = load_rrps()
        position = {name: i for i, name in enumerate(rrps.agent_names)}
        path = shared_dir / "data/pairwise/openspiel_pbe_rrps_bot_table_file.txt"
        n_lines = 0
        for line in path.read_text().splitlines():
            if line.strip():
                first, second, value = ast.literal_eval(line)
                assert rrps.data[position[first], position[second]] == value
                n_lines += 1
        assert n_lines == 43 * 43

    def test_as_frame(self):
        frame = load_rrps(as_frame=True).data
        assert frame.loc["granite", "copybot"] == 992.803


class TestLoadSoccer:
    def test_matrix(self):
        soccer = load_soccer()
        assert soccer.data.shape == (10, 10) and soccer.data.dtype == np.float64
        np.testing.assert_allclose(soccer.data + soccer.data.T, 1.0, atol=1e-12)
        np.testing.assert_array_equal(np.diag(soccer.data), 0.5)
        assert soccer.data[0, 1] == 0.43674757
        assert soccer.data[9, 8] == 0.29254439
        assert list(soccer.agent_names) == [f"agent_{i}" for i in range(10)]

    def test_matches_source(self, shared_dir):
        source = np.loadtxt(
            shared_dir / "data/pairwise/openspiel_response_graph_ucb_soccer.txt"
        )
        np.testing.assert_array_equal(load_soccer().data, source)


# ---------------------------------------------------------------------------
# AutoML benchmark
# ---------------------------------------------------------------------------
class TestLoadAutomlBenchmark:
    @pytest.mark.parametrize("budget, n_tasks", [("1h", 35), ("4h", 39)])
    def test_summary(self, budget, n_tasks):
        amlb = load_automl_benchmark(budget)
        assert amlb.data.shape == (7, n_tasks) and amlb.data.dtype == np.float64
        assert list(amlb.agent_names) == [
            "autosklearn",
            "autoweka",
            "constantpredictor",
            "h2oautoml",
            "randomforest",
            "tpot",
            "tunedrandomforest",
        ]
        assert amlb.n_failed_folds.shape == (7, n_tasks)
        binary = amlb.task_types == "binary"
        assert set(amlb.metrics[binary]) == {"auc"}
        assert set(amlb.metrics[~binary]) == {"logloss"}
        constant = list(amlb.agent_names).index("constantpredictor")
        np.testing.assert_array_equal(amlb.data[constant, binary], 0.5)

    def test_summary_known_cells_and_footnotes(self):
        amlb = load_automl_benchmark("1h")
        names, tasks = list(amlb.agent_names), list(amlb.feature_names)
        sk, weka = names.index("autosklearn"), names.index("autoweka")
        assert amlb.data[sk, tasks.index("adult")] == 0.929528
        assert amlb.data[sk, tasks.index("kc1")] == 0.84251
        assert amlb.n_failed_folds[sk, tasks.index("kc1")] == 1
        assert amlb.data[weka, tasks.index("kddcup09_appetency")] == 0.790757
        assert amlb.n_failed_folds[weka, tasks.index("kddcup09_appetency")] == 6
        assert np.isnan(amlb.data[weka, tasks.index("riccardo")])
        assert amlb.n_failed_folds.sum() == 1 + 6 + 1 + 1 + 5
        assert np.isnan(amlb.data).sum() == 2

    @pytest.mark.parametrize("budget", ["1h", "4h"])
    def test_summary_is_fold_mean_of_imputed_results(self, budget):
        # The published summary is the mean over the 10 folds of 'imp_result'
        # (failed folds imputed); NaN where no fold has a result at all.
        amlb = load_automl_benchmark(budget)
        runs = load_automl_benchmark(budget, "all")
        columns = list(runs.feature_names)
        framework = runs.data[:, columns.index("framework")]
        task = runs.data[:, columns.index("task")]
        imputed = runs.data[:, columns.index("imp_result")].astype(float)
        for i, name in enumerate(amlb.agent_names):
            for j, task_name in enumerate(amlb.feature_names):
                values = imputed[(framework == name) & (task == task_name)]
                assert values.size == 10
                values = values[~np.isnan(values)]
                if values.size == 0:
                    assert np.isnan(amlb.data[i, j])
                else:
                    assert abs(values.mean() - amlb.data[i, j]) < 1e-5 * max(
                        1.0, abs(amlb.data[i, j])
                    )

    def test_all_runs(self):
        runs = load_automl_benchmark("1h", "all")
        assert runs.data.shape == (2450, 22)
        assert runs.feature_names[0] == "acc" and runs.feature_names[-1] == "norm_score"
        first = dict(zip(runs.feature_names, runs.data[0], strict=True))
        assert first["framework"] == "constantpredictor"
        assert first["task"] == "australian" and first["fold"] == 0
        assert first["acc"] == 0.550725 and first["params"] == "{'encode': True}"

    def test_all_runs_frame_matches_source(self, shared_dir):
        source = pd.read_csv(shared_dir / "data/ml_matrix/amlb2019_1h_all_results.csv")
        frame = load_automl_benchmark("1h", "all", as_frame=True).frame
        assert list(frame.columns) == list(source.columns)
        for column in source.columns:
            if source[column].dtype.kind in "fi":
                np.testing.assert_array_equal(frame[column], source[column])
            else:
                left = frame[column].fillna("<NA>").astype(str).tolist()
                right = source[column].fillna("<NA>").astype(str).tolist()
                assert left == right, column

    @pytest.mark.parametrize(
        "kwargs, match",
        [({"budget": "2h"}, "budget"), ({"kind": "runs"}, "kind")],
    )
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            load_automl_benchmark(**kwargs)


# ---------------------------------------------------------------------------
# Cross-cutting: DESCR, pandas-free path, summary
# ---------------------------------------------------------------------------
_ALL_LOADERS = [
    (load_atari, {"kind": "noop_matrix"}),
    (load_atari, {"kind": "long"}),
    (load_atari, {"kind": "agent57"}),
    (load_atari, {"kind": "rainbow"}),
    (load_atari, {"kind": "muesli"}),
    (load_atari_reference_scores, {}),
    (load_chembench, {}),
    (load_vicuna80, {}),
    (load_rrps, {}),
    (load_soccer, {}),
    (load_automl_benchmark, {"budget": "4h"}),
    (load_automl_benchmark, {"kind": "all"}),
    (load_international_football, {"subset": "world_cup"}),
]


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_descr_names_source_licence_and_citation(loader, kwargs):
    descr = loader(**kwargs).DESCR
    for field in (":Source:", ":Licence:", ":Citation:"):
        assert field in descr


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_loaders_return_fresh_arrays(loader, kwargs):
    first = loader(**kwargs)
    second = loader(**kwargs)
    if isinstance(first.data, np.ndarray) and first.data.dtype == np.float64:
        first.data[...] = -1.0
        assert not np.array_equal(first.data, second.data)
        assert not np.array_equal(loader(**kwargs).data, first.data)


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_as_frame_without_pandas_raises_clear_error(loader, kwargs, monkeypatch):
    import sys

    without_frame = loader(**kwargs)  # the ndarray path needs no pandas
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert without_frame.frame is None
    with pytest.raises(ImportError, match="pandas"):
        loader(**kwargs, as_frame=True)


def test_describe_datasets():
    summary = describe_datasets()
    names = [entry["name"] for entry in summary]
    assert len(names) == len(set(names)) == 17 + 29  # + public leaderboards
    for entry in summary:
        assert set(entry) == {
            "name",
            "loader",
            "shape",
            "kind",
            "licence",
            "reference_agents",
        }
        assert entry["licence"] in _PERMISSIVE
        assert all(isinstance(n, int) and n > 0 for n in entry["shape"])
    by_name = {entry["name"]: entry for entry in summary}
    assert by_name["chembench"]["shape"] == (22, 2854)
    assert by_name["rrps"]["shape"] == (43, 43)
    assert by_name["international_football"]["shape"] == (49520, 2)
    assert by_name["vicuna80"]["kind"] == "matches"
    assert by_name["atari_noop_matrix"]["reference_agents"] == [
        "human@dqn",
        "human@dudqn",
        "random@dqn",
    ]
    assert by_name["vicuna80"]["reference_agents"] == []
    import sklearn_eval.datasets as datasets

    for entry in summary:  # the loader strings are real calls
        call = entry["loader"]
        data = eval(call, {}, vars(datasets)).data  # noqa: S307 - test only
        assert np.shape(data) == entry["shape"]
