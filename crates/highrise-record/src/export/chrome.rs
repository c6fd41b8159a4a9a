//! Chrome trace events (`B`/`E` per thread), for Perfetto and chrome://tracing.

use std::collections::HashMap;
use std::io::Write;

use super::timeline::*;
use crate::RecordError;

pub(super) fn write_chrome(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    use serde_json::json;
    let (ids, _) = frame_indices(timeline);
    let names: HashMap<u32, (String, String)> = ids
        .iter()
        .map(|&id| {
            let package = timeline
                .methods
                .get(&id)
                .map_or_else(String::new, |m| m.package.clone());
            (id, (timeline.method_name(id), package))
        })
        .collect();
    let us = |ns: u64| (ns - timeline.start_ns) as f64 / 1000.0;
    write!(out, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let mut first = true;
    let mut event = |out: &mut dyn Write, value: serde_json::Value| -> std::io::Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut *out, &value).map_err(std::io::Error::from)
    };
    event(
        &mut out,
        json!({"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
               "args": {"name": timeline.program}}),
    )?;
    for (thread, line) in timeline.threads.iter().enumerate() {
        let tid = thread + 1;
        event(
            &mut out,
            json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                   "args": {"name": line.name}}),
        )?;
        let mut previous: Vec<u32> = Vec::new();
        let mut failed = None;
        timeline.replay(thread, |at, stack, _| {
            if failed.is_some() {
                return;
            }
            let (closed, opened) = stack_change(&previous, stack);
            let ts = us(at);
            let ends = closed.iter().rev().map(|id| ("E", id));
            for (phase, id) in ends.chain(opened.iter().map(|id| ("B", id))) {
                let (name, package) = &names[id];
                if let Err(e) = event(
                    &mut out,
                    json!({"ph": phase, "name": name, "cat": package, "ts": ts, "pid": 1, "tid": tid}),
                ) {
                    failed = Some(e);
                    return;
                }
            }
            previous = stack.to_vec();
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
    }
    writeln!(out, "]}}")?;
    out.flush()?;
    Ok(())
}
