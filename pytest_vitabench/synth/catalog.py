"""What users can prefer and what they can ask for: preference axes (:class:`Axis`) and scenario families
(:class:`Family`). A user holds at most one current preference per axis.

Vocabulary rules that keep every decision well defined (``tests/synth`` checks them):

* a value phrase belongs to exactly one axis, and no value's words contain another axis's value as a
  whole-word sub-phrase, so evidence about one axis never reads as evidence about another;
* within an axis no value is a sub-phrase of another (``economy`` vs ``premium economy`` is avoided);
* condition words (``morning``, ``clients``, ``holiday`` ...) only appear in conditional statements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CATEGORIES = ("Food", "Shopping", "Travel", "Entertainment", "Special")
#: What serves each kind of request: (domain, the record type its target is booked as, the environment
#: container of its candidates).
KINDS: dict[str, tuple[str, str, str]] = {
    "delivery": ("delivery", "delivery", "stores"),
    "instore_product": ("instore", "instore", "shops"),
    "reservation": ("instore", "reservation", "shops"),
    "hotel": ("ota", "hotel", "hotels"),
    "train": ("ota", "train", "trains"),
    "flight": ("ota", "flight", "flights"),
    "attraction": ("ota", "attraction", "attractions"),
}


@dataclass(frozen=True)
class Axis:
    """One preference dimension.

    Attributes:
        key: Stable identifier.
        category: Preference category (paper C.2.2).
        level: ``product`` (product tags, room/seat/ticket type) or ``merchant`` (merchant tags).
        kind: ``value``, ``aversion``, ``floor`` (a rating floor), ``cap`` (a price cap: no values, so no user
            holds one; the axes stay so the published suites keep their draws) or ``conditional`` (liked
            values that depend on the situation, paper A.1.2).
        values: The phrases candidates carry (liked or avoided).
        scope: Tag suffix naming where the preference applies ("in coffee").
        rubric: Rubric template; ``{value}``, ``{noun}`` and ``{place}`` are filled in.
        say: How the user states it in a dialogue (``{value}`` filled in); first person, no negation
            before the value, so that the statement reads as a liking.
        conditions: For ``conditional`` axes, the condition term of each value, in order (the terms of one
            group of ``text.clauses.CONDITION_GROUPS``).
        tag: Tag template of a conditional value (``{value}``, ``{cond}``).
        alternative_of: An axis this one replaces: a user holds at most one of the two.
    """

    key: str
    category: str
    level: str
    kind: str
    values: tuple[str, ...]
    scope: str = ""
    rubric: str = ""
    say: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    tag: str = ""
    alternative_of: str = ""


AXES: tuple[Axis, ...] = (
    # ---- global food axes
    Axis("sugar", "Food", "product", "value", ("less sugar", "half sugar", "full sugar"), "in drinks and desserts",
         "The {noun} is made with {value}", ("{Value} please, that's how I like my drinks.", "I always ask for "
                                              "{value} in drinks and desserts.", "Remember, {value} for me.")),
    Axis("ice", "Food", "product", "value", ("light ice", "normal ice", "more ice"), "in cold drinks",
         "The {noun} comes with {value}", ("{Value} in my cold drinks, please.", "I always ask for {value}.")),
    Axis("spice", "Food", "product", "value", ("mild", "medium spicy", "very spicy"), "dishes",
         "The {noun} is {value}", ("I like my food {value}.", "{Value} dishes suit me best.", "Make it {value} "
                                                                                             "for me, please.")),
    Axis("protein", "Food", "product", "value", ("beef", "chicken", "pork", "tofu", "salmon"),
         "as the main protein", "The {noun} is made with {value}",
         ("{Value} is my favourite protein.", "I always pick the {value} option.", "Give me {value} if they "
                                                                                  "have it.")),
    Axis("herb", "Food", "product", "aversion", ("cilantro", "scallions", "celery", "garlic"), "in any dish",
         "The {noun} contains no {value}", ("No {value} for me, please.", "I can't stand {value}.",
                                            "Please avoid {value} in my food.")),
    Axis("allergen", "Special", "product", "aversion", ("peanuts", "shrimp", "sesame"), "(allergy)",
         "The {noun} contains no {value}", ("I'm allergic to {value}, so none of that.", "No {value}, I have an "
                                                                                         "allergy.")),
    Axis("flavour", "Food", "product", "value",
         ("mango", "strawberry", "passion fruit", "grapefruit", "lemon", "peach", "durian", "taro", "azuki bean",
          "matcha", "chocolate"), "flavour in drinks and desserts", "The {noun} is {value} flavoured",
         ("{Value} is my favourite flavour.", "Anything {value} flavoured makes me happy.",
          "I'll always pick {value} if it's there.")),
    Axis("cuisine", "Food", "merchant", "value", ("Cantonese", "Sichuan", "Hunan", "Japanese", "Korean", "Italian"),
         "cuisine when eating out", "The {place} serves {value} cuisine",
         ("{Value} food is my comfort food.", "I love {value} cuisine.", "Somewhere {value} would be great.")),
    Axis("ambience", "Entertainment", "merchant", "value", ("quiet", "lively"), "places",
         "The {place} is {value}", ("I prefer {value} places.", "Somewhere {value}, please.",
                                    "{Value} places suit me best.")),
    Axis("departure", "Travel", "merchant", "value", ("morning departure", "afternoon departure",
                                                      "evening departure"), "trains and flights",
         "The {place} is a {value}", ("{Value} trips work best for me.", "I always book a {value}.")),
    Axis("floor", "Shopping", "merchant", "floor", (), "", "The {place} is rated at least {value}"),
    # ---- family axes: delivery food
    Axis("milk", "Food", "product", "value", ("whole milk", "oat milk", "skim milk", "soy milk", "almond milk"),
         "in coffee", "The {noun} is made with {value}", ("{Value} in my coffee, please.", "I only take {value} "
                                                                                            "in coffee.")),
    Axis("temperature", "Food", "product", "value", ("iced", "hot"), "coffee", "The {noun} is served {value}",
         ("{Value} coffee for me.", "I always have my coffee {value}.")),
    Axis("caffeine", "Food", "product", "conditional", ("double shot", "decaf"), "coffee",
         "The {noun} is a {value}", ("{Value} before my {cond} meeting, please.", "For {cond} meetings I need a "
                                                                                   "{value}."),
         ("morning", "afternoon"), "{value} coffee before {cond} meetings"),
    Axis("topping", "Food", "product", "value", ("boba", "grass jelly", "coconut jelly", "cheese foam"),
         "in milk tea", "The {noun} comes with {value}", ("Add {value} to my milk tea.", "{Value} is the best "
                                                                                       "milk tea topping.")),
    Axis("broth", "Food", "product", "value", ("clear broth", "tomato broth", "mushroom broth", "curry broth"),
         "for noodles", "The {noun} come in {value}", ("{Value} noodles are my favourite.", "I always get the "
                                                                                            "{value}.")),
    Axis("noodle", "Food", "product", "value", ("knife-cut noodles", "rice noodles", "thin noodles",
                                                "wide noodles"), "", "The order is {value}",
         ("{Value} are the best.", "I always pick {value}.")),
    Axis("filling", "Food", "product", "value", ("cabbage and chive", "corn and carrot", "three delicacies",
                                                 "spinach and egg"), "dumplings", "The {noun} have a {value} filling",
         ("{Value} dumplings are my favourite.", "I always order the {value} ones.")),
    Axis("cooking", "Food", "product", "value", ("boiled", "pan-fried", "steamed"), "dumplings",
         "The {noun} are {value}", ("{Value} dumplings for me.", "I like them {value}.")),
    Axis("dressing", "Food", "product", "value", ("yogurt dressing", "honey mustard", "vinaigrette",
                                                  "olive oil dressing"), "on salads", "The {noun} comes with {value}",
         ("{Value} on my salad, please.", "I always choose {value}.")),
    Axis("serving", "Food", "product", "value", ("chilled", "warm", "ambient"), "desserts",
         "The {noun} is served {value}", ("I like desserts {value}.", "{Value} desserts are the best.")),
    # ---- family axes: delivery shopping
    Axis("flower", "Shopping", "product", "value", ("roses", "lilies", "sunflowers", "tulips", "carnations",
                                                    "peonies"), "in bouquets", "The bouquet is made of {value}",
         ("{Value} are my favourite flowers.", "Get {value} whenever you can.")),
    Axis("colour", "Shopping", "product", "value", ("red", "pink", "white", "yellow", "purple"), "flowers",
         "The flowers are {value}", ("{Value} flowers, always.", "I love {value} flowers.")),
    Axis("fruit", "Shopping", "product", "value", ("cherries", "blueberries", "kiwis", "lychees", "watermelon"),
         "in fruit boxes", "The fruit box contains {value}", ("{Value} are my favourite fruit.", "I could eat "
                                                                                                "{value} every day.")),
    Axis("prep", "Shopping", "product", "value", ("pre-cut", "uncut fruit"), "fruit boxes",
         "The fruit box is {value}", ("I prefer {value} boxes.", "{Value} is more convenient for me.")),
    Axis("organic", "Shopping", "product", "value", ("organic", "conventional"), "produce",
         "The fruit is {value}", ("{Value} produce only, please.", "I buy {value} fruit.")),
    Axis("salt", "Shopping", "product", "value", ("low salt", "classic salt"), "snacks", "The snacks are {value}",
         ("{Value} snacks for me.", "I look for {value} snacks.")),
    Axis("snack", "Shopping", "product", "value", ("seaweed crisps", "puffed crackers", "apricot chews", "nut mix"),
         "", "The snack box is {value}", ("{Value} are my go-to snack.", "I always buy {value}.")),
    Axis("recipe", "Shopping", "product", "value", ("poultry recipe", "ocean fish recipe", "duck recipe",
                                                    "lamb recipe"), "pet food", "The pet food is a {value}",
         ("My pet only eats the {value}.", "Get the {value} for my pet.")),
    Axis("texture", "Shopping", "product", "value", ("dry kibble", "wet pouches", "freeze-dried"), "for pets",
         "The pet food is {value}", ("{Value} is what my pet likes.", "I buy {value} for my pet.")),
    Axis("formula", "Shopping", "product", "value", ("young pet formula", "adult formula", "mature formula"),
         "pet food", "The pet food is {value}", ("The {value} suits my pet.", "Always the {value}.")),
    Axis("flower_cap", "Shopping", "product", "cap", (), "bouquets", "The bouquet costs at most {value} yuan"),
    # ---- family axes: instore
    Axis("massage", "Entertainment", "product", "value",
         ("foot massage", "deep tissue massage", "shoulder and neck massage", "aromatherapy massage"), "",
         "The voucher is for a {value}", ("A {value} is what I need.", "I always book a {value}.")),
    Axis("therapist", "Entertainment", "product", "value", ("female therapist", "male therapist"), "for massages",
         "The voucher is with a {value}", ("I'm more comfortable with a {value}.", "A {value}, please.")),
    Axis("extra", "Shopping", "product", "value", ("scalp treatment", "hair mask", "beard trim"), "with a haircut",
         "The voucher includes a {value}", ("A {value} with my haircut, please.", "I always add a {value}.")),
    Axis("stylist", "Shopping", "product", "value", ("senior stylist", "junior stylist"), "for haircuts",
         "The voucher is with a {value}", ("A {value} please.", "I trust a {value} with my hair.")),
    Axis("treatment", "Shopping", "product", "aversion", ("colouring", "perm"), "", "The voucher includes no {value}",
         ("No {value} for me.", "I never get a {value}.")),
    Axis("wash", "Shopping", "merchant", "value", ("hand wash", "automatic wash"), "for the car",
         "The car wash offers a {value}", ("{Value} only for my car.", "I trust a {value}.")),
    Axis("interior", "Shopping", "product", "value", ("interior cleaning", "exterior clean"), "car washes",
         "The voucher is {value}", ("{Value}, please.", "I always choose {value}.")),
    Axis("finish", "Shopping", "product", "value", ("wax finish", "ceramic coating", "quick rinse"), "car washes",
         "The voucher includes a {value}", ("A {value} every time.", "I like a {value} on my car.")),
    Axis("ktv_room", "Entertainment", "product", "value", ("small room", "mid-size room", "large room"), "at KTV",
         "The KTV package is for a {value}", ("A {value} is enough for us.", "We always take a {value}.")),
    Axis("session", "Entertainment", "product", "value", ("daytime session", "late-night session"), "at KTV",
         "The KTV package is a {value}", ("A {value} suits me.", "{Value} is the best time to sing.")),
    Axis("platter", "Entertainment", "product", "value", ("dessert platter", "savoury platter", "drinks package"),
         "at KTV", "The KTV package includes a {value}", ("Add a {value}.", "A {value} with the room, please.")),
    Axis("screen", "Entertainment", "product", "value", ("IMAX", "3D", "2D"), "movies",
         "The movie ticket is {value}", ("{Value} is the only way to watch a film.", "I always pick {value}.")),
    Axis("cinema_seat", "Entertainment", "product", "value", ("recliner seat", "sofa seat", "regular seat"),
         "at the cinema", "The ticket is for a {value}", ("A {value} for me.", "I book a {value} every time.")),
    Axis("showtime", "Entertainment", "product", "value", ("matinee show", "midnight show"), "movies",
         "The ticket is for a {value}", ("A {value} suits my schedule.", "I like the {value}.")),
    Axis("class", "Entertainment", "product", "value", ("yoga", "pilates", "spinning", "boxing"), "classes",
         "The class is {value}", ("{Value} is my workout.", "I love {value} classes.")),
    Axis("level", "Entertainment", "product", "value", ("beginner level", "advanced level"), "classes",
         "The class is {value}", ("{Value} classes fit me.", "I take {value} classes.")),
    Axis("slot", "Entertainment", "product", "value", ("dawn slot", "lunchtime slot", "after-work slot"), "",
         "The class is in the {value}", ("The {value} fits my schedule.", "I always book the {value}.")),
    Axis("seating", "Food", "merchant", "value", ("private room", "open hall"), "for group dinners",
         "The {place} has a {value}", ("A {value} is better for group dinners.", "Book a {value} if you can.")),
    Axis("dining", "Food", "merchant", "conditional", ("quiet", "lively"), "restaurants", "The {place} is {value}",
         ("Somewhere {value} when I dine with {cond}.", "With {cond} a {value} restaurant is best."),
         ("clients", "friends"), "{value} restaurants when dining with {cond}", "ambience"),
    # ---- family axes: travel
    Axis("facility", "Travel", "merchant", "value", ("gym", "sauna", "pet-friendly rooms", "free parking"),
         "in hotels", "The hotel offers {value}", ("A hotel with {value}, please.", "I always look for {value}.")),
    Axis("stay", "Travel", "merchant", "conditional", ("metro access", "swimming pool"), "hotels",
         "The hotel offers {value}", ("On {cond} trips I want a hotel with {value}.", "For {cond} trips book a "
                                                                                      "hotel with {value}."),
         ("conference", "holiday"), "hotels with {value} for {cond} trips", "facility"),
    Axis("room_floor", "Travel", "product", "value", ("high floor", "low floor"), "rooms",
         "The room is on a {value}", ("A {value} room, please.", "I always ask for a {value}.")),
    Axis("smoking", "Travel", "product", "value", ("non-smoking", "smoking"), "rooms", "The room is {value}",
         ("{Value} rooms only.", "I always book {value} rooms.")),
    Axis("bed", "Travel", "product", "value", ("king bed", "twin beds"), "in hotel rooms",
         "The room has a {value}", ("A {value} works best for me.", "I always book a {value}.")),
    Axis("breakfast", "Travel", "product", "value", ("breakfast included", "room only"), "hotel rates",
         "The rate is {value}", ("{Value}, please.", "I prefer {value} rates.")),
    Axis("hotel_cap", "Travel", "product", "cap", (), "hotel rooms", "The room costs at most {value} yuan a night"),
    Axis("seat_class", "Travel", "product", "value", ("second class", "first class", "business class"),
         "on trains", "The train seat is {value}", ("{Value} on trains is fine for me.", "I always book "
                                                                                             "{value}.")),
    Axis("cabin", "Travel", "product", "value", ("economy", "extra legroom", "business cabin"), "on flights",
         "The flight seat is {value}", ("{Value} on flights, please.", "I always book {value}.")),
    Axis("airline", "Travel", "merchant", "value", ("full-service airline", "budget airline"), "",
         "The flight is with a {value}", ("A {value} is my choice.", "I fly with a {value}.")),
    Axis("tour", "Entertainment", "product", "value", ("guided tour", "audio guide", "self-guided"), "at sights",
         "The ticket includes a {value}", ("A {value} makes a visit better.", "I always take a {value}.")),
    Axis("entry", "Entertainment", "product", "value", ("fast track", "general admission"), "at sights",
         "The ticket is {value}", ("{Value} tickets for me.", "I always buy {value}.")),
)
AXIS = {axis.key: axis for axis in AXES}

#: Axis values a Family uses when the axis is shared (e.g. fruit teas only come in fruit flavours).
FLAVOUR_DRINK = ("mango", "strawberry", "passion fruit", "grapefruit", "lemon", "peach")
FLAVOUR_DESSERT = ("mango", "strawberry", "durian", "taro", "azuki bean", "matcha", "chocolate")


@dataclass(frozen=True)
class Family:
    """One kind of request and its environment.

    Attributes:
        key: Stable identifier.
        kind: ``delivery``, ``instore_product``, ``reservation``, ``hotel``, ``train``, ``flight``, ``attraction``.
        noun: What the request names; every candidate carries it (so a literal search finds them all).
        tags: Neutral tags every merchant carries.
        items: Product base names (delivery and instore products).
        suffixes: Merchant name endings.
        price: Product price range in yuan.
        axes: Axis keys the candidates may differ on (first ones preferred).
        values: Per-axis value restrictions.
        requests: Instruction templates.
        place: The merchant noun in rubrics.
        clock: Hours of the day the request is made.
        share: Relative weight within its domain.
        needs: A profile trait the family needs (``pet``).
    """

    key: str
    kind: str
    category: str
    noun: str
    tags: tuple[str, ...]
    items: tuple[str, ...]
    suffixes: tuple[str, ...]
    price: tuple[int, int]
    axes: tuple[str, ...]
    requests: tuple[str, ...]
    place: str = "shop"
    clock: tuple[int, int] = (9, 20)
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    share: float = 1.0
    needs: str = ""

    @property
    def domain(self) -> str:
        return KINDS[self.kind][0]


FAMILIES: tuple[Family, ...] = (
    Family("coffee", "delivery", "Food", "coffee", ("coffee",), ("Latte", "Cortado", "Cappuccino"),
           ("Coffee", "Cafe", "Roasters", "Espresso Bar"), (18, 38),
           ("milk", "sugar", "temperature", "floor", "caffeine"),
           ("Order me a coffee {addr}.", "Get me a coffee delivered {addr}, please.", "I need a coffee {addr}."),
           clock=(7, 16), share=1.4),
    Family("milk_tea", "delivery", "Food", "milk tea", ("milk tea",), ("Milk Tea", "Tea Latte"),
           ("Tea House", "Tea Bar", "Milk Tea", "Tea Studio"), (12, 28),
           ("topping", "sugar", "ice", "floor"),
           ("Order me a milk tea {addr}.", "Get me a milk tea {addr}, please.", "I want a milk tea {addr}."),
           clock=(10, 21), share=1.3),
    Family("fruit_tea", "delivery", "Food", "fruit tea", ("fruit tea",), ("Fruit Tea", "Fruit Tea Cooler"),
           ("Tea Lab", "Juice Bar", "Fruit Tea", "Tea Garden"), (14, 30),
           ("flavour", "sugar", "ice", "floor"),
           ("Order me a fruit tea {addr}.", "Get me a fruit tea {addr}, please."),
           clock=(10, 20), values={"flavour": FLAVOUR_DRINK}, share=0.9),
    Family("rice_bowl", "delivery", "Food", "rice bowl", ("rice bowl",), ("Rice Bowl", "Rice Box"),
           ("Kitchen", "Canteen", "Rice House", "Bistro"), (22, 45),
           ("protein", "spice", "herb", "floor", "allergen"),
           ("Order me a rice bowl {addr}.", "Get me a rice bowl {addr} for lunch.",
            "I'd like a rice bowl delivered {addr}."), clock=(10, 19), share=1.5),
    Family("noodles", "delivery", "Food", "noodles", ("noodles",), ("Noodles", "Noodle Soup"),
           ("Noodle House", "Noodle Bar", "Noodle Shop", "Ramen House"), (18, 42),
           ("broth", "noodle", "spice", "herb", "floor"),
           ("Order me some noodles {addr}.", "Get me a bowl of noodles {addr}.", "I feel like noodles, deliver "
                                                                                "them {addr}."),
           clock=(10, 21), share=1.3),
    Family("dumplings", "delivery", "Food", "dumplings", ("dumplings",), ("Dumplings",),
           ("Dumpling House", "Dumpling Palace", "Dumpling Bar"), (20, 40),
           ("filling", "cooking", "floor", "allergen"),
           ("Order me some dumplings {addr}.", "Get me a plate of dumplings {addr}."), clock=(10, 20), share=0.9),
    Family("salad", "delivery", "Food", "salad", ("salad",), ("Salad", "Salad Bowl"),
           ("Greens", "Salad Bar", "Health Kitchen"), (28, 55),
           ("dressing", "protein", "herb", "floor"),
           ("Order me a salad {addr}.", "Get me a salad {addr}, please."), clock=(10, 19), share=0.8),
    Family("dessert", "delivery", "Food", "dessert", ("dessert",), ("Mousse", "Sago Cup", "Cake Slice"),
           ("Dessert House", "Sweet Shop", "Patisserie", "Dessert Bar"), (16, 42),
           ("flavour", "serving", "sugar", "floor"),
           ("Order me a dessert {addr}.", "Get me a dessert {addr}, please.", "I'd love a dessert {addr}."),
           clock=(13, 22), values={"flavour": FLAVOUR_DESSERT}, share=1.0),
    Family("flowers", "delivery", "Shopping", "flowers", ("flowers", "bouquet"), ("Bouquet", "Flower Box"),
           ("Florist", "Flower Studio", "Blooms"), (128, 388),
           ("flower", "colour", "flower_cap", "floor"),
           ("Send a bouquet of flowers {addr}.", "Order flowers {addr}, please."), clock=(9, 18), share=0.7),
    Family("fruit_box", "delivery", "Shopping", "fruit box", ("fruit box",), ("Fruit Box", "Fruit Basket"),
           ("Fruit Market", "Fresh Fruit", "Orchard"), (38, 98),
           ("fruit", "prep", "organic", "floor"),
           ("Order a fruit box {addr}.", "Get me a fruit box delivered {addr}."), clock=(9, 21), share=0.8),
    Family("snacks", "delivery", "Shopping", "snack box", ("snack box",), ("Snack Box", "Snack Pack"),
           ("Snack Shop", "Mart", "Goodies"), (18, 48),
           ("snack", "salt", "allergen", "floor"),
           ("Order me a snack box {addr}.", "Get a snack box delivered {addr}."), clock=(11, 23), share=0.6),
    Family("pet_food", "delivery", "Shopping", "pet food", ("pet food",), ("Pet Food", "Pet Meal Pack"),
           ("Pet Store", "Pet Mart", "Paws"), (45, 160),
           ("recipe", "texture", "formula", "floor"),
           ("Order pet food {addr}.", "We're out of pet food, order some {addr}."), clock=(9, 21), share=0.5,
           needs="pet"),
    Family("massage", "instore_product", "Entertainment", "massage", ("massage",), ("Voucher",),
           ("Spa", "Wellness", "Massage Studio", "Day Spa"), (98, 298),
           ("massage", "ambience", "therapist", "floor"),
           ("I'd like a massage, buy me a voucher.", "Buy me a massage voucher for this week.",
            "Get me a massage voucher somewhere good."), clock=(9, 20), share=1.2),
    Family("haircut", "instore_product", "Shopping", "haircut", ("haircut", "salon"), ("Haircut Voucher",),
           ("Salon", "Style Studio", "Barber"), (58, 198),
           ("extra", "stylist", "treatment", "floor"),
           ("I need a haircut, buy me a voucher.", "Buy me a haircut voucher for this weekend."), clock=(9, 20),
           share=1.0),
    Family("car_wash", "instore_product", "Shopping", "car wash", ("car wash",), ("Car Wash Voucher",),
           ("Auto Care", "Car Spa", "Detailing"), (35, 168),
           ("wash", "interior", "finish", "floor"),
           ("Buy me a car wash voucher.", "My car is dirty, buy me a car wash voucher."), clock=(8, 18),
           share=0.7, needs="car"),
    Family("ktv", "instore_product", "Entertainment", "KTV", ("KTV",), ("KTV Package",),
           ("KTV", "Karaoke", "Music Box"), (88, 398),
           ("ktv_room", "session", "platter", "floor"),
           ("Buy us a KTV package voucher.", "Get me a KTV voucher for this weekend."), clock=(10, 21), share=0.6),
    Family("cinema", "instore_product", "Entertainment", "movie", ("movie", "cinema"), ("Movie Ticket",),
           ("Cinema", "Cineplex", "Movie Theatre"), (35, 120),
           ("screen", "cinema_seat", "showtime", "floor"),
           ("Buy me a movie ticket voucher.", "Get me a movie ticket voucher for this weekend."), clock=(9, 21),
           share=0.7),
    Family("fitness", "instore_product", "Entertainment", "fitness class", ("fitness class",),
           ("Class Pass",), ("Fitness", "Studio", "Fitness Club"), (49, 199),
           ("class", "level", "slot", "floor"),
           ("Buy me a fitness class pass.", "Get me a fitness class pass for this week."), clock=(7, 21),
           share=0.7),
    Family("set_meal", "instore_product", "Food", "set meal", ("set meal", "restaurant"), ("Set Meal",),
           ("Restaurant", "Kitchen", "Bistro", "Eatery"), (68, 268),
           ("cuisine", "spice", "ambience", "floor"),
           ("Buy me a set meal voucher for dinner.", "Get me a set meal voucher for lunch this week."),
           place="restaurant", clock=(9, 18), share=0.9),
    Family("restaurant", "reservation", "Food", "table", ("restaurant",), ("Set Menu",),
           ("Restaurant", "Kitchen", "Eatery", "Bistro"), (88, 488),
           ("cuisine", "ambience", "seating", "floor", "dining"),
           ("Reserve a table for {n} people {day} at {time}.", "Book a table for {n} people {day} at {time}."),
           place="restaurant", clock=(9, 17), share=1.4),
    Family("hotel", "hotel", "Travel", "hotel", ("hotel",), ("Room",),
           ("Hotel", "Grand Hotel", "Inn", "Suites", "Boutique Hotel"), (280, 980),
           ("room_floor", "smoking", "bed", "breakfast", "ambience", "facility", "floor", "hotel_cap", "stay"),
           ("Book me a hotel in {dest} for {day} night.", "I need a hotel in {dest} for {day} night."),
           place="hotel", clock=(8, 21), share=1.2),
    Family("train", "train", "Travel", "train", ("train",), (), (), (60, 280),
           ("seat_class", "departure"),
           ("Book me a train ticket to {dest} for {day}.", "Get me a train ticket to {dest} for {day}."),
           place="train", clock=(8, 22), share=1.0),
    Family("flight", "flight", "Travel", "flight", ("flight",), (), (), (420, 1680),
           ("cabin", "departure", "airline"),
           ("Book me a flight to {dest} for {day}.", "Get me a flight ticket to {dest} for {day}."),
           place="flight", clock=(8, 22), share=0.8),
    Family("attraction", "attraction", "Entertainment", "museum", ("museum",), ("Ticket",),
           ("Museum", "Art Museum", "History Museum", "Science Museum"), (40, 180),
           ("tour", "entry"),
           ("Get me a museum ticket in {dest} for {day}.", "Buy me a ticket for a museum in {dest} for {day}."),
           place="museum", clock=(8, 20), share=0.6),
)

#: Neutral words for merchant names: no axis value, condition term or request noun among them.
NAME_PREFIXES = (
    "Golden", "Blue", "Harbour", "Maple", "Urban", "Corner", "Sunny", "Little", "Old Town", "Happy", "Jade",
    "Silver", "Cloud", "River", "Pine", "Lotus", "Bamboo", "Harmony", "Orchid", "Crown", "Star", "Moon", "Peak",
    "Willow", "Coral", "Amber", "Cedar", "Meadow", "Aurora", "Summit", "Lantern", "Phoenix", "Panda", "Tiger",
)
#: Airlines named in travel histories.
AIRLINE_NAMES = ("Air China", "China Eastern", "Spring Airlines", "Hainan Airlines", "Juneyao Air")
#: Tags only the most popular merchant carries (never in any history).
POPULAR_TAGS = ("popular", "bestseller")

#: P1 proactive templates per family kind: (instruction, intention). ``{n}``, ``{day}``, ``{time}`` filled.
PROACTIVE_COUNT: dict[str, tuple[tuple[str, str], ...]] = {
    "delivery": (("Order some {noun} {addr} for the team.", "There are {n} of us, one each."),
                 ("Order {noun} {addr} for all of us.", "We need {n} portions, one each.")),
    "instore_product": (("Buy some {noun} vouchers for me and my family.", "There are {n} of us, one voucher each."),),
    "reservation": (("Book a table for a family dinner.", "There will be {n} of us, {day} at {time}."),
                    ("Reserve a table for a get-together.", "There will be {n} of us, {day} at {time}.")),
    "hotel": (("Book me a hotel in {dest} for my trip.", "I need it for the night of {day}."),),
    "train": (("Book train tickets to {dest} for our family trip.", "We want to go {day}, {n} of us."),),
    "flight": (("Book flights to {dest} for our trip.", "We fly {day}, {n} of us."),),
    "attraction": (("Get us museum tickets in {dest}.", "We go {day}, {n} of us."),),
}
#: P2 conditional templates per axis: (instruction, intention). ``{cond}`` is the hidden condition.
PROACTIVE_CONDITIONAL: dict[str, tuple[tuple[str, str], ...]] = {
    "caffeine": (("Order me a coffee {addr} before my meeting today.", "The meeting is {when} this {cond}."),
                 ("Get me a coffee {addr}, I have a meeting today.", "It's {when} this {cond}.")),
    "dining": (("Book a table for dinner {day} at {time}.", "There will be {n} of us: me and {others}."),),
    "stay": (("Book me a hotel in {dest} for my trip.", "It's a {cond} trip, I need the night of {day}."),),
}
#: The hidden condition's wording in an intention, by condition term.
CONDITION_WORDS = {"morning": ("at 9:30 am", "morning"), "afternoon": ("at 3 pm", "afternoon"),
                   "clients": "clients", "friends": "friends", "conference": "conference", "holiday": "holiday"}

#: Preferences no subtask decides on (the long tail of paper C.2.2), by category. Their words never
#: overlap an axis value.
BACKGROUND: dict[str, tuple[str, ...]] = {
    "Food": ("homemade soup on weekends", "street food night markets", "fresh bread for breakfast",
             "hand-drip filter brewing at home", "seasonal vegetables", "home cooking on Sundays",
             "brunch with friends", "buns and porridge for breakfast", "barbecue skewers in summer",
             "herbal soups in winter", "congee when feeling unwell", "trying new bakeries"),
    "Shopping": ("skincare without fragrance", "cotton clothing", "midnight flash sales",
                 "minimalist home decor", "limited-edition sneakers", "reading reviews before buying",
                 "second-hand books", "reusable shopping bags", "stationery from Japan", "bulk paper towels",
                 "eco-friendly detergent", "indie perfume brands", "handmade ceramics"),
    "Travel": ("window seats on long trips", "travelling with carry-on only", "guesthouses in old towns",
               "road trips with a rental car", "coastal cities in winter", "mountain towns in summer",
               "slow travel with long stays", "night walks in new cities", "local street markets when travelling",
               "photographing temples on trips", "train journeys over short flights"),
    "Entertainment": ("sci-fi movies", "jazz concerts", "mystery novels", "weekend hiking", "board game nights",
                      "K-pop concerts", "stand-up comedy shows", "watercolour painting", "basketball games",
                      "photography walks", "puzzle escape rooms", "classical music", "anime films",
                      "live football matches", "podcasts about history", "crossword puzzles", "indie music gigs",
                      "theatre plays", "badminton with colleagues", "mahjong with family"),
    "Special": ("wheelchair-friendly venues for a parent", "low-sodium meals for blood pressure",
                "childproof packaging", "dim lighting for migraines", "step-free access with a pram",
                "sugar control for prediabetes", "large-print menus"),
}
#: Personal details appended to most tags, so preference texts are mostly user-specific (paper C.2.2).
DETAILS = (
    "since {year}", "a habit from {hometown}", "since moving to {city}", "picked up at university",
    "since starting as {occupation_a}", "learned from {relative}", "a taste from {hometown}",
    "ever since a trip to {place}", "recommended by a coworker in {year}", "a routine since {year}",
)
