//! speedscope's JSON: evented or sampled profiles per thread, allocations as their own.

use std::collections::HashMap;
use std::io::Write;

use super::timeline::*;
use crate::RecordError;

pub(super) fn write_speedscope(
    timeline: &Timeline,
    mut out: impl Write,
) -> Result<(), RecordError> {
    use serde_json::json;
    let (ids, index) = frame_indices(timeline);
    let mut frames: Vec<serde_json::Value> = ids
        .iter()
        .map(|&id| {
            let mut frame = json!({ "name": timeline.method_name(id) });
            if let Some(def) = timeline.methods.get(&id) {
                if let Some(file) = &def.file {
                    frame["file"] = json!(file);
                }
                if let Some(line) = def.line {
                    frame["line"] = json!(line);
                }
            }
            frame
        })
        .collect();
    let mut profiles = Vec::with_capacity(timeline.threads.len());
    for (thread, line) in timeline.threads.iter().enumerate() {
        let mut previous: Vec<u32> = Vec::new();
        let mut start = None;
        let mut end = timeline.start_ns;
        if timeline.exact {
            let mut events = Vec::new();
            timeline.replay(thread, |at, stack, _| {
                start.get_or_insert(at);
                end = at;
                let (closed, opened) = stack_change(&previous, stack);
                for &id in closed.iter().rev() {
                    events.push(json!({ "type": "C", "frame": index[&id], "at": at }));
                }
                for &id in opened {
                    events.push(json!({ "type": "O", "frame": index[&id], "at": at }));
                }
                previous = stack.to_vec();
            });
            profiles.push(json!({
                "type": "evented", "name": line.name, "unit": "nanoseconds",
                "startValue": start.unwrap_or(end), "endValue": end, "events": events,
            }));
        } else {
            let (mut samples, mut weights) = (Vec::new(), Vec::new());
            let mut since = None;
            timeline.replay(thread, |at, stack, _| {
                start.get_or_insert(at);
                end = at;
                match since {
                    // A stack held for no time (an imported allocation's instant) is no sample.
                    Some(since) if at > since => {
                        samples.push(previous.iter().map(|id| index[id]).collect::<Vec<_>>());
                        weights.push(at - since);
                    }
                    _ => {}
                }
                since = Some(at);
                previous = stack.to_vec();
            });
            profiles.push(json!({
                "type": "sampled", "name": line.name, "unit": "nanoseconds",
                "startValue": start.unwrap_or(end), "endValue": end,
                "samples": samples, "weights": weights,
            }));
        }
    }
    // Allocations: a sampled profile per thread that made any, each stack with the class made
    // as its innermost frame (as async-profiler's allocation flame graphs show them), weighed
    // in bytes where they were measured, else in objects.
    let mut allocations: Vec<(AllocationSite, AllocationTotal)> =
        timeline.allocation_totals().into_iter().collect();
    allocations.sort();
    let in_bytes = allocations.iter().any(|(_, total)| total.bytes > 0);
    let mut class_frames: HashMap<u32, usize> = HashMap::new();
    // Sorted by thread first: one run of sites per thread.
    for sites in allocations.chunk_by(|((a, _, _), _), ((b, _, _), _)| a == b) {
        let thread = sites[0].0 .0;
        let (mut samples, mut weights) = (Vec::new(), Vec::new());
        for ((_, stack, class), total) in sites {
            let weight = if in_bytes { total.bytes } else { total.objects };
            if weight == 0 {
                continue;
            }
            let class_frame = *class_frames.entry(*class).or_insert_with(|| {
                frames.push(json!({ "name": timeline.class_name(*class) }));
                frames.len() - 1
            });
            let mut sample: Vec<usize> = stack.iter().map(|id| index[id]).collect();
            sample.push(class_frame);
            samples.push(sample);
            weights.push(weight);
        }
        if samples.is_empty() {
            continue;
        }
        let total: u64 = weights.iter().sum();
        let (what, unit) = if in_bytes {
            ("allocated bytes", "bytes")
        } else {
            ("allocated objects", "none")
        };
        profiles.push(json!({
            "type": "sampled", "name": format!("{}: {what}", timeline.threads[thread].name), "unit": unit,
            "startValue": 0, "endValue": total, "samples": samples, "weights": weights,
        }));
    }
    let file = json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": { "frames": frames },
        "profiles": profiles,
        "name": timeline.program,
        "activeProfileIndex": 0,
        "exporter": format!("highrise {}", env!("CARGO_PKG_VERSION")),
    });
    serde_json::to_writer(&mut out, &file).map_err(std::io::Error::from)?;
    out.flush()?;
    Ok(())
}
