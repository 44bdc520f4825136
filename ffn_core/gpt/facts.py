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
  city), kept on purpose for page 7's "same word" lesson (corpus.TWO_MEANINGS).
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


C = Country
_ = None
COUNTRIES: tuple[Country, ...] = (
    # Europe
    C("France", "프랑스", "Europe", "Paris", "파리", "French", "euro"),
    C("Germany", "독일", "Europe", "Berlin", "베를린", "German", "euro"),
    C("Spain", "스페인", "Europe", "Madrid", "마드리드", "Spanish", "euro"),
    C("Italy", "이탈리아", "Europe", "Rome", "로마", "Italian", "euro"),
    C("Portugal", "포르투갈", "Europe", "Lisbon", "리스본", "Portuguese", "euro"),
    C("Netherlands", "네덜란드", "Europe", _, _, "Dutch", "euro"),
    C("Belgium", "벨기에", "Europe", "Brussels", "브뤼셀", _, "euro"),
    C("Switzerland", "스위스", "Europe", "Bern", "베른", _, "franc"),
    C("Austria", "오스트리아", "Europe", "Vienna", "빈", "German", "euro"),
    C("United Kingdom", "영국", "Europe", "London", "런던", "English", "pound"),
    C("Ireland", "아일랜드", "Europe", "Dublin", "더블린", _, "euro"),
    C("Poland", "폴란드", "Europe", "Warsaw", "바르샤바", "Polish", "zloty"),
    C("Czech Republic", "체코", "Europe", "Prague", "프라하", "Czech", "koruna"),
    C("Slovakia", "슬로바키아", "Europe", "Bratislava", "브라티슬라바", "Slovak", "euro"),
    C("Hungary", "헝가리", "Europe", "Budapest", "부다페스트", "Hungarian", "forint"),
    C("Romania", "루마니아", "Europe", "Bucharest", "부쿠레슈티", "Romanian", "leu"),
    C("Bulgaria", "불가리아", "Europe", "Sofia", "소피아", "Bulgarian", _),
    C("Greece", "그리스", "Europe", "Athens", "아테네", "Greek", "euro"),
    C("Sweden", "스웨덴", "Europe", "Stockholm", "스톡홀름", "Swedish", "krona"),
    C("Norway", "노르웨이", "Europe", "Oslo", "오슬로", "Norwegian", "krone"),
    C("Denmark", "덴마크", "Europe", "Copenhagen", "코펜하겐", "Danish", "krone"),
    C("Finland", "핀란드", "Europe", "Helsinki", "헬싱키", _, "euro"),
    C("Iceland", "아이슬란드", "Europe", "Reykjavík", "레이캬비크", "Icelandic", "króna"),
    C("Russia", "러시아", "Europe", "Moscow", "모스크바", "Russian", "ruble"),
    C("Ukraine", "우크라이나", "Europe", "Kyiv", "키이우", "Ukrainian", "hryvnia"),
    C("Belarus", "벨라루스", "Europe", "Minsk", "민스크", _, "ruble"),
    C("Lithuania", "리투아니아", "Europe", "Vilnius", "빌뉴스", "Lithuanian", "euro"),
    C("Latvia", "라트비아", "Europe", "Riga", "리가", "Latvian", "euro"),
    C("Estonia", "에스토니아", "Europe", "Tallinn", "탈린", "Estonian", "euro"),
    C("Serbia", "세르비아", "Europe", "Belgrade", "베오그라드", "Serbian", "dinar"),
    C("Croatia", "크로아티아", "Europe", "Zagreb", "자그레브", "Croatian", "euro"),
    C("Slovenia", "슬로베니아", "Europe", "Ljubljana", "류블랴나", "Slovene", "euro"),
    C("Bosnia and Herzegovina", "보스니아헤르체고비나", "Europe", "Sarajevo", "사라예보", _, "mark"),
    C("Montenegro", "몬테네그로", "Europe", "Podgorica", "포드고리차", "Montenegrin", "euro"),
    C("North Macedonia", "북마케도니아", "Europe", "Skopje", "스코페", _, "denar"),
    C("Albania", "알바니아", "Europe", "Tirana", "티라나", "Albanian", "lek"),
    C("Moldova", "몰도바", "Europe", "Chișinău", "키시너우", "Romanian", "leu"),
    C("Malta", "몰타", "Europe", "Valletta", "발레타", _, "euro"),
    C("Andorra", "안도라", "Europe", "Andorra la Vella", "안도라라베야", "Catalan", "euro"),
    C("Liechtenstein", "리히텐슈타인", "Europe", "Vaduz", "파두츠", "German", "franc"),
    C("Monaco", "모나코", "Europe", _, _, "French", "euro"),
    C("San Marino", "산마리노", "Europe", _, _, "Italian", "euro"),
    C("Luxembourg", "룩셈부르크", "Europe", "Luxembourg", "룩셈부르크", _, "euro"),
    # Asia
    C("China", "중국", "Asia", "Beijing", "베이징", "Chinese", "yuan"),
    C("Japan", "일본", "Asia", "Tokyo", "도쿄", "Japanese", "yen"),
    C("South Korea", "대한민국", "Asia", "Seoul", "서울", "Korean", "won"),
    C("North Korea", "북한", "Asia", "Pyongyang", "평양", "Korean", "won"),
    C("Mongolia", "몽골", "Asia", "Ulaanbaatar", "울란바토르", "Mongolian", "tugrik"),
    C("Vietnam", "베트남", "Asia", "Hanoi", "하노이", "Vietnamese", "dong"),
    C("Thailand", "태국", "Asia", "Bangkok", "방콕", "Thai", "baht"),
    C("Laos", "라오스", "Asia", "Vientiane", "비엔티안", "Lao", "kip"),
    C("Cambodia", "캄보디아", "Asia", "Phnom Penh", "프놈펜", "Khmer", "riel"),
    C("Myanmar", "미얀마", "Asia", "Naypyidaw", "네피도", "Burmese", "kyat"),
    C("Malaysia", "말레이시아", "Asia", _, _, "Malay", "ringgit"),
    C("Indonesia", "인도네시아", "Asia", _, _, "Indonesian", "rupiah"),
    C("Philippines", "필리핀", "Asia", "Manila", "마닐라", _, "peso"),
    C("Singapore", "싱가포르", "Asia", _, _, _, "dollar"),
    C("Brunei", "브루나이", "Asia", "Bandar Seri Begawan", "반다르스리브가완", "Malay", "dollar"),
    C("East Timor", "동티모르", "Asia", "Dili", "딜리", _, "dollar"),
    C("India", "인도", "Asia", "New Delhi", "뉴델리", _, "rupee"),
    C("Pakistan", "파키스탄", "Asia", "Islamabad", "이슬라마바드", _, "rupee"),
    C("Bangladesh", "방글라데시", "Asia", "Dhaka", "다카", "Bengali", "taka"),
    C("Sri Lanka", "스리랑카", "Asia", _, _, _, "rupee"),
    C("Nepal", "네팔", "Asia", "Kathmandu", "카트만두", "Nepali", "rupee"),
    C("Bhutan", "부탄", "Asia", "Thimphu", "팀푸", "Dzongkha", _),
    C("Maldives", "몰디브", "Asia", "Malé", "말레", "Dhivehi", "rufiyaa"),
    C("Afghanistan", "아프가니스탄", "Asia", "Kabul", "카불", _, "afghani"),
    C("Iran", "이란", "Asia", "Tehran", "테헤란", "Persian", "rial"),
    C("Iraq", "이라크", "Asia", "Baghdad", "바그다드", _, "dinar"),
    C("Syria", "시리아", "Asia", "Damascus", "다마스쿠스", "Arabic", "pound"),
    C("Lebanon", "레바논", "Asia", "Beirut", "베이루트", "Arabic", "pound"),
    C("Jordan", "요르단", "Asia", "Amman", "암만", "Arabic", "dinar"),
    C("Israel", "이스라엘", "Asia", _, _, _, "shekel"),
    C("Saudi Arabia", "사우디아라비아", "Asia", "Riyadh", "리야드", "Arabic", "riyal"),
    C("United Arab Emirates", "아랍에미리트", "Asia", "Abu Dhabi", "아부다비", "Arabic", "dirham"),
    C("Qatar", "카타르", "Asia", "Doha", "도하", "Arabic", "riyal"),
    C("Kuwait", "쿠웨이트", "Asia", "Kuwait City", "쿠웨이트시티", "Arabic", "dinar"),
    C("Bahrain", "바레인", "Asia", "Manama", "마나마", "Arabic", "dinar"),
    C("Oman", "오만", "Asia", "Muscat", "무스카트", "Arabic", "rial"),
    C("Yemen", "예멘", "Asia", _, _, "Arabic", "rial"),
    C("Turkey", "튀르키예", "Asia", "Ankara", "앙카라", "Turkish", "lira"),
    C("Georgia", "조지아", "Asia", "Tbilisi", "트빌리시", "Georgian", "lari"),
    C("Armenia", "아르메니아", "Asia", "Yerevan", "예레반", "Armenian", "dram"),
    C("Azerbaijan", "아제르바이잔", "Asia", "Baku", "바쿠", "Azerbaijani", "manat"),
    C("Kazakhstan", "카자흐스탄", "Asia", "Astana", "아스타나", _, "tenge"),
    C("Uzbekistan", "우즈베키스탄", "Asia", "Tashkent", "타슈켄트", "Uzbek", _),
    C("Turkmenistan", "투르크메니스탄", "Asia", "Ashgabat", "아시가바트", "Turkmen", "manat"),
    C("Kyrgyzstan", "키르기즈공화국", "Asia", "Bishkek", "비슈케크", _, "som"),
    C("Tajikistan", "타지키스탄", "Asia", "Dushanbe", "두샨베", "Tajik", "somoni"),
    # Africa
    C("Egypt", "이집트", "Africa", _, _, "Arabic", "pound"),
    C("Libya", "리비아", "Africa", "Tripoli", "트리폴리", "Arabic", "dinar"),
    C("Tunisia", "튀니지", "Africa", "Tunis", "튀니스", "Arabic", "dinar"),
    C("Algeria", "알제리", "Africa", "Algiers", "알제", _, "dinar"),
    C("Morocco", "모로코", "Africa", "Rabat", "라바트", _, "dirham"),
    C("Sudan", "수단", "Africa", _, _, _, "pound"),
    C("South Sudan", "남수단", "Africa", "Juba", "주바", "English", "pound"),
    C("Mauritania", "모리타니", "Africa", "Nouakchott", "누악쇼트", "Arabic", "ouguiya"),
    C("Senegal", "세네갈", "Africa", "Dakar", "다카르", "French", "franc"),
    C("Mali", "말리", "Africa", "Bamako", "바마코", _, "franc"),
    C("Burkina Faso", "부르키나파소", "Africa", "Ouagadougou", "와가두구", _, "franc"),
    C("Niger", "니제르", "Africa", "Niamey", "니아메", _, "franc"),
    C("Côte d'Ivoire", "코트디부아르", "Africa", _, _, "French", "franc"),
    C("Guinea", "기니", "Africa", "Conakry", "코나크리", "French", "franc"),
    C("Guinea-Bissau", "기니비사우", "Africa", "Bissau", "비사우", "Portuguese", "franc"),
    C("Togo", "토고", "Africa", "Lomé", "로메", "French", "franc"),
    C("Benin", "베냉", "Africa", _, _, "French", "franc"),
    C("Ghana", "가나", "Africa", "Accra", "아크라", "English", "cedi"),
    C("Nigeria", "나이지리아", "Africa", "Abuja", "아부자", "English", "naira"),
    C("Liberia", "라이베리아", "Africa", "Monrovia", "몬로비아", "English", "dollar"),
    C("Sierra Leone", "시에라리온", "Africa", "Freetown", "프리타운", "English", "leone"),
    C("Gambia", "감비아", "Africa", "Banjul", "반줄", "English", "dalasi"),
    C("Cape Verde", "카보베르데", "Africa", "Praia", "프라이아", "Portuguese", "escudo"),
    C("Cameroon", "카메룬", "Africa", "Yaoundé", "야운데", _, "franc"),
    C("Chad", "차드", "Africa", "N'Djamena", "은자메나", _, "franc"),
    C("Central African Republic", "중앙아프리카공화국", "Africa", "Bangui", "방기", _, "franc"),
    C("Gabon", "가봉", "Africa", "Libreville", "리브르빌", "French", "franc"),
    C("Republic of the Congo", "콩고공화국", "Africa", "Brazzaville", "브라자빌", "French", "franc"),
    C("Democratic Republic of the Congo", "콩고민주공화국", "Africa", "Kinshasa", "킨샤사", "French", "franc"),
    C("Equatorial Guinea", "적도기니", "Africa", _, _, _, "franc"),
    C("Ethiopia", "에티오피아", "Africa", "Addis Ababa", "아디스아바바", _, "birr"),
    C("Eritrea", "에리트레아", "Africa", "Asmara", "아스마라", _, "nakfa"),
    C("Somalia", "소말리아", "Africa", "Mogadishu", "모가디슈", _, "shilling"),
    C("Djibouti", "지부티", "Africa", _, _, _, "franc"),
    C("Kenya", "케냐", "Africa", "Nairobi", "나이로비", _, "shilling"),
    C("Uganda", "우간다", "Africa", "Kampala", "캄팔라", _, "shilling"),
    C("Tanzania", "탄자니아", "Africa", "Dodoma", "도도마", _, "shilling"),
    C("Rwanda", "르완다", "Africa", "Kigali", "키갈리", _, "franc"),
    C("Burundi", "부룬디", "Africa", _, _, _, "franc"),
    C("Angola", "앙골라", "Africa", "Luanda", "루안다", "Portuguese", "kwanza"),
    C("Mozambique", "모잠비크", "Africa", "Maputo", "마푸투", "Portuguese", "metical"),
    C("Zambia", "잠비아", "Africa", "Lusaka", "루사카", "English", "kwacha"),
    C("Malawi", "말라위", "Africa", "Lilongwe", "릴롱궤", "English", "kwacha"),
    C("Zimbabwe", "짐바브웨", "Africa", "Harare", "하라레", _, _),
    C("Botswana", "보츠와나", "Africa", "Gaborone", "가보로네", "English", "pula"),
    C("Namibia", "나미비아", "Africa", "Windhoek", "빈트후크", "English", _),
    C("South Africa", "남아프리카공화국", "Africa", _, _, _, "rand"),
    C("Lesotho", "레소토", "Africa", "Maseru", "마세루", _, _),
    C("Madagascar", "마다가스카르", "Africa", "Antananarivo", "안타나나리보", _, "ariary"),
    C("Mauritius", "모리셔스", "Africa", "Port Louis", "포트루이스", _, "rupee"),
    C("Seychelles", "세이셸", "Africa", "Victoria", "빅토리아", _, "rupee"),
    C("Comoros", "코모로", "Africa", "Moroni", "모로니", _, "franc"),
    C("São Tomé and Príncipe", "상투메프린시페", "Africa", "São Tomé", "상투메", "Portuguese", "dobra"),
    # North America (Central America and the Caribbean included)
    C("United States", "미국", "North America", "Washington", "워싱턴", "English", "dollar"),
    C("Canada", "캐나다", "North America", "Ottawa", "오타와", _, "dollar"),
    C("Mexico", "멕시코", "North America", "Mexico City", "멕시코시티", _, "peso"),
    C("Guatemala", "과테말라", "North America", "Guatemala City", "과테말라시티", "Spanish", "quetzal"),
    C("Honduras", "온두라스", "North America", "Tegucigalpa", "테구시갈파", "Spanish", "lempira"),
    C("El Salvador", "엘살바도르", "North America", "San Salvador", "산살바도르", "Spanish", _),
    C("Nicaragua", "니카라과", "North America", "Managua", "마나과", "Spanish", "córdoba"),
    C("Costa Rica", "코스타리카", "North America", "San José", "산호세", "Spanish", "colón"),
    C("Panama", "파나마", "North America", "Panama City", "파나마시티", "Spanish", _),
    C("Cuba", "쿠바", "North America", "Havana", "아바나", "Spanish", "peso"),
    C("Dominican Republic", "도미니카공화국", "North America", "Santo Domingo", "산토도밍고", "Spanish", "peso"),
    C("Haiti", "아이티", "North America", "Port-au-Prince", "포르토프랭스", _, "gourde"),
    C("Jamaica", "자메이카", "North America", "Kingston", "킹스턴", "English", "dollar"),
    C("Bahamas", "바하마", "North America", "Nassau", "나소", "English", "dollar"),
    C("Trinidad and Tobago", "트리니다드토바고", "North America", "Port of Spain", "포트오브스페인", "English", "dollar"),
    C("Barbados", "바베이도스", "North America", "Bridgetown", "브리지타운", "English", "dollar"),
    C("Belize", "벨리즈", "North America", "Belmopan", "벨모판", "English", "dollar"),
    # South America
    C("Brazil", "브라질", "South America", "Brasília", "브라질리아", "Portuguese", "real"),
    C("Argentina", "아르헨티나", "South America", "Buenos Aires", "부에노스아이레스", "Spanish", "peso"),
    C("Chile", "칠레", "South America", "Santiago", "산티아고", "Spanish", "peso"),
    C("Peru", "페루", "South America", "Lima", "리마", _, "sol"),
    C("Colombia", "콜롬비아", "South America", "Bogotá", "보고타", "Spanish", "peso"),
    C("Venezuela", "베네수엘라", "South America", "Caracas", "카라카스", "Spanish", "bolívar"),
    C("Ecuador", "에콰도르", "South America", "Quito", "키토", _, "dollar"),
    C("Bolivia", "볼리비아", "South America", _, _, _, "boliviano"),
    C("Paraguay", "파라과이", "South America", "Asunción", "아순시온", _, "guaraní"),
    C("Uruguay", "우루과이", "South America", "Montevideo", "몬테비데오", "Spanish", "peso"),
    C("Guyana", "가이아나", "South America", "Georgetown", "조지타운", "English", "dollar"),
    C("Suriname", "수리남", "South America", "Paramaribo", "파라마리보", "Dutch", "dollar"),
    # Oceania
    C("Australia", "호주", "Oceania", "Canberra", "캔버라", "English", "dollar"),
    C("New Zealand", "뉴질랜드", "Oceania", "Wellington", "웰링턴", _, "dollar"),
    C("Papua New Guinea", "파푸아뉴기니", "Oceania", "Port Moresby", "포트모르즈비", _, "kina"),
    C("Fiji", "피지", "Oceania", "Suva", "수바", _, "dollar"),
    C("Samoa", "사모아", "Oceania", "Apia", "아피아", _, "tala"),
    C("Vanuatu", "바누아투", "Oceania", "Port Vila", "포트빌라", _, "vatu"),
    C("Solomon Islands", "솔로몬제도", "Oceania", "Honiara", "호니아라", "English", "dollar"),
)
del C, _

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
