//! Input without a keyboard: a script of commands (from a file or stdin) and timed restarts.
//!
//! Script lines: `restart`, `wait <seconds>`, `quit`; blank lines and `#` comments are
//! ignored.

use std::io::BufRead;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// What the player asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    Restart,
    Wait(Duration),
    Quit,
}

/// Parses one script line.
pub fn parse_line(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    match (words.next(), words.next()) {
        (Some("restart"), None) => Ok(Some(Command::Restart)),
        (Some("quit"), None) => Ok(Some(Command::Quit)),
        (Some("wait"), Some(seconds)) => seconds
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Some(Command::Wait(Duration::from_secs_f64(s))))
            .ok_or_else(|| format!("bad wait: {line}")),
        _ => Err(format!(
            "unknown command: {line} (expected restart, wait <s>, quit)"
        )),
    }
}

/// Where commands come from.
#[derive(Debug)]
pub struct Input {
    script: Option<Receiver<Command>>,
    waiting_until: Option<Instant>,
    restart_every: Option<Duration>,
    next_restart: Option<Instant>,
}

#[highrise_agent::profile]
impl Input {
    pub fn new(script: Option<Receiver<Command>>, restart_every: Option<Duration>) -> Self {
        Self {
            script,
            waiting_until: None,
            restart_every,
            next_restart: restart_every.map(|every| Instant::now() + every),
        }
    }

    /// The next command due now, if any.
    pub fn poll(&mut self) -> Option<Command> {
        let now = Instant::now();
        if let (Some(at), Some(every)) = (self.next_restart, self.restart_every) {
            if now >= at {
                self.next_restart = Some(at + every);
                return Some(Command::Restart);
            }
        }
        if self.waiting_until.is_some_and(|until| now < until) {
            return None;
        }
        self.waiting_until = None;
        let script = self.script.as_ref()?;
        match script.try_recv() {
            Ok(Command::Wait(duration)) => {
                self.waiting_until = Some(now + duration);
                None
            }
            Ok(command) => Some(command),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.script = None;
                None
            }
        }
    }
}

/// Reads a script (a file, or `-` for stdin) on its own thread, line by line.
pub fn read_script(source: &str) -> std::io::Result<Receiver<Command>> {
    let reader: Box<dyn BufRead + Send> = if source == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(source)?))
    };
    let (commands, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("script".into())
        .spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { break };
                match parse_line(&line) {
                    Ok(Some(command)) => {
                        if commands.send(command).is_err() {
                            break;
                        }
                    }
                    Ok(None) => {}
                    Err(error) => eprintln!("tetris: {error}"),
                }
            }
        })?;
    Ok(receiver)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_lines_parse() {
        assert_eq!(parse_line("restart"), Ok(Some(Command::Restart)));
        assert_eq!(
            parse_line(" wait 1.5 "),
            Ok(Some(Command::Wait(Duration::from_millis(1500))))
        );
        assert_eq!(parse_line("# comment"), Ok(None));
        assert_eq!(parse_line("quit"), Ok(Some(Command::Quit)));
        assert!(parse_line("jump").is_err());
        assert!(parse_line("wait -1").is_err());
    }
}
