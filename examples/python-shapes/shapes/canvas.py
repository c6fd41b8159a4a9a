"""The canvas and its calling contexts (the paper's methods A, B, C, E and F)."""

from .factory import ShapeFactory


class Canvas:
    def __init__(self):  # B: a list and the factory
        self.shapes = []
        self.factory = ShapeFactory()

    def add(self, shape):
        self.shapes.append(shape)

    def create_circles(self, number):  # C
        self.create_shape(number, "Circle")

    def create_boxes(self, number):  # E
        self.create_shape(number, "Box")

    def create_shape(self, number, form):  # F
        for _ in range(number):
            self.add(self.factory.create(form))

    def area(self):
        return sum(shape.area() for shape in self.shapes)

    @staticmethod
    def main():  # A
        canvas = Canvas()
        canvas.create_circles(15)
        canvas.create_boxes(8)
        canvas.create_shape(15, "Circle")
        canvas.create_shape(8, "Box")
        return canvas
