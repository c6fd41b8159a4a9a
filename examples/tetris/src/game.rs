//! One game: the loop that ticks the falling piece, asks the AI where to put it, locks it and
//! clears lines. And the [`Session`] that restarts games — with the bug.
//!
//! # The bug (on purpose)
//!
//! [`Session::restart`] *pauses* the running game instead of stopping it, and starts a new
//! one. The old game's thread never leaves [`Game::run`]: it sits in the paused branch of the
//! loop, which calls nothing, so in highrise `Game.run` climbs to 100 % and its thread count
//! grows by one per restart. `--fixed` stops (and joins) the old game instead.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::ai::Plan;
use crate::board::{Board, WIDTH};
use crate::piece::{Piece, Shape};
use crate::render::Frame;
use crate::scores::ScoreEvent;

/// How a game is told to pause or stop.
#[derive(Debug, Default)]
pub struct Control {
    paused: AtomicBool,
    stopped: AtomicBool,
}

impl Control {
    pub fn pause(&self) {
        self.paused.store(true, Ordering::Relaxed);
    }
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }
    fn paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }
    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// A request to the AI thread: the board, the new piece, where to answer.
pub type PlanRequest = (Board, Piece, Sender<Option<Plan>>);

/// What a game thread shares with the rest of the program.
#[derive(Debug, Clone)]
pub struct Links {
    pub ai: Sender<PlanRequest>,
    pub scores: Sender<ScoreEvent>,
    pub frame: Arc<Mutex<Option<Frame>>>,
    pub pieces: Arc<AtomicU64>,
    pub tick: Duration,
}

#[derive(Debug)]
pub struct Game {
    number: u32,
    board: Board,
    piece: Option<(Piece, Plan)>,
    rng: u64,
    control: Arc<Control>,
    links: Links,
}

#[highrise_agent::profile]
impl Game {
    pub fn new(number: u32, control: Arc<Control>, links: Links) -> Self {
        Self {
            number,
            board: Board::new(),
            piece: None,
            rng: 0x9e37_79b9_7f4a_7c15 ^ u64::from(number),
            control,
            links,
        }
    }

    /// The game loop. Returns when the game is stopped.
    pub fn run(&mut self) {
        loop {
            if self.control.stopped() {
                return;
            }
            if self.control.paused() {
                // Waiting to be resumed — which never happens after a restart.
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            self.tick();
            self.wait_for_frame();
        }
    }

    /// One step of the falling piece.
    pub fn tick(&mut self) {
        let (piece, plan) = match self.piece {
            Some(current) => current,
            None => match self.spawn() {
                Some(spawned) => spawned,
                None => return self.game_over(),
            },
        };
        let next = if piece.rotation != plan.rotation {
            piece.rotate()
        } else if piece.x < plan.x {
            piece.shift(1)
        } else if piece.x > plan.x {
            piece.shift(-1)
        } else {
            piece.fall()
        };
        if !self.board.collides(&next) {
            self.piece = Some((next, plan));
        } else if next.y != piece.y {
            self.land(&piece);
        } else {
            // Cannot rotate or shift there: give up on the plan and let it fall.
            let plan = Plan {
                rotation: piece.rotation,
                x: piece.x,
            };
            self.piece = Some((piece, plan));
        }
        self.publish_frame();
    }

    fn spawn(&mut self) -> Option<(Piece, Plan)> {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let shape = Shape::ALL[(self.rng % 7) as usize];
        let piece = Piece::spawn(shape, WIDTH);
        if self.board.collides(&piece) {
            return None;
        }
        self.links.pieces.fetch_add(1, Ordering::Relaxed);
        let plan = self.await_plan(&piece).unwrap_or(Plan {
            rotation: 0,
            x: piece.x,
        });
        Some((piece, plan))
    }

    /// Asks the AI thread and waits for its answer.
    fn await_plan(&mut self, piece: &Piece) -> Option<Plan> {
        let (answer, plan) = std::sync::mpsc::channel();
        self.links
            .ai
            .send((self.board.clone(), *piece, answer))
            .ok()?;
        plan.recv_timeout(Duration::from_secs(1)).ok().flatten()
    }

    fn land(&mut self, piece: &Piece) {
        self.board.lock(piece);
        let lines = self.board.clear_lines();
        if lines > 0 {
            let _ = self.links.scores.send(ScoreEvent {
                game: self.number,
                lines,
            });
        }
        self.piece = None;
        if self.board.topped_out() {
            self.game_over();
        }
    }

    fn game_over(&mut self) {
        self.board = Board::new();
        self.piece = None;
    }

    fn publish_frame(&self) {
        let frame = Frame {
            game: self.number,
            board: highrise_agent::alloc_as::<Board, _>(|| self.board.clone()),
            piece: self.piece.map(|(piece, _)| piece),
        };
        if let Ok(mut slot) = self.links.frame.lock() {
            *slot = Some(frame);
        }
    }

    /// Sleeps until the next tick.
    fn wait_for_frame(&self) {
        std::thread::sleep(self.links.tick);
    }
}

/// Runs games one after the other on their own threads.
#[derive(Debug)]
pub struct Session {
    links: Links,
    fixed: bool,
    games: u32,
    current: Option<(Arc<Control>, JoinHandle<()>)>,
    /// Threads of games that were paused and never stopped (the bug).
    pub leaked: Vec<JoinHandle<()>>,
}

#[highrise_agent::profile]
impl Session {
    pub fn new(links: Links, fixed: bool) -> Self {
        let mut session = Self {
            links,
            fixed,
            games: 0,
            current: None,
            leaked: Vec::new(),
        };
        session.start_game();
        session
    }

    fn start_game(&mut self) {
        self.games += 1;
        let number = self.games;
        let control = Arc::new(Control::default());
        let links = self.links.clone();
        let game_control = Arc::clone(&control);
        let spawned = std::thread::Builder::new()
            .name(format!("game-{number}"))
            .spawn(move || Game::new(number, game_control, links).run());
        match spawned {
            Ok(handle) => self.current = Some((control, handle)),
            Err(error) => eprintln!("tetris: cannot start game {number}: {error}"),
        }
    }

    /// Starts a new game. BUG: the old game is only paused, so its thread stays in
    /// `Game::run` forever (unless `--fixed`).
    pub fn restart(&mut self) {
        if let Some((control, handle)) = self.current.take() {
            if self.fixed {
                control.stop();
                let _ = handle.join();
            } else {
                control.pause();
                self.leaked.push(handle);
            }
        }
        self.start_game();
    }

    /// Stops the running game (leaked ones stay where they are).
    pub fn stop(&mut self) {
        if let Some((control, handle)) = self.current.take() {
            control.stop();
            let _ = handle.join();
        }
    }

    pub fn games(&self) -> u32 {
        self.games
    }
}

/// Receives plan requests until every sender is gone.
pub fn serve_plans(requests: Receiver<PlanRequest>) {
    let mut planner = crate::ai::Planner::default();
    for (board, piece, answer) in requests {
        let _ = answer.send(planner.best_move(&board, &piece));
    }
}
