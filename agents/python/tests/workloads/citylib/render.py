"""A second module of citylib with a class of the same name as citylib.geometry.Circle, a nested
class, a decorator's wrapper (a function in a function) and a class made by a function."""
import functools


def traced(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


class Circle:
    class Style:
        def stroke(self, width=1):
            return "-" * width

    def __init__(self, radius):
        self.radius = radius

    def draw(self, canvas, *, color, **style):
        canvas.append((color, self.radius, Circle.Style().stroke(2)))
        return outline(self.radius)


def outline(radius):
    return "o" * radius


@traced
def shade(level):
    return level * 2


def make_sprite(name):
    class Sprite:
        def __init__(self, size):
            self.name = name
            self.size = size

        def blit(self, canvas):
            canvas.append((self.name, self.size))

    return Sprite
