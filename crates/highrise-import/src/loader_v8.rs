//! V8 CPU profiles (`.cpuprofile` JSON: Node's `--cpu-prof`, Chrome DevTools; [`CpuProfile`]).

use std::collections::HashMap;

use highrise_record::RecordError;

use crate::format::{invalid, text_start, Input};
use crate::importer::{Imported, Importer};
use crate::profile::{Profile, Stack, FOLDED_PERIOD_NS};

pub(crate) fn parse_cpuprofile(text: &str) -> Result<Profile, RecordError> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("cpuprofile JSON: {e}")))?;
    let nodes = json
        .get("nodes")
        .and_then(|n| n.as_array())
        .ok_or_else(|| invalid("cpuprofile: no nodes"))?;
    let mut profile = Profile {
        producer: "v8 cpu profile".into(),
        ..Profile::default()
    };
    // Each node's frame (None: the root and idle time) and parent, by node id.
    let mut frame_of: HashMap<u64, Option<u32>> = HashMap::new();
    let mut parent_of: HashMap<u64, u64> = HashMap::new();
    for node in nodes {
        let Some(id) = node.get("id").and_then(|i| i.as_u64()) else {
            continue;
        };
        let call = node.get("callFrame");
        let field = |name: &str| call.and_then(|c| c.get(name)).and_then(|v| v.as_str());
        let function = field("functionName").unwrap_or("");
        let url = field("url").unwrap_or("");
        let frame = match function {
            "(root)" | "(idle)" => None,
            "(program)" | "(garbage collector)" => Some(profile.frame(function, Some("js:v8"))),
            "" => Some(profile.frame("(anonymous)", Some(&format!("js:{url}")))),
            _ => Some(profile.frame(function, Some(&format!("js:{url}")))),
        };
        frame_of.insert(id, frame);
        for child in node
            .get("children")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(child) = child.as_u64() {
                parent_of.insert(child, id);
            }
        }
    }
    let empty = Vec::new();
    let samples = json
        .get("samples")
        .and_then(|s| s.as_array())
        .unwrap_or(&empty);
    let deltas = json.get("timeDeltas").and_then(|d| d.as_array());
    let thread = profile.thread("main");
    let mut at_us = 0i64;
    let mut gaps = Vec::new();
    let mut stacks: HashMap<u64, Stack> = HashMap::new();
    for (index, sample) in samples.iter().enumerate() {
        let delta = deltas
            .and_then(|d| d.get(index))
            .and_then(|d| d.as_i64())
            .unwrap_or(0)
            .max(0);
        if index > 0 {
            gaps.push(delta as u64);
        }
        at_us = at_us.saturating_add(delta);
        let Some(node) = sample.as_u64() else {
            continue;
        };
        let stack = stacks
            .entry(node)
            .or_insert_with(|| {
                // Outermost first: walk up to the root (at most as many steps as nodes).
                let mut stack = Vec::new();
                let mut at = Some(node);
                for _ in 0..=nodes.len() {
                    let Some(id) = at else { break };
                    if let Some(Some(frame)) = frame_of.get(&id) {
                        stack.push(*frame);
                    }
                    at = parent_of.get(&id).copied();
                }
                stack.reverse();
                Stack::from(stack)
            })
            .clone();
        profile.samples.push((
            thread,
            u64::try_from(at_us).unwrap_or(0).saturating_mul(1000),
            stack,
        ));
    }
    if profile.samples.is_empty() {
        return Err(invalid("cpuprofile: no samples"));
    }
    gaps.sort_unstable();
    profile.period_ns = gaps
        .get(gaps.len() / 2)
        .map_or(FOLDED_PERIOD_NS, |&gap| gap.saturating_mul(1000).max(1));
    Ok(profile)
}

/// V8 CPU profiles ([`ProfileFormat::CpuProfile`]).
pub(crate) struct CpuProfile;

impl Importer for CpuProfile {
    fn detects(&self, start: &[u8]) -> bool {
        let text = text_start(start);
        text.starts_with('{') && text.contains("\"nodes\"") && text.contains("\"callFrame\"")
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        let bytes = input.bytes()?;
        let text = std::str::from_utf8(&bytes).map_err(|e| invalid(format!("not UTF-8: {e}")))?;
        Ok(Imported::Samples(Box::new(parse_cpuprofile(text)?)))
    }
}
