//! The well: a grid of rows (one bit per column), collisions and clearing lines.

use crate::piece::Piece;

pub const WIDTH: i32 = 10;
pub const HEIGHT: i32 = 20;
const FULL_ROW: u16 = (1 << WIDTH) - 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// Row 0 is the top.
    pub rows: Vec<u16>,
    pub lines_cleared: u64,
}

impl Default for Board {
    fn default() -> Self {
        Self::new()
    }
}

#[highrise_agent::profile]
impl Board {
    pub fn new() -> Self {
        Self {
            rows: vec![0; HEIGHT as usize],
            lines_cleared: 0,
        }
    }

    /// True when `piece` overlaps a wall, the floor or a filled cell.
    pub fn collides(&self, piece: &Piece) -> bool {
        piece.cells().iter().any(|&(x, y)| {
            !(0..WIDTH).contains(&x)
                || !(0..HEIGHT).contains(&y)
                || self.rows[y as usize] & (1 << x) != 0
        })
    }

    /// Writes the piece into the grid.
    pub fn lock(&mut self, piece: &Piece) {
        for (x, y) in piece.cells() {
            if (0..WIDTH).contains(&x) && (0..HEIGHT).contains(&y) {
                self.rows[y as usize] |= 1 << x;
            }
        }
    }

    /// Removes full rows; returns how many.
    pub fn clear_lines(&mut self) -> u32 {
        let before = self.rows.len();
        self.rows.retain(|&row| row != FULL_ROW);
        let cleared = before - self.rows.len();
        for _ in 0..cleared {
            self.rows.insert(0, 0);
        }
        self.lines_cleared += cleared as u64;
        cleared as u32
    }

    /// Lower is better: holes, height and bumpiness (the AI's evaluation).
    pub fn score(&self) -> i64 {
        let mut heights = [0i64; WIDTH as usize];
        let mut holes = 0i64;
        for x in 0..WIDTH {
            let mut seen_block = false;
            for (y, row) in self.rows.iter().enumerate() {
                let filled = row & (1 << x) != 0;
                if filled && !seen_block {
                    heights[x as usize] = HEIGHT as i64 - y as i64;
                    seen_block = true;
                } else if !filled && seen_block {
                    holes += 1;
                }
            }
        }
        let bumpiness: i64 = heights.windows(2).map(|w| (w[0] - w[1]).abs()).sum();
        let total: i64 = heights.iter().sum();
        total * 5 + holes * 35 + bumpiness * 2
    }

    /// True when the top row is occupied (game over).
    pub fn topped_out(&self) -> bool {
        self.rows[0] != 0 || self.rows[1] != 0
    }
}
