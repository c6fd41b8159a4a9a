"""Products, prices, and a search that is much too slow (it rescans everything each time)."""

import random


class Product:
    def __init__(self, sku, name, price_cents):
        self.sku = sku
        self.name = name
        self.price_cents = price_cents

    def matches(self, word):
        return word in self.name


class Catalog:
    def __init__(self, size=400, seed=7):
        rng = random.Random(seed)
        words = ["red", "blue", "lamp", "chair", "desk", "mug", "pen", "book", "sofa", "rug"]
        self.products = [
            Product(sku, " ".join(rng.sample(words, 3)), rng.randint(100, 50000)) for sku in range(size)
        ]

    def search(self, word):
        return [product for product in self.products if product.matches(word)]

    def price_of(self, sku):
        return self.products[sku % len(self.products)].price_cents


def format_price(cents):
    return "%d.%02d" % divmod(cents, 100)
