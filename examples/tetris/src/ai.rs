//! The autopilot: for each new piece, tries every rotation and column and picks the best
//! resulting board. Runs on its own thread; the game asks through a channel.

use crate::board::{Board, WIDTH};
use crate::piece::Piece;

/// Where to put a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub rotation: u8,
    pub x: i32,
}

#[derive(Debug, Default)]
pub struct Planner {
    pub plans_made: u64,
}

#[highrise_agent::profile]
impl Planner {
    pub fn best_move(&mut self, board: &Board, piece: &Piece) -> Option<Plan> {
        self.plans_made += 1;
        let mut best: Option<(i64, Plan)> = None;
        for rotation in 0..4u8 {
            for x in -2..WIDTH {
                let candidate = Piece {
                    rotation,
                    x,
                    y: 0,
                    ..*piece
                };
                let Some(score) = self.evaluate(board, &candidate) else {
                    continue;
                };
                if best.is_none_or(|(best_score, _)| score < best_score) {
                    best = Some((score, Plan { rotation, x }));
                }
            }
        }
        best.map(|(_, plan)| plan)
    }

    /// Drops `piece` straight down on a copy of the board and scores the result.
    fn evaluate(&self, board: &Board, piece: &Piece) -> Option<i64> {
        if board.collides(piece) {
            return None;
        }
        let mut landed = *piece;
        while !board.collides(&landed.fall()) {
            landed = landed.fall();
        }
        // Named for the allocation views (class floors, the allocation-site tree).
        let mut after = highrise_agent::alloc_as::<Board, _>(|| board.clone());
        after.lock(&landed);
        let lines = after.clear_lines();
        Some(after.score() - i64::from(lines) * 100)
    }
}
