"""The highrise Python agent demo: a toy shop with customers (threads) searching a catalog and
placing orders, a dispatcher thread planning routes, and a slow database.

    python -m highrise_agent examples/python/shop_demo.py [--seconds 30] [--customers 3]

Start the viewer first (`cargo run --release`, or `highrise serve` without a
window); the shop appears as a city: districts shop.catalog/shop.orders/shop.shipping... are the
packages, Catalog/OrderService/RoutePlanner the blocks, and the tallest towers are where the
threads spend their time (Catalog.search, RoutePlanner.shortest, Database.save).
"""

import argparse
import random
import threading
import time

from shop.catalog import Catalog, format_price
from shop.orders import Database, OrderError, OrderService
from shop.shipping import Dispatcher


def customer(index, catalog, orders, dispatcher, deadline):
    rng = random.Random(index)
    placed = 0
    while time.monotonic() < deadline:
        found = catalog.search(rng.choice(["lamp", "desk", "red", "mug"]))
        skus = [product.sku for product in found[: rng.randint(0, 6)]]
        try:
            order = orders.place(skus)
        except OrderError:
            continue
        format_price(order["total"])
        dispatcher.inbox.put(order)
        placed += 1
    return placed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--customers", type=int, default=3)
    args = parser.parse_args()

    catalog = Catalog()
    orders = OrderService(catalog, Database())
    dispatcher = Dispatcher()
    shipper = threading.Thread(target=dispatcher.run, name="dispatcher")
    shipper.start()
    deadline = time.monotonic() + args.seconds
    customers = [
        threading.Thread(
            target=customer, args=(i, catalog, orders, dispatcher, deadline), name="customer-%d" % i
        )
        for i in range(args.customers)
    ]
    for thread in customers:
        thread.start()
    for thread in customers:
        thread.join()
    dispatcher.inbox.put(None)
    shipper.join()
    print("orders placed: %d, shipped: %d" % (orders.next_id, dispatcher.shipped))


if __name__ == "__main__":
    main()
