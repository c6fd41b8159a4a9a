"""Shipping: route planning (CPU-heavy) on its own thread, fed by a queue."""

import queue


class RoutePlanner:
    def __init__(self, depots=12):
        self.depots = depots

    def shortest(self, start, goal):
        # Bellman-Ford on a small ring with chords: deliberately CPU-bound.
        distance = [10**9] * self.depots
        distance[start] = 0
        for _ in range(self.depots):
            for node in range(self.depots):
                for neighbour, cost in self.edges(node):
                    if distance[node] + cost < distance[neighbour]:
                        distance[neighbour] = distance[node] + cost
        return distance[goal]

    def edges(self, node):
        yield (node + 1) % self.depots, 3
        yield (node + 5) % self.depots, 7


class Dispatcher:
    def __init__(self):
        self.inbox = queue.Queue()
        self.planner = RoutePlanner()
        self.shipped = 0

    def run(self):
        while True:
            order = self.inbox.get()
            if order is None:
                return
            self.ship(order)

    def ship(self, order):
        self.planner.shortest(order["id"] % 12, (order["id"] * 7) % 12)
        self.shipped += 1
