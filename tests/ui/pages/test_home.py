"""The home page: measured headline figures, the block diagram and the map of demos, in both languages."""
import pytest

from tests.conftest import chart_specs, open_page
from ui.base import i18n
from ui.kit import shell
from ui.registry import catalog, query


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_home_shows_the_measured_split_and_the_map(lang):
    at = open_page("dashboard.py", lang)
    assert not at.exception
    t = i18n.Translator(lang)
    assert at.title[0].value == t("home.title")
    d = 512
    values = [m.value for m in at.metric]
    assert values == [f"{4 * d * d:,}", f"{8 * d * d:,}", "0.6667"]
    [spec] = chart_specs(at)
    [rows] = spec["datasets"].values()
    assert {r["part"]: r["params"] for r in rows} == {"attention": 4 * d * d, "ffn": 8 * d * d}
    # One fixed block: its split is a stated fact with the counts, not a ✓ that could never be ✗.
    assert not at.success and not at.error
    assert t("home.claim", ffn=8 * d * d, block=12 * d * d) in at.info[0].value
    assert at.info[0].value.startswith(f"**{t('common.fact')}**")
    assert t("home.takeaway", ratio=2.0, share=2 / 3) in at.info[1].value
    assert len(at.get("graphviz_chart")) == 1
    main_links = [link.proto.page for link in at.main.get("page_link")]
    # a link names its page by URL path: the file's name without the order prefix
    assert main_links == [query.url_path(path) for _, path, _ in catalog.DEMOS]
    labels = [link.proto.label for link in at.main.get("page_link")]
    assert all(t(f"{section}.title") in label for (section, _, _), label in zip(catalog.DEMOS, labels))


def test_home_titles_differ_between_languages():
    titles = {lang: open_page("dashboard.py", lang).title[0].value for lang in i18n.LANGS}
    assert titles["ko"] != titles["en"]
