//! pprof's `profile.proto`, gzipped: time, calls and allocations per thread and stack.

use std::collections::HashMap;
use std::io::Write;

use super::timeline::*;
use crate::RecordError;

pub(super) fn write_pprof(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    use crate::pprof::{Function, Label, Line, Location, Profile, Sample, ValueType};
    let mut strings: Vec<String> = vec![String::new()];
    let mut string_ids: HashMap<String, i64> = HashMap::new();
    let mut text = |s: &str| -> i64 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&id) = string_ids.get(s) {
            return id;
        }
        strings.push(s.to_owned());
        string_ids.insert(s.to_owned(), strings.len() as i64 - 1);
        strings.len() as i64 - 1
    };
    let wall = ValueType {
        r#type: text("wall"),
        unit: text("nanoseconds"),
    };
    let mut sample_type = if timeline.exact {
        vec![
            wall.clone(),
            ValueType {
                r#type: text("calls"),
                unit: text("count"),
            },
        ]
    } else {
        vec![
            ValueType {
                r#type: text("samples"),
                unit: text("count"),
            },
            wall.clone(),
        ]
    };
    // Allocations as Go's heap profiles name them, each class a label; frees where counted.
    let allocations = timeline.allocation_totals();
    let freed = allocations.values().any(|t| t.freed_objects > 0);
    if !allocations.is_empty() {
        let mut types = vec![("alloc_objects", "count"), ("alloc_space", "bytes")];
        if freed {
            types.extend([("free_objects", "count"), ("free_space", "bytes")]);
        }
        for (kind, unit) in types {
            sample_type.push(ValueType {
                r#type: text(kind),
                unit: text(unit),
            });
        }
    }
    let values_per_sample = sample_type.len();
    // One function and one location per method; location id = function id = method id + 1.
    let mut ids: Vec<u32> = timeline.methods.keys().copied().collect();
    let totals = timeline.stack_totals();
    for (_, stack) in totals.keys() {
        ids.extend(stack.iter().filter(|id| !timeline.methods.contains_key(id)));
    }
    for (_, stack, _) in allocations.keys() {
        ids.extend(stack.iter().filter(|id| !timeline.methods.contains_key(id)));
    }
    ids.sort_unstable();
    ids.dedup();
    let mut function = Vec::with_capacity(ids.len());
    let mut location = Vec::with_capacity(ids.len());
    for &id in &ids {
        let name = text(&timeline.method_name(id));
        let def = timeline.methods.get(&id);
        let filename = text(def.and_then(|m| m.file.as_deref()).unwrap_or(""));
        let line = def.and_then(|m| m.line).map_or(0, i64::from);
        function.push(Function {
            id: u64::from(id) + 1,
            name,
            system_name: name,
            filename,
            start_line: line,
        });
        location.push(Location {
            id: u64::from(id) + 1,
            line: vec![Line {
                function_id: u64::from(id) + 1,
                line,
                column: 0,
            }],
            ..Location::default()
        });
    }
    let thread_key = text("thread");
    let class_key = text("class");
    let thread_names: Vec<i64> = timeline.threads.iter().map(|t| text(&t.name)).collect();
    let thread_label = |thread: usize| Label {
        key: thread_key,
        str: thread_names[thread],
        ..Label::default()
    };
    let locations = |stack: &[u32]| stack.iter().rev().map(|&id| u64::from(id) + 1).collect();
    let mut totals: Vec<(ThreadStack, StackTotal)> = totals.into_iter().collect();
    totals.sort();
    let mut sample: Vec<Sample> = totals
        .into_iter()
        .filter(|((_, stack), (ns, calls, samples))| {
            !stack.is_empty() && (*ns > 0 || *calls > 0 || *samples > 0)
        })
        .map(|((thread, stack), (ns, calls, samples))| {
            let mut value = if timeline.exact {
                vec![ns as i64, calls as i64]
            } else {
                vec![samples as i64, ns as i64]
            };
            value.resize(values_per_sample, 0);
            Sample {
                location_id: locations(&stack),
                value,
                label: vec![thread_label(thread)],
            }
        })
        .collect();
    let mut allocations: Vec<(AllocationSite, AllocationTotal)> = allocations.into_iter().collect();
    allocations.sort();
    for ((thread, stack, class), total) in allocations {
        let mut value = vec![0; 2];
        value.extend([total.objects as i64, total.bytes as i64]);
        if freed {
            value.extend([total.freed_objects as i64, total.freed_bytes as i64]);
        }
        let class_label = Label {
            key: class_key,
            str: text(&timeline.class_name(class)),
            ..Label::default()
        };
        sample.push(Sample {
            location_id: locations(&stack),
            value,
            label: vec![thread_label(thread), class_label],
        });
    }
    let profile = Profile {
        sample_type,
        sample,
        location,
        function,
        time_nanos: 0,
        duration_nanos: timeline.end_ns.saturating_sub(timeline.start_ns) as i64,
        period_type: Some(wall),
        period: if timeline.exact {
            1
        } else {
            timeline.period_ns as i64
        },
        // The time first in `go tool pprof` and its peers (they default to the last type).
        default_sample_type: text("wall"),
        string_table: strings,
        ..Profile::default()
    };
    out.write_all(&crate::pprof::encode_gzipped(&profile))?;
    out.flush()?;
    Ok(())
}
