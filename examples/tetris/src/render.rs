//! The renderer: draws the latest frame as text, 30 times a second, on its own thread.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::board::{Board, HEIGHT, WIDTH};
use crate::piece::Piece;

/// What the game shows.
#[derive(Debug, Clone)]
pub struct Frame {
    pub game: u32,
    pub board: Board,
    pub piece: Option<Piece>,
}

#[derive(Debug, Default)]
pub struct Renderer {
    screen: String,
    pub frames_drawn: u64,
}

#[highrise_agent::profile]
impl Renderer {
    pub fn draw_frame(&mut self, frame: &Frame) -> &str {
        self.screen.clear();
        self.draw_score(frame);
        self.draw_board(frame);
        self.frames_drawn += 1;
        &self.screen
    }

    fn draw_board(&mut self, frame: &Frame) {
        let cells = frame.piece.map(|piece| piece.cells()).unwrap_or_default();
        for y in 0..HEIGHT {
            self.screen.push('|');
            for x in 0..WIDTH {
                let filled = frame.board.rows[y as usize] & (1 << x) != 0;
                let falling = frame.piece.is_some() && cells.contains(&(x, y));
                self.screen.push(match (filled, falling) {
                    (_, true) => '@',
                    (true, false) => '#',
                    _ => ' ',
                });
            }
            self.screen.push_str("|\n");
        }
    }

    fn draw_score(&mut self, frame: &Frame) {
        let _ = writeln!(
            self.screen,
            "game {}  lines {}",
            frame.game, frame.board.lines_cleared
        );
    }
}

/// The render thread's body: draws until `stop`, printing a frame every `show_every` if set.
pub fn render_loop(
    frames: Arc<Mutex<Option<Frame>>>,
    stop: Arc<AtomicBool>,
    show_every: Option<Duration>,
) -> u64 {
    let mut renderer = Renderer::default();
    let mut last_shown = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let frame = frames.lock().ok().and_then(|slot| slot.clone());
        if let Some(frame) = frame {
            let screen = renderer.draw_frame(&frame);
            if let Some(every) = show_every {
                if last_shown.elapsed() >= every {
                    println!("{screen}");
                    last_shown = Instant::now();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(33));
    }
    renderer.frames_drawn
}
