//! Tetrominoes: shapes, rotation and falling.

/// The seven shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    I,
    O,
    T,
    S,
    Z,
    J,
    L,
}

impl Shape {
    pub const ALL: [Shape; 7] = [
        Shape::I,
        Shape::O,
        Shape::T,
        Shape::S,
        Shape::Z,
        Shape::J,
        Shape::L,
    ];

    fn cells(self) -> [(i32, i32); 4] {
        match self {
            Shape::I => [(0, 0), (1, 0), (2, 0), (3, 0)],
            Shape::O => [(0, 0), (1, 0), (0, 1), (1, 1)],
            Shape::T => [(0, 0), (1, 0), (2, 0), (1, 1)],
            Shape::S => [(1, 0), (2, 0), (0, 1), (1, 1)],
            Shape::Z => [(0, 0), (1, 0), (1, 1), (2, 1)],
            Shape::J => [(0, 0), (0, 1), (1, 1), (2, 1)],
            Shape::L => [(2, 0), (0, 1), (1, 1), (2, 1)],
        }
    }
}

/// A falling piece: shape, rotation (0..4) and position of its origin (x = column, y = row
/// counted from the top).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub shape: Shape,
    pub rotation: u8,
    pub x: i32,
    pub y: i32,
}

#[highrise_agent::profile]
impl Piece {
    pub fn spawn(shape: Shape, width: i32) -> Self {
        Self {
            shape,
            rotation: 0,
            x: width / 2 - 2,
            y: 0,
        }
    }

    /// The four cells this piece covers.
    pub fn cells(&self) -> [(i32, i32); 4] {
        let mut cells = self.shape.cells();
        for _ in 0..self.rotation % 4 {
            for cell in &mut cells {
                *cell = (3 - cell.1, cell.0);
            }
        }
        let min_x = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let min_y = cells.iter().map(|c| c.1).min().unwrap_or(0);
        cells.map(|(x, y)| (x - min_x + self.x, y - min_y + self.y))
    }

    pub fn rotate(&self) -> Self {
        Self {
            rotation: (self.rotation + 1) % 4,
            ..*self
        }
    }

    pub fn fall(&self) -> Self {
        Self {
            y: self.y + 1,
            ..*self
        }
    }

    pub fn shift(&self, dx: i32) -> Self {
        Self {
            x: self.x + dx,
            ..*self
        }
    }
}
