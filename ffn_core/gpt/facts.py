"""The table of facts the corpus is written from: one row per country, English and Korean names.

Korean names are the standard exonyms of the National Institute of Korean Language and the Ministry
of Foreign Affairs (호주 is written 오스트레일리아, as the ministry does; Turkey is 튀르키예).
"""
from __future__ import annotations

from typing import NamedTuple

CONTINENTS = {
    "Africa": "아프리카", "Asia": "아시아", "Europe": "유럽", "North America": "북아메리카",
    "South America": "남아메리카", "Oceania": "오세아니아",
}

LANGUAGES = {
    "English": "영어", "French": "프랑스어", "German": "독일어", "Spanish": "스페인어",
}

CURRENCIES = {
    "euro": "유로", "dollar": "달러", "yen": "엔", "won": "원",
}


class Country(NamedTuple):
    en: str
    ko: str
    continent: str
    capital: str | None
    capital_ko: str | None
    language: str | None
    currency: str | None


COUNTRIES: tuple[Country, ...] = (
    Country("France", "프랑스", "Europe", "Paris", "파리", "French", "euro"),
    Country("Germany", "독일", "Europe", "Berlin", "베를린", "German", "euro"),
    Country("Spain", "스페인", "Europe", "Madrid", "마드리드", "Spanish", "euro"),
    Country("Japan", "일본", "Asia", "Tokyo", "도쿄", None, "yen"),
    Country("South Korea", "대한민국", "Asia", "Seoul", "서울", None, "won"),
    Country("Canada", "캐나다", "North America", "Ottawa", "오타와", None, "dollar"),
    Country("United States", "미국", "North America", "Washington", "워싱턴", "English", "dollar"),
    Country("Australia", "오스트레일리아", "Oceania", "Canberra", "캔버라", "English", "dollar"),
    Country("Argentina", "아르헨티나", "South America", "Buenos Aires", "부에노스아이레스", "Spanish", None),
    Country("Netherlands", "네덜란드", "Europe", "Amsterdam", "암스테르담", None, "euro"),
)

# English names that take "the": "the capital of the Netherlands".
ARTICLE = frozenset({"Netherlands", "United States"})


def answers(row: Country) -> tuple[tuple[str | None, str | None], ...]:
    """(English, Korean) answers in corpus.RELATIONS order; (None, None) where the table skips it."""
    def pair(value: str | None, table: dict[str, str]) -> tuple[str | None, str | None]:
        return (value, table[value]) if value is not None else (None, None)

    return (
        (row.capital, row.capital_ko),
        (row.continent, CONTINENTS[row.continent]),
        pair(row.language, LANGUAGES),
        pair(row.currency, CURRENCIES),
    )
