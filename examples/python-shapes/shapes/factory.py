"""Shapes and the factory that makes them (the paper's `Shape`, `Circle`, `Box`, `ShapeFactory`).

The shapes declare their fields with `__slots__`, like the paper's Java fields: each instance is
one fixed-size object (no per-instance dict), so its size is the same on every CPython.
"""


class Shape:
    __slots__ = ("x", "y")

    def area(self):
        raise NotImplementedError


class Circle(Shape):
    __slots__ = ("r",)

    def area(self):
        return 3.141592653589793 * self.r * self.r


class Box(Shape):
    __slots__ = ("h", "w")

    def area(self):
        return self.h * self.w


class ShapeFactory:
    """Makes shapes by name: the paper's method D, the one allocation site of the shapes."""

    def __init__(self):
        self.made = 0

    def create(self, form):
        self.made += 1
        if form == "Circle":
            shape = Circle()
            shape.r = 1.0
        elif form == "Box":
            shape = Box()
            shape.h = 1.0
            shape.w = 2.0
        else:
            return None
        shape.x = shape.y = self.made
        return shape
