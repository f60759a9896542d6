"""People and places for the English suite generator: names, cities by tier, occupations, families.

Only plain data. Everything is a tuple so the generator's seeded choices stay stable: never build these
from a set or a dict whose order could change.
"""

from __future__ import annotations

#: City -> (tier, longitude, latitude). Tiers follow paper section C.2.1: first-tier, emerging first-tier,
#: lower-tier. Names are single capitalised words, so "a hotel in <City>" parses as a destination.
CITIES: tuple[tuple[str, str, float, float], ...] = (
    ("Beijing", "first-tier", 116.4074, 39.9042),
    ("Shanghai", "first-tier", 121.4737, 31.2304),
    ("Guangzhou", "first-tier", 113.2644, 23.1291),
    ("Shenzhen", "first-tier", 114.0579, 22.5431),
    ("Chengdu", "emerging first-tier", 104.0665, 30.5723),
    ("Hangzhou", "emerging first-tier", 120.1551, 30.2741),
    ("Chongqing", "emerging first-tier", 106.5516, 29.5630),
    ("Wuhan", "emerging first-tier", 114.3055, 30.5928),
    ("Xiamen", "emerging first-tier", 118.0894, 24.4798),
    ("Suzhou", "emerging first-tier", 120.5853, 31.2989),
    ("Tianjin", "emerging first-tier", 117.2010, 39.0842),
    ("Nanjing", "emerging first-tier", 118.7969, 32.0603),
    ("Changsha", "emerging first-tier", 112.9388, 28.2282),
    ("Zhengzhou", "emerging first-tier", 113.6254, 34.7466),
    ("Dongguan", "emerging first-tier", 113.7518, 23.0205),
    ("Qingdao", "emerging first-tier", 120.3826, 36.0671),
    ("Shenyang", "emerging first-tier", 123.4315, 41.8057),
    ("Ningbo", "emerging first-tier", 121.5440, 29.8683),
    ("Kunming", "emerging first-tier", 102.8329, 24.8801),
    ("Mianyang", "lower-tier", 104.6796, 31.4675),
    ("Yichang", "lower-tier", 111.2865, 30.6919),
    ("Luoyang", "lower-tier", 112.4540, 34.6197),
    ("Ganzhou", "lower-tier", 114.9350, 25.8310),
    ("Zunyi", "lower-tier", 106.9274, 27.7256),
    ("Dali", "lower-tier", 100.2676, 25.6065),
    ("Jiujiang", "lower-tier", 116.0019, 29.7051),
    ("Weifang", "lower-tier", 119.1619, 36.7069),
    ("Yangzhou", "lower-tier", 119.4129, 32.3942),
    ("Guilin", "lower-tier", 110.2900, 25.2736),
    ("Shaoxing", "lower-tier", 120.5800, 30.0300),
    ("Xiangyang", "lower-tier", 112.1224, 32.0090),
)
TIERS = ("first-tier", "emerging first-tier", "lower-tier")

FAMILY_NAMES = (
    "Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma", "Zhu", "Hu",
    "Guo", "He", "Lin", "Gao", "Luo", "Zheng", "Liang", "Xie", "Song", "Tang", "Han", "Feng", "Deng", "Cao", "Peng",
)
FEMALE_NAMES = (
    "Mei", "Jing", "Yan", "Xin", "Ting", "Fang", "Li", "Qian", "Yue", "Hui", "Lan", "Xiao", "Ying", "Na", "Wen",
    "Shan", "Yun", "Lu", "Jia", "Min", "Rui", "Yi", "Zhen", "Qing", "Xue",
)
MALE_NAMES = (
    "Wei", "Hao", "Jun", "Lei", "Tao", "Peng", "Bo", "Chao", "Gang", "Ming", "Jie", "Yong", "Qiang", "Kai", "Feng",
    "Long", "Bin", "Hui", "Xiang", "Yu", "Zhi", "Cheng", "Dong", "Hang", "Rui",
)

#: Occupation by collar (paper C.2.1: white, blue, gray collar).
OCCUPATIONS: dict[str, tuple[str, ...]] = {
    "white-collar": (
        "software engineer", "product manager", "accountant", "UX designer", "marketing specialist", "lawyer",
        "high school teacher", "civil servant", "data analyst", "HR specialist", "bank teller", "architect",
        "magazine editor", "management consultant", "pharmacist", "research scientist", "financial analyst",
        "project manager", "game designer", "university lecturer",
    ),
    "blue-collar": (
        "factory technician", "electrician", "warehouse supervisor", "truck driver", "welder",
        "assembly line worker", "construction foreman", "auto mechanic", "plumber", "port crane operator",
    ),
    "gray-collar": (
        "nurse", "chef", "delivery rider", "hairdresser", "sales associate", "fitness coach", "barista",
        "ride-hailing driver", "beautician", "property manager", "photographer", "livestream host",
        "dental hygienist", "flight attendant",
    ),
}
RETIRED = ("retired teacher", "retired engineer", "retired accountant", "retired nurse")
COLLARS = ("white-collar", "blue-collar", "gray-collar")

EDUCATION = ("high school", "vocational college", "bachelor's degree", "master's degree", "PhD")

#: Family structures (paper C.2.1: singles, couples, families with one child or several children).
FAMILIES = ("single", "couple", "single-child family", "multi-child family")

STREETS = (
    "Renmin Road", "Jiefang Road", "Zhongshan Road", "Huaihai Road", "Nanjing Road", "Yan'an Road", "Wenhua Road",
    "Xinhua Road", "Heping Street", "Changjiang Road", "Jianshe Road", "Chaoyang Road", "Binjiang Avenue",
    "Century Avenue", "Guangming Road", "Dongfeng Road", "Xingfu Street", "Qingnian Road", "Hongqi Road",
    "Kaifa Avenue",
)
ESTATES = (
    "Garden", "Court", "Residences", "Park View", "Green Villa", "Riverside", "Harmony Estate", "Sunshine Court",
    "Lakeside Homes", "Maple Estate",
)
OFFICES = (
    "Tech Plaza", "Financial Centre", "Science Park", "Business Tower", "Innovation Hub", "Trade Centre",
    "Industrial Park", "Medical Centre", "Creative Park", "Logistics Park",
)
DISTRICTS = ("Central", "East", "West", "North", "South", "New", "Old Town", "High-tech", "Riverside", "Lakeside")

RELATIONS_ANY = ("colleague", "friend", "boss", "neighbour", "roommate")
RELATIONS_PARENT = ("son", "daughter")
RELATIONS_ELDER = ("mother", "father")

PETS = ("a cat named Mochi", "a cat named Tofu", "a dog named Lucky", "a dog named Doudou", "a cat named Orange")
ALLERGIES = ("peanuts", "shrimp", "sesame")
NAME_PARTS = (
    "Sunrise", "Evergreen", "Golden", "Silver", "Jade", "Pearl", "Oriental", "Century", "Harmony", "Prosperity",
    "Spring", "Autumn", "Lotus", "Peony", "Phoenix", "Unity",
)


def title_case(text: str) -> str:
    """Capitalise each word, leaving acronyms (``KTV``) and words with digits (``3D``, ``60-min``) alone."""
    return " ".join(w if w.isupper() or any(c.isdigit() for c in w) else w[:1].upper() + w[1:] for w in text.split())
