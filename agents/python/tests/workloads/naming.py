"""The naming scheme end to end (test_agent.py): citylib.geometry.Circle and citylib.render.Circle,
a nested class, module-level and nested functions, a class defined in a function."""
from citylib.geometry import Circle
from citylib import render


def main():
    canvas = []
    for radius in range(1, 4):
        Circle(radius).area()
        render.Circle(radius).draw(canvas, color="red", width=2)
    for level in range(2):
        render.shade(level)
        sprite_class = render.make_sprite("s%d" % level)
        sprite_class(level).blit(canvas)
    print(len(canvas))


if __name__ == "__main__":
    main()
