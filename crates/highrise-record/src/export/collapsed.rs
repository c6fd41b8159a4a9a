//! Collapsed stacks (`a;b;c N`), as py-spy and inferno read them.

use std::collections::HashMap;
use std::io::Write;

use super::timeline::*;
use crate::RecordError;

pub(super) fn write_collapsed(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    let names: HashMap<u32, String> = timeline
        .methods
        .keys()
        .map(|&id| (id, timeline.method_name(id).replace([';', '\n'], ":")))
        .collect();
    let name = |id: &u32| {
        names
            .get(id)
            .cloned()
            .unwrap_or_else(|| timeline.method_name(*id))
    };
    let mut lines: Vec<(String, u64)> = timeline
        .stack_totals()
        .into_iter()
        .filter_map(|((thread, stack), (ns, _calls, samples))| {
            let weight = if timeline.exact {
                (ns + 500) / 1000
            } else {
                samples
            };
            let mut frames: Vec<String> = stack.iter().map(name).collect();
            if timeline.threads.len() > 1 {
                let thread_name = timeline.threads[thread].name.replace([';', '\n'], ":");
                frames.insert(0, format!("thread ({thread_name})"));
            }
            (weight > 0).then(|| (frames.join(";"), weight))
        })
        .collect();
    lines.sort();
    for (stack, weight) in lines {
        writeln!(out, "{stack} {weight}")?;
    }
    out.flush()?;
    Ok(())
}
