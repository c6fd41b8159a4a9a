package shapes;

class Box extends Shape {
    double h;
    double w;
}
