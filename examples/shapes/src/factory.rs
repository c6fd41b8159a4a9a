//! Shapes and the factory that makes them.

/// Something drawn on the canvas.
pub trait Shape: std::fmt::Debug {
    fn area(&self) -> f64;
}

/// 16 bytes.
#[derive(Debug)]
pub struct Circle {
    pub x: i32,
    pub y: i32,
    pub r: f64,
}

/// 24 bytes (the paper's `Box`; `Box` is Rust's).
#[derive(Debug)]
pub struct Rectangle {
    pub x: i32,
    pub y: i32,
    pub h: f64,
    pub w: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r + f64::from(self.x - self.y) * 0.0
    }
}

impl Shape for Rectangle {
    fn area(&self) -> f64 {
        self.h * self.w + f64::from(self.x - self.y) * 0.0
    }
}

/// Makes shapes by name.
#[derive(Debug, Default)]
pub struct ShapeFactory {
    made: u64,
}

#[highrise_agent::profile]
impl ShapeFactory {
    /// One allocation per shape: the box, counted as its type (`alloc_as`).
    pub fn create(&mut self, form: &str) -> Option<Box<dyn Shape>> {
        self.made += 1;
        let at = self.made as i32;
        match form {
            "Circle" => Some(highrise_agent::alloc_as::<Circle, _>(|| {
                Box::new(Circle {
                    x: at,
                    y: at,
                    r: 1.0,
                })
            })),
            "Box" => Some(highrise_agent::alloc_as::<Rectangle, _>(|| {
                Box::new(Rectangle {
                    x: at,
                    y: at,
                    h: 1.0,
                    w: 2.0,
                })
            })),
            _ => None,
        }
    }
}
