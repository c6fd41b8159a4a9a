//! The scoreboard: collects cleared lines from every game and publishes a summary every
//! second (formatting and checksumming it, as if for an upload).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Lines cleared by one game.
#[derive(Debug, Clone, Copy)]
pub struct ScoreEvent {
    pub game: u32,
    pub lines: u32,
}

#[derive(Debug, Default)]
pub struct Scoreboard {
    totals: Vec<(u32, u64)>,
    pub published: u64,
}

#[highrise_agent::profile]
impl Scoreboard {
    pub fn record(&mut self, event: ScoreEvent) {
        match self.totals.iter_mut().find(|(game, _)| *game == event.game) {
            Some((_, lines)) => *lines += u64::from(event.lines),
            None => self.totals.push((event.game, u64::from(event.lines))),
        }
    }

    pub fn publish(&mut self) -> u64 {
        let text: String = self
            .totals
            .iter()
            .map(|(game, lines)| format!("{{\"game\":{game},\"lines\":{lines}}}"))
            .collect::<Vec<_>>()
            .join(",");
        self.published += 1;
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
        })
    }

    pub fn total_lines(&self) -> u64 {
        self.totals.iter().map(|(_, lines)| lines).sum()
    }
}

/// The scoreboard thread's body: until every game is gone.
pub fn score_loop(events: Receiver<ScoreEvent>) -> u64 {
    let mut board = Scoreboard::default();
    let mut last_publish = Instant::now();
    loop {
        match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => board.record(event),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return board.total_lines(),
        }
        if last_publish.elapsed() >= Duration::from_secs(1) {
            board.publish();
            last_publish = Instant::now();
        }
    }
}
