package shapes;

/** Makes shapes by name (D in the paper's figure): the example's only allocation site of shapes. */
class ShapeFactory {
    Shape create(String form) { // D
        if (form.equals("Circle")) {
            return new Circle();
        } else {
            if (form.equals("Box")) {
                return new Box();
            } else {
                return null;
            }
        }
    }
}
