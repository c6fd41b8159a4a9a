//! Folded (collapsed) stacks: `frame;frame;frame COUNT` lines ([`Folded`]).

use std::collections::HashMap;

use highrise_record::RecordError;

use crate::format::{invalid, Input};
use crate::importer::{Imported, Importer};
use crate::naming::split_located;
use crate::profile::{spread, Profile, FOLDED_PERIOD_NS};

pub(crate) fn parse_folded(mut input: impl std::io::BufRead) -> Result<Profile, RecordError> {
    type Fast = foldhash::fast::RandomState;
    let mut profile = Profile {
        producer: "folded stacks".into(),
        period_ns: FOLDED_PERIOD_NS,
        ..Profile::default()
    };
    // Read line by line, the same stack's lines summed: memory grows with the distinct
    // stacks, not with the file. Keys are [thread, frames…], looked up by slice, and each
    // frame's text is looked up as written: a line already seen allocates nothing.
    let mut counts: HashMap<Vec<u32>, u64, Fast> = HashMap::default();
    let mut frame_ids: HashMap<String, u32, Fast> = HashMap::default();
    let mut line = String::new();
    let mut key: Vec<u32> = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.trim_end();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let (stack, count) = text
            .rsplit_once(' ')
            .ok_or_else(|| invalid(format!("line {number}: no sample count")))?;
        let count: f64 = count
            .parse()
            .map_err(|_| invalid(format!("line {number}: {count:?} is not a count")))?;
        let count = count.max(0.0).round() as u64;
        if count == 0 {
            continue;
        }
        let mut frames = stack.split(';').filter(|f| !f.is_empty()).peekable();
        let thread = match frames.peek() {
            Some(first) if first.starts_with("thread (") || first.starts_with("process ") => {
                let name = frames.next().unwrap_or_default();
                profile.thread(name)
            }
            _ => profile.thread("main"),
        };
        key.clear();
        key.push(thread);
        for frame in frames {
            let id = match frame_ids.get(frame) {
                Some(&id) => id,
                None => {
                    let (name, file) = split_located(frame);
                    let id = profile.frame(name, file);
                    frame_ids.insert(frame.to_owned(), id);
                    id
                }
            };
            key.push(id);
        }
        match counts.get_mut(key.as_slice()) {
            Some(total) => *total = total.saturating_add(count),
            None => {
                counts.insert(key.clone(), count);
            }
        }
    }
    let counts = counts
        .into_iter()
        .map(|(key, count)| ((key[0], key[1..].to_vec()), count))
        .collect();
    spread(&mut profile, counts)?;
    Ok(profile)
}

/// Folded stacks ([`ProfileFormat::Folded`]).
pub(crate) struct Folded;

impl Importer for Folded {
    fn detects(&self, start: &[u8]) -> bool {
        // The first non-empty line looks like `a;b 12` (py-spy writes ` 1` for a sample with
        // no Python frame); `start` may end mid-line. JSON is not folded.
        let text = String::from_utf8_lossy(start);
        if text.trim_start().starts_with('{') {
            return false;
        }
        let complete = start.len() < 4096 || text.contains('\n');
        let Some(line) = text.lines().find(|line| !line.trim().is_empty()) else {
            return false;
        };
        let Some((stack, count)) = line.trim_end().rsplit_once(' ') else {
            return false;
        };
        complete
            && count.parse::<f64>().is_ok_and(|c| c >= 0.0)
            && (stack.is_empty()
                || stack.contains(';')
                || !stack.contains(' ')
                || stack.ends_with(')'))
            && !line.contains('\0')
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        Ok(Imported::Samples(Box::new(parse_folded(input.stream()?)?)))
    }
}
