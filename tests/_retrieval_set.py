"""A small labelled retrieval set in English and Chinese, written for this project.

Each language has one user's history split into 16 chunks (rendered like the RAG memory renders
interaction records, one topic per chunk, all about food, shopping, travel and services so that they share
vocabulary) and 24 vague requests in the style of VitaBench instructions, each labelled with the chunk
that should be retrieved first. Most requests name no word of their chunk ("we're running low on food
for Mimi" must find the cat-food orders), so the set measures meaning, not string overlap.

Used by ``benchmarks/embedding_models.py`` to choose the default local model and by the tests to
check that the chosen model retrieves sensibly in both languages (test data: the plugin never reads it).
"""

from __future__ import annotations

from typing import Any

#: ``{language: {topic: chunk text}}``.
CHUNKS: dict[str, dict[str, str]] = {
    "en": {
        "coffee": (
            '- [2025-01-08] [order] {"merchant_name": "Brew Lab", "items": [{"product_name": "Oat Milk Latte", '
            '"price": 28}], "tags": ["coffee", "oat milk", "less sugar"]}\n'
            "- [2025-01-08] [dialogue] user: Oat milk latte again please, half sugar, and make it hot. | "
            "assistant: Done, it is on its way to your office.\n"
            '- [2025-01-20] [review] {"rating": 5, "text": "Strong espresso, the oat milk does not curdle."}'
        ),
        "dessert": (
            '- [2025-02-14] [order] {"merchant_name": "Sweet Harbour", "items": [{"product_name": "Mango Sago", '
            '"price": 26}, {"product_name": "Matcha Cheesecake", "price": 32}], "tags": ["dessert", "low sugar"]}\n'
            "- [2025-02-14] [dialogue] user: Anything with cream is fine but keep it low in sugar, and no "
            "durian flavour. | assistant: Noted, low-sugar desserts without durian."
        ),
        "hotpot": (
            '- [2025-01-25] [order] {"merchant_name": "Chongqing Old Stove", "items": [{"product_name": '
            '"Beef Tallow Spicy Broth", "price": 88}], "tags": ["hotpot", "extra spicy", "group meal"]}\n'
            "- [2025-01-25] [dialogue] user: Four of us tonight, the spicier the better, and add tripe and "
            "duck blood. | assistant: A numbing spicy broth for four with tripe and duck blood."
        ),
        "hotel": (
            '- [2024-12-02] [stay] {"hotel": "Lakeview Atour Hangzhou", "room": "King room, 18th floor", '
            '"nights": 2, "price_per_night": 520}\n'
            "- [2024-12-04] [dialogue] user: The room was quiet because it was high up, I want a high floor "
            "every time, and breakfast must be included. | assistant: I will remember: high floor, breakfast."
        ),
        "train": (
            '- [2024-11-18] [booking] {"type": "high-speed rail", "from": "Shanghai Hongqiao", '
            '"to": "Beijing South", "seat": "second class, window", "departure": "07:00"}\n'
            "- [2024-11-18] [dialogue] user: Always a window seat, and I prefer the early morning trains so "
            "I arrive before lunch. | assistant: Window seat on the 7 am G-train booked."
        ),
        "flowers": (
            '- [2024-05-11] [order] {"merchant_name": "Petal Post", "items": [{"product_name": "Pink Lily '
            'Bouquet", "price": 199}], "recipient": "mother", "card": "Happy Mother\'s Day"}\n'
            "- [2024-05-11] [dialogue] user: Mom loves lilies, never send her roses, she says they are too "
            "showy. | assistant: A pink lily bouquet with a card is booked for Sunday."
        ),
        "fruit": (
            '- [2025-02-01] [order] {"merchant_name": "Fresh Orchard", "items": [{"product_name": "Chilean '
            'Cherries 1kg", "price": 89}, {"product_name": "Sunshine Rose Grapes", "price": 45}]}\n'
            "- [2025-02-01] [dialogue] user: No durian or jackfruit please, the smell makes me sick; cherries "
            "and grapes are my favourites. | assistant: Cherries and grapes it is."
        ),
        "pharmacy": (
            '- [2025-01-12] [order] {"merchant_name": "Health First Pharmacy", "items": [{"product_name": '
            '"Ibuprofen 200mg", "price": 18}, {"product_name": "Throat Lozenges", "price": 12}]}\n'
            "- [2025-01-12] [dialogue] user: I have a sore throat and a fever, and I am allergic to penicillin "
            "so nothing with that. | assistant: Ibuprofen and lozenges, no penicillin."
        ),
        "haircut": (
            '- [2025-01-30] [appointment] {"shop": "Studio Nine Salon", "service": "wash and cut", '
            '"stylist": "Anna", "time": "19:30"}\n'
            "- [2025-01-30] [dialogue] user: Please book Anna again, she is the only stylist who gets my "
            "fringe right, and evenings after work suit me. | assistant: Anna at 7:30 pm is confirmed."
        ),
        "cinema": (
            '- [2025-02-08] [booking] {"cinema": "Wanda IMAX", "film": "Space Odyssey", "seats": "row 12, '
            'seats 8-9", "show": "20:15"}\n'
            "- [2025-02-08] [dialogue] user: Only IMAX screens, and get seats in the back rows in the middle. "
            "| assistant: Two seats in row 12 at the IMAX are booked."
        ),
        "breakfast": (
            '- [2025-02-10] [order] {"merchant_name": "Morning Bowl", "items": [{"product_name": "Preserved '
            'Egg Congee", "price": 12}, {"product_name": "Soy Milk", "price": 5}, {"product_name": "Steamed '
            'Pork Buns", "price": 10}]}\n'
            "- [2025-02-10] [dialogue] user: Before 8 am please, I eat at my desk. | assistant: Your congee, "
            "soy milk and buns will arrive by 7:50."
        ),
        "pet": (
            '- [2025-01-05] [order] {"merchant_name": "Paws Mart", "items": [{"product_name": "Grain-free '
            'Salmon Cat Kibble 2kg", "price": 139}, {"product_name": "Tofu Cat Litter", "price": 45}]}\n'
            "- [2025-01-05] [dialogue] user: Mimi only eats the grain-free salmon one, she throws up the "
            "chicken kibble. | assistant: Grain-free salmon kibble for Mimi, noted."
        ),
        "family_dinner": (
            '- [2024-12-21] [reservation] {"restaurant": "Jade Garden Cantonese", "party_size": 6, '
            '"room": "private room", "time": "18:00"}\n'
            "- [2024-12-21] [dialogue] user: With my parents and the kids we need a private room, high chairs "
            "and dishes that are not spicy. | assistant: A private room for six with two high chairs."
        ),
        "taxi": (
            '- [2025-01-15] [ride] {"from": "home", "to": "Pudong Airport T2", "car": "premium sedan", '
            '"departure": "05:40"}\n'
            "- [2025-01-15] [dialogue] user: For airport trips always the premium car, I have big suitcases, "
            "and a non-smoking driver. | assistant: A premium sedan at 5:40 am is on its way."
        ),
        "salad": (
            '- [2025-02-18] [order] {"merchant_name": "Green Fork", "items": [{"product_name": "Grilled '
            'Chicken Quinoa Bowl", "price": 42}], "tags": ["salad", "low carb", "high protein"]}\n'
            "- [2025-02-18] [dialogue] user: I am cutting weight for a marathon, so low carb, dressing on the "
            "side. | assistant: A quinoa bowl with the dressing on the side."
        ),
        "bakery": (
            '- [2025-02-22] [order] {"merchant_name": "Crust & Crumb", "items": [{"product_name": "Sourdough '
            'Loaf", "price": 36}, {"product_name": "Butter Croissant", "price": 14}]}\n'
            "- [2025-02-22] [dialogue] user: Their sourdough is the best bread in town, I buy a loaf every "
            "Saturday. | assistant: One sourdough loaf and a croissant ordered."
        ),
    },
    "zh": {
        "coffee": (
            '- [2025-01-08] [下单] {"商家": "布鲁实验室咖啡", "商品": [{"名称": "燕麦拿铁", "价格": 28}], '
            '"标签": ["咖啡", "燕麦奶", "少糖"]}\n'
            "- [2025-01-08] [对话] 用户: 还是燕麦拿铁，半糖，要热的。 | 助手: 好的，已经送往您的公司。\n"
            '- [2025-01-20] [评价] {"评分": 5, "内容": "浓缩很香，燕麦奶不会结块。"}'
        ),
        "dessert": (
            '- [2025-02-14] [下单] {"商家": "甜心港湾", "商品": [{"名称": "杨枝甘露", "价格": 26}, '
            '{"名称": "抹茶芝士蛋糕", "价格": 32}], "标签": ["甜品", "低糖"]}\n'
            "- [2025-02-14] [对话] 用户: 奶油的都可以，但一定要低糖，不要榴莲味的。 | 助手: 记下了，低糖、不要榴莲。"
        ),
        "hotpot": (
            '- [2025-01-25] [下单] {"商家": "重庆老灶火锅", "商品": [{"名称": "牛油麻辣锅底", "价格": 88}], '
            '"标签": ["火锅", "特辣", "多人餐"]}\n'
            "- [2025-01-25] [对话] 用户: 今晚四个人，越辣越好，加毛肚和鸭血。 | 助手: 四人份麻辣锅底，加毛肚和鸭血。"
        ),
        "hotel": (
            '- [2024-12-02] [入住] {"酒店": "杭州湖景亚朵", "房型": "大床房，18楼", "晚数": 2, "每晚价格": 520}\n'
            "- [2024-12-04] [对话] 用户: 房间在高层所以很安静，以后都要高楼层，而且必须含早餐。 "
            "| 助手: 记住了：高楼层、含早。"
        ),
        "train": (
            '- [2024-11-18] [预订] {"类型": "高铁", "出发": "上海虹桥", "到达": "北京南", "座位": "二等座靠窗", '
            '"发车": "07:00"}\n'
            "- [2024-11-18] [对话] 用户: 每次都要靠窗的座位，我喜欢早上的车次，中午前能到。 "
            "| 助手: 已订早上7点的高铁靠窗座。"
        ),
        "flowers": (
            '- [2024-05-11] [下单] {"商家": "花语速递", "商品": [{"名称": "粉色百合花束", "价格": 199}], '
            '"收件人": "妈妈", "贺卡": "母亲节快乐"}\n'
            "- [2024-05-11] [对话] 用户: 我妈喜欢百合，千万别送玫瑰，她嫌太张扬。 "
            "| 助手: 粉色百合花束加贺卡，周日送达。"
        ),
        "fruit": (
            '- [2025-02-01] [下单] {"商家": "鲜果园", "商品": [{"名称": "智利车厘子1kg", "价格": 89}, '
            '{"名称": "阳光玫瑰葡萄", "价格": 45}]}\n'
            "- [2025-02-01] [对话] 用户: 不要榴莲和菠萝蜜，味道太冲；车厘子和葡萄是我的最爱。 "
            "| 助手: 好的，车厘子和葡萄。"
        ),
        "pharmacy": (
            '- [2025-01-12] [下单] {"商家": "健康第一大药房", "商品": [{"名称": "布洛芬200mg", "价格": 18}, '
            '{"名称": "润喉片", "价格": 12}]}\n'
            "- [2025-01-12] [对话] 用户: 我嗓子疼还发烧，我对青霉素过敏，含青霉素的都不要。 "
            "| 助手: 布洛芬和润喉片，不含青霉素。"
        ),
        "haircut": (
            '- [2025-01-30] [预约] {"门店": "九号造型沙龙", "服务": "洗剪吹", "发型师": "安娜", "时间": "19:30"}\n'
            "- [2025-01-30] [对话] 用户: 还是约安娜，只有她能把我的刘海剪好，下班后的晚上最合适。 "
            "| 助手: 已确认晚上7点半安娜。"
        ),
        "cinema": (
            '- [2025-02-08] [预订] {"影院": "万达IMAX影城", "影片": "太空漫游", "座位": "12排8-9座", '
            '"场次": "20:15"}\n'
            "- [2025-02-08] [对话] 用户: 只看IMAX厅，座位要后排中间。 | 助手: 已订IMAX厅12排两个座位。"
        ),
        "breakfast": (
            '- [2025-02-10] [下单] {"商家": "早安粥铺", "商品": [{"名称": "皮蛋瘦肉粥", "价格": 12}, '
            '{"名称": "豆浆", "价格": 5}, {"名称": "鲜肉包", "价格": 10}]}\n'
            "- [2025-02-10] [对话] 用户: 八点前送到，我在工位上吃。 | 助手: 粥、豆浆和包子7点50前送达。"
        ),
        "pet": (
            '- [2025-01-05] [下单] {"商家": "爪爪宠物超市", "商品": [{"名称": "无谷三文鱼猫粮2kg", "价格": 139}, '
            '{"名称": "豆腐猫砂", "价格": 45}]}\n'
            "- [2025-01-05] [对话] 用户: 咪咪只吃无谷三文鱼那款，吃鸡肉的会吐。 | 助手: 记下了，咪咪吃无谷三文鱼猫粮。"
        ),
        "family_dinner": (
            '- [2024-12-21] [订座] {"餐厅": "翠园粤菜", "人数": 6, "位置": "包间", "时间": "18:00"}\n'
            "- [2024-12-21] [对话] 用户: 带爸妈和孩子，需要包间和儿童座椅，菜不要辣的。 "
            "| 助手: 六人包间，两个儿童座椅。"
        ),
        "taxi": (
            '- [2025-01-15] [打车] {"起点": "家", "终点": "浦东机场T2", "车型": "专车", "出发": "05:40"}\n'
            "- [2025-01-15] [对话] 用户: 去机场一律叫专车，我箱子大，司机不要抽烟的。 | 助手: 早上5:40的专车已出发。"
        ),
        "salad": (
            '- [2025-02-18] [下单] {"商家": "绿叉轻食", "商品": [{"名称": "烤鸡藜麦碗", "价格": 42}], '
            '"标签": ["沙拉", "低碳水", "高蛋白"]}\n'
            "- [2025-02-18] [对话] 用户: 我在为马拉松减重，要低碳水，酱汁分开放。 | 助手: 藜麦碗，酱汁单独装。"
        ),
        "bakery": (
            '- [2025-02-22] [下单] {"商家": "麦香面包坊", "商品": [{"名称": "酸种面包", "价格": 36}, '
            '{"名称": "黄油可颂", "价格": 14}]}\n'
            "- [2025-02-22] [对话] 用户: 他家的酸种面包是全城最好的，我每周六都买一个。 "
            "| 助手: 一个酸种面包和一个可颂已下单。"
        ),
    },
}

