"""A toy web shop for the highrise Python agent demo: a few modules, classes and threads with
very different costs, so the city has districts (shop.catalog, shop.orders, shop.shipping), blocks
and towers of different heights. Run it with `python -m highrise_agent examples/python/shop_demo.py`."""
