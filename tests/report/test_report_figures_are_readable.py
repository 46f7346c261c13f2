"""Report figures are readable at the page width: no shrinking, legible text."""

import io

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from sklearn_eval.datasets import load_international_football
from sklearn_eval.report import analyze_matches, prepare_matches
from sklearn_eval.report._figures import (
    FIGURES,
    PAGE_INCHES,
    draw_figure,
    import_pyplot,
    to_png_base64,
)
from sklearn_eval.report._match_figures import MATCH_DRAWERS, MATCH_FIGURES
from tests.report.pages import decode_png

# the page's content is 1100 CSS pixels wide: a wider image would be shrunk
PAGE_PIXELS = 1100
MIN_POINTS = 7


def _png(figure):
    return Image.open(
        io.BytesIO(decode_png("data:image/png;base64," + to_png_base64(figure)))
    )


def _visible_texts(figure):
    from matplotlib.text import Text

    return [
        text
        for text in figure.findobj(Text)
        if text.get_visible() and text.get_text().strip()
    ]


def _check_readable(figure):
    width, height = figure.get_size_inches()
    assert width <= PAGE_INCHES + 1e-9
    for text in _visible_texts(figure):
        assert text.get_fontsize() >= MIN_POINTS, (text.get_text(), text.get_fontsize())
    image = _png(figure)
    assert image.size[0] <= PAGE_PIXELS
    return image


@pytest.mark.parametrize("key", FIGURES)
def test_atari_figures_fit_the_page_with_legible_text(atari, key):
    _check_readable(draw_figure(import_pyplot(), key, atari))


@pytest.fixture(scope="module")
def football():
    wc = load_international_football("world_cup")
    return analyze_matches(prepare_matches(wc.data, wc.target), n_resamples=50)


@pytest.mark.parametrize("key", MATCH_FIGURES)
def test_match_figures_fit_the_page_with_legible_text(football, key):
    _check_readable(draw_figure(import_pyplot(), key, football, MATCH_DRAWERS))


def test_the_three_ranking_panels_have_distinct_titles(atari):
    figure = draw_figure(import_pyplot(), "ranking", atari)
    try:
        titles = [ax.get_title() for ax in figure.axes]
        assert len(titles) == 3 and len(set(titles)) == 3
        assert titles[0].startswith("IRT ability")
        assert titles[1].startswith("Uniform average")
        assert titles[2].startswith("Nash average")
    finally:
        plt.close(figure)


def test_the_missing_data_map_of_atari_is_not_a_dark_block(atari):
    image = (
        np.asarray(
            _png(draw_figure(import_pyplot(), "missing", atari)).convert("RGB"),
            dtype=float,
        )
        / 255
    )
    luminance = image @ [0.299, 0.587, 0.114]
    # mostly light (the observed results), with the missing ones in red
    assert luminance.mean() > 0.75
    red = (image[..., 0] > 0.6) & (image[..., 1] < 0.35) & (image[..., 2] < 0.35)
    assert red.sum() > 59 * 20  # 59 missing cells, each many pixels


def test_nash_bars_name_every_agent_horizontally(atari):
    figure = draw_figure(import_pyplot(), "nash_distributions", atari)
    try:
        agents_ax = figure.axes[0]
        labels = [t.get_text() for t in agents_ax.get_yticklabels()]
        assert len(labels) == len(atari.block.agents)
        assert set(labels) == set(atari.block.agents)  # names short enough
        assert all(t.get_rotation() == 0 for t in agents_ax.get_yticklabels())
        assert min(t.get_fontsize() for t in agents_ax.get_yticklabels()) >= 8
    finally:
        plt.close(figure)


def test_large_cyclic_planes_label_only_the_most_cyclic_players(football):
    figure = draw_figure(import_pyplot(), "cyclic", football, MATCH_DRAWERS)
    try:
        ax = figure.axes[0]
        names = {t.get_text() for t in ax.texts} - {""}
        players = football.melo.players
        assert len(players) > 30
        # 30 names and the note saying so
        note = [n for n in names if n.startswith("30 of ")]
        assert len(note) == 1 and len(names) == 31
        farthest = players[np.argsort(-football.melo.radius, kind="stable")[:30]]
        labelled = names - set(note)
        assert labelled == {
            str(p)[:19] + "…" if len(str(p)) > 20 else str(p) for p in farthest
        }
    finally:
        plt.close(figure)


def test_item_curves_drawn_together_can_be_told_apart(atari):
    from sklearn_eval.report._figures import _extreme_items

    irt = atari.irt
    most, least = _extreme_items(irt)
    assert len(most) == 3 and len(least) == 3
    assert not set(most) & set(least)
    for chosen in (most, least):
        b = irt.difficulty[chosen]
        gaps = np.abs(b[:, None] - b[None, :])[np.triu_indices(3, 1)]
        assert gaps.min() >= 0.5  # Atari has enough spread tasks
    # the first pick is still the most (least) discriminating task
    estimated = np.isfinite(irt.discrimination) & np.isfinite(irt.difficulty)
    a = np.where(estimated, irt.discrimination, np.nan)
    assert irt.discrimination[most[0]] == np.nanmax(a)
    assert irt.discrimination[least[0]] == np.nanmin(a)


def test_the_ability_generality_scatter_names_do_not_overlap(atari):
    figure = draw_figure(import_pyplot(), "ability_generality", atari)
    try:
        ax = figure.axes[0]
        names = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        note = [t for t in names if t.get_text().startswith("16 of 29 agents")]
        labels = [t for t in names if t not in note]
        assert len(note) == 1 and len(labels) == 16
        ability = atari.irt.ability
        agents = [str(a)[:19] + "…" if len(str(a)) > 20 else str(a)
                  for a in atari.benchmark.agents]
        shown = {t.get_text() for t in labels}
        # the extremes of ability are named
        assert agents[int(np.argmax(ability))] in shown
        assert agents[int(np.argmin(ability))] in shown
        renderer = figure.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in labels]
        for i, first in enumerate(boxes):
            for second in boxes[i + 1 :]:
                assert not first.overlaps(second)
    finally:
        plt.close(figure)


def test_max_labels_labels_every_agent_by_default():
    from sklearn_eval.plotting import AbilityGeneralityDisplay

    rng = np.random.default_rng(0)
    ability, generality = rng.normal(size=40), rng.uniform(1, 3, size=40)
    generality[3] = np.inf
    names = [f"a{k}" for k in range(40)]
    every = AbilityGeneralityDisplay.from_data(ability, generality, agent_names=names)
    assert len(every.texts_) == 40
    few = AbilityGeneralityDisplay.from_data(
        ability, generality, agent_names=names, max_labels=5
    )
    texts = [t.get_text() for t in few.texts_]
    assert len(texts) == 5 and "a3" in texts  # infinite generality first
    with pytest.raises(ValueError, match="max_labels"):
        AbilityGeneralityDisplay.from_data(ability, generality, max_labels=0)
    plt.close("all")