#: ``{language: [(request, topic of the chunk that should come first)]}``.
QUERIES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("Order me a coffee to the office.", "coffee"),
        ("I need something to wake me up before my nine o'clock meeting.", "coffee"),
        ("I want something sweet this afternoon.", "dessert"),
        ("Dinner with friends tonight, we are craving something hot and numbing.", "hotpot"),
        ("Book me somewhere to stay in Hangzhou next Tuesday.", "hotel"),
        ("Find me accommodation for my business trip.", "hotel"),
        ("Get me a ticket to Beijing for Friday.", "train"),
        ("Mother's Day is on Sunday, send something nice to my mom.", "flowers"),
        ("Order some fruit for the weekend.", "fruit"),
        ("I think I'm coming down with something, my throat hurts.", "pharmacy"),
        ("My hair is getting too long, can you set up an appointment?", "haircut"),
        ("Let's watch a movie on Saturday night.", "cinema"),
        ("I'm starving, get me something to eat before work.", "breakfast"),
        ("We're running low on food for Mimi.", "pet"),
        ("Reserve a table for the whole family this weekend.", "family_dinner"),
        ("I need a ride to the airport tomorrow morning.", "taxi"),
        ("Something light for lunch, I'm on a diet.", "salad"),
        ("Pick up a loaf of bread for me.", "bakery"),
        ("I'd like a latte delivered.", "coffee"),
        ("Get me a cake or a pastry for dessert.", "dessert"),
        ("Find a high-speed train to the capital.", "train"),
        ("I have a fever, order me some medicine.", "pharmacy"),
        ("Book a car to pick me up.", "taxi"),
        ("Get cat supplies delivered.", "pet"),
    ],
    "zh": [
        ("帮我点杯咖啡送到公司。", "coffee"),
        ("九点要开会，来点提神的。", "coffee"),
        ("下午想吃点甜的。", "dessert"),
        ("今晚和朋友聚餐，想吃点又麻又辣的。", "hotpot"),
        ("下周二帮我在杭州订个住的地方。", "hotel"),
        ("出差帮我安排一下住宿。", "hotel"),
        ("帮我买一张周五去北京的票。", "train"),
        ("周日是母亲节，给我妈送点好东西。", "flowers"),
        ("周末买点水果。", "fruit"),
        ("我好像感冒了，嗓子不舒服。", "pharmacy"),
        ("头发太长了，帮我约一下。", "haircut"),
        ("周六晚上去看场电影吧。", "cinema"),
        ("饿坏了，上班前帮我弄点吃的。", "breakfast"),
        ("咪咪的口粮快没了。", "pet"),
        ("这周末订个全家吃饭的位子。", "family_dinner"),
        ("明早帮我叫车去机场。", "taxi"),
        ("午饭来点清淡的，我在减肥。", "salad"),
        ("帮我带个面包。", "bakery"),
        ("给我送一杯拿铁。", "coffee"),
        ("来块蛋糕或者点心当甜点。", "dessert"),
        ("帮我找一趟去首都的高铁。", "train"),
        ("我发烧了，帮我买点药。", "pharmacy"),
        ("叫辆车来接我。", "taxi"),
        ("帮我买点猫咪用品。", "pet"),
    ],
}


def retrieval_check(embedder: Any, language: str, threshold: float | None = None) -> dict[str, float]:
    """hit@1, hit@3 and threshold pass rates of ``embedder`` (a :class:`~pytest_vitabench.embeddings.CachedEmbedder`)
    on the labelled set of ``language``."""
    import numpy as np

    topics = list(CHUNKS[language])
    docs = embedder.embed_documents([" ".join(CHUNKS[language][t].split("\n")) for t in topics])
    queries = QUERIES[language]
    sims = embedder.embed_queries([q for q, _ in queries]) @ docs.T
    hit1 = hit3 = kept = 0
    others: list[float] = []
    for row, (_, topic) in zip(sims, queries, strict=True):
        target = topics.index(topic)
        order = [int(i) for i in np.argsort(-row, kind="stable")]
        hit1 += order[0] == target
        hit3 += target in order[:3]
        if threshold is not None:
            kept += row[target] >= threshold
            others.extend(float(x) for i, x in enumerate(row) if i != target)
    n = len(queries)
    out = {"hit@1": hit1 / n, "hit@3": hit3 / n}
    if threshold is not None:
        out["relevant_kept"] = kept / n
        out["other_kept"] = sum(x >= threshold for x in others) / len(others)
    return out
