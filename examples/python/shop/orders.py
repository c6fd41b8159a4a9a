"""Order handling: validation, pricing with a recursive discount rule, and a slow database."""

import time


class OrderError(Exception):
    pass


class Database:
    """Pretends to be a remote database: every save waits on I/O."""

    def save(self, order):
        time.sleep(0.002)
        return order["id"]


class OrderService:
    def __init__(self, catalog, database):
        self.catalog = catalog
        self.database = database
        self.next_id = 0

    def place(self, skus):
        self.validate(skus)
        total = sum(self.catalog.price_of(sku) for sku in skus)
        order = {"id": self.next_id, "skus": skus, "total": discount(total, len(skus))}
        self.next_id += 1
        self.database.save(order)
        return order

    def validate(self, skus):
        if not skus:
            raise OrderError("empty order")
        if any(sku < 0 for sku in skus):
            raise OrderError("bad sku")


def discount(total, items):
    """10 % off per item beyond the third, applied recursively."""
    if items <= 3:
        return total
    return discount(total * 9 // 10, items - 1)
