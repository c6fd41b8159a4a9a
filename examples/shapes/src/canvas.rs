//! The canvas and its calling contexts.

use crate::factory::{Shape, ShapeFactory};

/// Holds shapes; made by the paper's `main`.
#[derive(Debug)]
pub struct Canvas {
    shapes: Vec<Box<dyn Shape>>,
    factory: Box<ShapeFactory>,
}

#[highrise_agent::profile]
impl Canvas {
    /// Two allocations: the shape vector (room for every shape; left untyped) and the boxed
    /// factory (counted as `ShapeFactory`).
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self {
            shapes: Vec::with_capacity(crate::SHAPES),
            factory: highrise_agent::alloc_as::<ShapeFactory, _>(|| {
                Box::new(ShapeFactory::default())
            }),
        }
    }

    /// No allocation: the vector has room.
    pub fn add(&mut self, shape: Box<dyn Shape>) {
        self.shapes.push(shape);
    }

    pub fn create_circles(&mut self, number: usize) {
        self.create_shape(number, "Circle");
    }

    pub fn create_boxes(&mut self, number: usize) {
        self.create_shape(number, "Box");
    }

    pub fn create_shape(&mut self, number: usize, form: &str) {
        for _ in 0..number {
            if let Some(shape) = self.factory.create(form) {
                self.add(shape);
            }
        }
    }

    /// Shapes held.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// True when no shape was added.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// The area all shapes cover (keeps the shapes' fields used).
    pub fn area(&self) -> f64 {
        self.shapes.iter().map(|shape| shape.area()).sum()
    }
}
