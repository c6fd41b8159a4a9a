import math


class Shape:
    def area(self):
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return math.pi * self.radius * self.radius

    class Unit:
        def side(self):
            return 1.0


def scale(value, factor=2):
    return value * factor
