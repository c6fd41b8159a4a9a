"""The running example of Fernandez Blanco et al. (2018), "object allocation sites", in Python:
a `Canvas` filled with 30 `Circle`s and 16 `Box`es by a `ShapeFactory`, through three calling
contexts (`create_circles`, `create_boxes`, and `create_shape` called directly from `main`).

Run it under the highrise agent (`python -m highrise_agent -m shapes`) and the viewer and
`highrise report` show which method created how many objects of which class, per calling
context: `ShapeFactory.create` makes the circles and boxes, in three branches of the tree.
"""

from .canvas import Canvas
from .factory import Box, Circle, Shape, ShapeFactory

__all__ = ["Box", "Canvas", "Circle", "Shape", "ShapeFactory"]
