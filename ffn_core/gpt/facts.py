"""The table of facts the corpus is written from: one row per country, English and Korean names.

Korean country names are written as the Ministry of Foreign Affairs writes them (호주 for Australia,
튀르키예, 키르기즈공화국, 남아프리카공화국 without spaces); capitals, languages and currencies follow
the National Institute of Korean Language's loanword rules, and a currency's Korean name is the one
Korean references use for it (the leone is 레온, although the country is 시에라리온).

Rules, so that every answer is one well-known true value (None where a rule leaves no single one).
The capital and currency rules name every row they skip.
- continent: the UN Statistics Division's M49 regions, with the Americas split into North (Central
  America and the Caribbean included) and South. So Russia is in Europe; Turkey, Georgia, Armenia
  and Azerbaijan are in Asia; Egypt is in Africa.
- capital: the city the constitution or law names as the capital (where no law names one, settled
  custom: London, Tokyo), given only where the head of state and the head of government sit there
  too. Skipped where they sit elsewhere or apart (Bolivia: La Paz; the Netherlands: The Hague; Côte
  d'Ivoire: Abidjan; Benin: Cotonou; Malaysia: Putrajaya; Sri Lanka: Colombo; South Africa: three
  seats), where the government moved out during a war (Yemen to Aden since 2015, Sudan to Port
  Sudan in the war that began in 2023), where the capital is not recognised by most states
  (Israel), where it is moving (Indonesia; Egypt, whose cabinet has sat in the New Administrative
  Capital since 2023; Burundi; Equatorial Guinea), or where it has the country's own name
  (Singapore, Monaco, San Marino, Djibouti), with one labelled exception: Luxembourg, whose
  constitution names the City of Luxembourg the capital and the seat of government, is given its
  capital, Luxembourg / 룩셈부르크. It is the corpus's one word with two meanings (a country and a
  city), kept on purpose for page 8's "same word" lesson (corpus.TWO_MEANINGS).
- language: given where the constitution or law makes one language official at national level
  (languages official only in a region, such as Catalan in Spain or Sámi in northern Norway, do not
  count), or, where no law names an official language, the one national language in practice
  (English in the United Kingdom and Australia, Japanese in Japan, Spanish in Argentina). Skipped
  where several languages are official at national level, and where the law names no official
  language but several national ones (Mexico: Spanish and 68 indigenous languages, all national
  languages by the 2003 law).
- currency: the unit's everyday name without the country's adjective ("dollar" for Canada), the
  word a student would say. Skipped where a second unit with another name is legal tender beside it
  (Lesotho and Namibia: the South African rand; Bhutan: the Indian rupee; Panama: the US dollar
  beside the balboa; Zimbabwe: the US dollar beside the ZiG) or was within the last two years
  (Bulgaria: the lev until 2026; El Salvador: bitcoin until 2025), and where the English spelling is
  not settled (Uzbekistan: som, so'm, sum). A second unit with the same name (the Singapore dollar
  in Brunei, the US dollar in Liberia) leaves the answer one word; foreign money used without
  being legal tender (the US dollar in Cambodia) does not count.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

CONTINENTS = {
    "Africa": "아프리카", "Asia": "아시아", "Europe": "유럽", "North America": "북아메리카",
    "South America": "남아메리카", "Oceania": "오세아니아",
}

LANGUAGES = {
    "Albanian": "알바니아어", "Arabic": "아랍어", "Armenian": "아르메니아어", "Azerbaijani": "아제르바이잔어",
    "Bengali": "벵골어", "Bulgarian": "불가리아어", "Burmese": "미얀마어", "Catalan": "카탈루냐어",
    "Chinese": "중국어", "Croatian": "크로아티아어", "Czech": "체코어", "Danish": "덴마크어",
    "Dhivehi": "디베히어", "Dutch": "네덜란드어", "Dzongkha": "종카어", "English": "영어",
    "Estonian": "에스토니아어", "French": "프랑스어", "Georgian": "조지아어", "German": "독일어",
    "Greek": "그리스어", "Hungarian": "헝가리어", "Icelandic": "아이슬란드어", "Indonesian": "인도네시아어",
    "Italian": "이탈리아어", "Japanese": "일본어", "Khmer": "크메르어", "Korean": "한국어", "Lao": "라오어",
    "Latvian": "라트비아어", "Lithuanian": "리투아니아어", "Malay": "말레이어", "Mongolian": "몽골어",
    "Montenegrin": "몬테네그로어", "Nepali": "네팔어", "Norwegian": "노르웨이어", "Persian": "페르시아어",
    "Polish": "폴란드어", "Portuguese": "포르투갈어", "Romanian": "루마니아어", "Russian": "러시아어",
    "Serbian": "세르비아어", "Slovak": "슬로바키아어", "Slovene": "슬로베니아어", "Spanish": "스페인어",
    "Swedish": "스웨덴어", "Tajik": "타지크어", "Thai": "태국어", "Turkish": "튀르키예어", "Turkmen": "투르크멘어",
    "Ukrainian": "우크라이나어", "Uzbek": "우즈베크어", "Vietnamese": "베트남어",
}

CURRENCIES = {
    "afghani": "아프가니", "ariary": "아리아리", "baht": "바트", "birr": "비르", "bolívar": "볼리바르",
    "boliviano": "볼리비아노", "cedi": "세디", "colón": "콜론", "córdoba": "코르도바", "dalasi": "달라시",
    "denar": "데나르", "dinar": "디나르", "dirham": "디르함", "dobra": "도브라", "dollar": "달러", "dong": "동",
    "dram": "드람", "escudo": "에스쿠도", "euro": "유로", "forint": "포린트", "franc": "프랑", "gourde": "구르드",
    "guaraní": "과라니", "hryvnia": "흐리우냐", "kina": "키나", "kip": "킵", "koruna": "코루나",
    "krona": "크로나", "króna": "크로나", "krone": "크로네", "kwacha": "콰차", "kwanza": "콴자", "kyat": "짯",
    "lari": "라리", "lek": "레크", "lempira": "렘피라", "leone": "레온", "leu": "레우", "lira": "리라",
    "manat": "마나트", "mark": "마르크", "metical": "메티칼", "naira": "나이라", "nakfa": "낙파",
    "ouguiya": "우기야", "peso": "페소", "pound": "파운드", "pula": "풀라",
    "quetzal": "케찰", "rand": "랜드", "real": "헤알", "rial": "리알", "riel": "리엘", "ringgit": "링깃",
    "riyal": "리얄", "ruble": "루블", "rufiyaa": "루피야", "rupee": "루피", "rupiah": "루피아",
    "shekel": "셰켈", "shilling": "실링", "sol": "솔", "som": "솜", "somoni": "소모니", "taka": "타카",
    "tala": "탈라", "tenge": "텡게", "tugrik": "투그릭", "vatu": "바투", "won": "원", "yen": "엔",
    "yuan": "위안", "zloty": "즐로티",
}


class Country(NamedTuple):
    en: str
    ko: str
    continent: str
    capital: str | None
    capital_ko: str | None
    language: str | None
    currency: str | None


def _read(path: Path) -> tuple[Country, ...]:
    """The rows of a table of countries: a header naming Country's fields, then one line a country."""
    header, *rows = (line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#"))
    if tuple(header.split("\t")) != Country._fields:
        raise ValueError(f"{path.name}: the header must be {Country._fields}")
    return tuple(Country(*(None if field == "-" else field for field in row.split("\t"))) for row in rows)


# The rows are data, kept beside this file; their order is the corpus's.
COUNTRIES: tuple[Country, ...] = _read(Path(__file__).with_name("countries.tsv"))

# English names that take "the": "the capital of the Netherlands".
ARTICLE = frozenset({
    "Netherlands", "United Kingdom", "Czech Republic", "Philippines", "Maldives", "United Arab Emirates",
    "Gambia", "Central African Republic", "Republic of the Congo", "Democratic Republic of the Congo",
    "Comoros", "Seychelles", "United States", "Dominican Republic", "Bahamas", "Solomon Islands",
})


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
