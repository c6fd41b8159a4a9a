//! The running example of Fernandez Blanco et al. (2018), "object allocation sites", in Rust:
//! a `Canvas` filled with 30 `Circle`s and 16 `Box`es by a `ShapeFactory`, through three
//! calling contexts (`create_circles`, `create_boxes`, and `create_shape` called directly).
//! Run it with `highrise_agent::Allocator` as the global allocator (the `shapes` binary does)
//! and the viewer and `highrise report` show which method made how many objects.
//!
//! The shapes, the factory and the canvas are counted as their types
//! ([`highrise_agent::alloc_as`]); the shape vector stays `(untyped)`, as every Rust
//! allocation is unless named. Every allocation is deliberate and counted in the tests: [`Canvas::new`] makes the shape
//! vector (capacity for all 46 shapes, so [`Canvas::add`] never grows it) and boxes the
//! factory; [`factory::ShapeFactory::create`] boxes each shape; [`run`] boxes the canvas.

pub mod canvas;
pub mod factory;

pub use canvas::Canvas;

/// Shapes a canvas holds (30 circles and 16 boxes).
pub const SHAPES: usize = 46;

/// The paper's `main`: one canvas, circles and boxes through `create_circles` /
/// `create_boxes`, then the same through `create_shape` directly. Returns the number of
/// shapes made.
#[highrise_agent::profile]
pub fn run() -> usize {
    let canvas = Canvas::new();
    let mut canvas = highrise_agent::alloc_as::<Canvas, _>(|| Box::new(canvas));
    canvas.create_circles(15);
    canvas.create_boxes(8);
    canvas.create_shape(15, "Circle");
    canvas.create_shape(8, "Box");
    canvas.len()
}
