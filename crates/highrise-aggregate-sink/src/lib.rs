//! `highrise-aggregate-sink`: the product's sink. Each of ingest's sessions feeds a
//! [`highrise_aggregate::Aggregator`] on the session's worker thread, and every report carries
//! its latest [`Snapshot`]. Ingest is transport and the session runtime, generic over its sink;
//! who aggregates is the caller's choice, and the viewer, `serve`, the web page, the report and
//! the OTLP bridge choose this one: `IngestServer::<AggregateSink>::start(config,
//! AggregateSink::factory())`.
//!
//! Where to start: [`AggregateSink`] (the [`SessionSink`] it implements), [`AggregateCommand`]
//! (what a consumer changes in a live session's aggregator).

use std::sync::Arc;

use highrise_aggregate::{Aggregator, AggregatorConfig, Snapshot};
use highrise_protocol::{Event, Hello, MemoryAmount, MethodDef};

use highrise_ingest::SessionSink;

/// What a consumer can change in a live session's aggregator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggregateCommand {
    /// New window length (clamped to 0.5 s ..= 60 s by the aggregator).
    SetWindow { window_ns: u64 },
    /// Methods whose time goes to their nearest non-excluded caller (replaces the set).
    ExcludeMethods(Vec<u32>),
    /// Packages (and their sub-packages) excluded the same way (replaces the set).
    ExcludePackages(Vec<String>),
    /// Later snapshots carry this method's statistics per thread ([`Snapshot::focus`]);
    /// `None` stops them. The viewer focuses the hovered building.
    Focus(Option<u32>),
}

/// A [`SessionSink`] that aggregates.
#[derive(Debug)]
pub struct AggregateSink {
    aggregator: Aggregator,
    /// The last published snapshot; its buffers are reused once the consumer lets go of it.
    published: Arc<Snapshot>,
    /// The calling-context tree as last attached to a snapshot: (tree generation, when, tree).
    contexts: Option<(
        u64,
        std::time::Instant,
        Arc<highrise_aggregate::ContextTree>,
    )>,
    /// The call edges as last attached, and when.
    edges: Option<(std::time::Instant, Arc<highrise_aggregate::CallEdges>)>,
    /// The session ended: the next snapshot carries the final tree whatever the interval.
    ended: bool,
}

/// How often at most a snapshot carries a fresh calling-context tree (its export is linear in
/// its nodes).
pub const CONTEXTS_PUBLISH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(500);

/// The node cap of the viewer's calling-context trees (about 23 MiB each at the cap).
pub const VIEWER_MAX_CONTEXT_NODES: u32 = 200_000;

impl AggregateSink {
    /// The aggregator (read-only), e.g. to sample snapshots at chosen program times.
    pub fn aggregator(&self) -> &Aggregator {
        &self.aggregator
    }

    /// The aggregator, e.g. to take a snapshot without publishing it.
    pub fn aggregator_mut(&mut self) -> &mut Aggregator {
        &mut self.aggregator
    }

    /// A sink with the given aggregator configuration.
    pub fn new(config: AggregatorConfig) -> Self {
        Self {
            aggregator: Aggregator::new(config),
            published: Arc::default(),
            contexts: None,
            edges: None,
            ended: false,
        }
    }

    /// A factory for [`highrise_ingest::IngestServer::start`] with the default configuration.
    pub fn factory(_hello: &Hello) -> Self {
        Self::new(AggregatorConfig::default())
    }

    /// A factory whose sessions keep their calling-context tree (up to
    /// [`VIEWER_MAX_CONTEXT_NODES`] nodes) and publish it with their snapshots: the viewer's
    /// allocation-site view and live call tree.
    pub fn factory_with_contexts(_hello: &Hello) -> Self {
        Self::new(AggregatorConfig {
            contexts: true,
            max_context_nodes: VIEWER_MAX_CONTEXT_NODES,
            ..AggregatorConfig::default()
        })
    }
}

impl SessionSink for AggregateSink {
    type Snapshot = Arc<Snapshot>;
    type Command = AggregateCommand;

    fn define_methods(&mut self, definitions: &[MethodDef]) {
        for definition in definitions {
            self.aggregator
                .define_method(definition.id, &definition.package);
        }
    }

    fn thread_started(&mut self, thread_id: u64, _name: &str, timestamp_ns: u64) {
        self.aggregator.thread_started(thread_id, timestamp_ns);
    }

    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.aggregator.thread_ended(thread_id, timestamp_ns);
    }

    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.aggregator.apply_events(thread_id, events);
    }

    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        self.aggregator.apply_records(thread_id, events, amounts);
    }

    fn memory_dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        self.aggregator
            .agent_memory_dropped(allocations, bytes, frees);
    }

    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.aggregator.resync(thread_id, timestamp_ns, stack);
    }

    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.aggregator.advance_to(timestamp_ns);
    }

    fn agent_dropped(&mut self, events_dropped: u64, _batches_dropped: u64) {
        self.aggregator.agent_dropped(events_dropped);
    }

    fn command(&mut self, command: AggregateCommand) {
        match command {
            AggregateCommand::SetWindow { window_ns } => self.aggregator.set_window_ns(window_ns),
            AggregateCommand::ExcludeMethods(method_ids) => {
                self.aggregator.set_excluded_methods(&method_ids)
            }
            AggregateCommand::ExcludePackages(packages) => {
                self.aggregator.set_excluded_packages(&packages)
            }
            AggregateCommand::Focus(method_id) => self.aggregator.set_focus(method_id),
        }
    }

    fn open_stacks(&self) -> Vec<(u64, Vec<u32>)> {
        self.aggregator.open_stacks()
    }

    fn session_ended(&mut self) {
        self.ended = true;
    }

    fn snapshot(&mut self) -> Arc<Snapshot> {
        match Arc::get_mut(&mut self.published) {
            Some(reusable) => self.aggregator.snapshot_into(reusable),
            None => self.published = Arc::new(self.aggregator.snapshot()),
        }
        if let Some(generation) = self.aggregator.contexts_generation() {
            let now = std::time::Instant::now();
            let stale = self.contexts.as_ref().is_none_or(|(published, at, _)| {
                *published != generation
                    && (self.ended || now.duration_since(*at) >= CONTEXTS_PUBLISH_INTERVAL)
            });
            if stale {
                let tree = self.aggregator.contexts().unwrap_or_default();
                self.contexts = Some((generation, now, Arc::new(tree)));
            }
            // Edges every interval even when the tree is unchanged: their recent calls fall
            // when the program goes quiet.
            let edges_stale = self.edges.as_ref().is_none_or(|(at, _)| {
                self.ended || now.duration_since(*at) >= CONTEXTS_PUBLISH_INTERVAL
            });
            if edges_stale {
                let edges = self.aggregator.call_edges().unwrap_or_default();
                self.edges = Some((now, Arc::new(edges)));
            }
            // Not shared yet (it was just written), so this copies nothing.
            let published = Arc::make_mut(&mut self.published);
            published.contexts = self.contexts.as_ref().map(|(_, _, tree)| Arc::clone(tree));
            published.edges = self.edges.as_ref().map(|(_, edges)| Arc::clone(edges));
        }
        Arc::clone(&self.published)
    }
}
