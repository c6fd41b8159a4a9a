//! The class diagram of a recorded run (Murphy & Saenko 1998, section 3.1 and 5.2): the
//! classes the agent reported relations for (Java bytecode: superclass, interfaces, fields;
//! Python: bases and observed instance attributes), annotated with objects created, bytes and
//! size, and for each association the **multiplicity** from where objects are made: how many
//! objects of the target class (or its subclasses) are created with each object of the
//! source, per call ([`highrise_aggregate::Multiplicities`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use highrise_aggregate::{Multiplicities, PartsPerOwner};
use highrise_ingest::SessionSink;
use highrise_protocol::{ClassRelation, Event, EventKind, MemoryAmount, MethodDef, RelationKind};
use serde::Serialize;

use crate::summary::{name_or_id, replay_into, ReportError};

/// One class of the diagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagramClass {
    /// As people read it (`package.Name`).
    pub class: String,
    /// Objects created over the whole run, and their bytes.
    pub created: u64,
    pub created_bytes: u64,
    /// Mean shallow size of one, in bytes (0 when none was created).
    pub mean_size_bytes: f64,
}

/// One relation of the diagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagramRelation {
    pub from: String,
    pub to: String,
    /// `extends`, `implements` or `field`.
    pub kind: &'static str,
    /// The field (attribute) for a `field` relation; empty otherwise.
    pub field: String,
    /// The field holds a collection of them.
    pub many: bool,
    /// For a field: objects of `to` (and its subclasses) created with each `from` object, on
    /// average; `None` when no `from` object was created.
    pub per_owner: Option<f64>,
    /// The most per owner in one call that created owners.
    pub max_per_owner: Option<f64>,
    /// `from` objects created, the `to` objects created in their contexts, and all `to`
    /// objects created (so `parts / parts_total` says how many of them the multiplicity
    /// accounts for).
    pub owners: u64,
    pub parts: u64,
    pub parts_total: u64,
}

/// The class diagram of one recording.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ClassDiagram {
    /// Every class a relation names, by name.
    pub classes: Vec<DiagramClass>,
    /// Fields first (by objects made with each owner, most first), then supertypes.
    pub relations: Vec<DiagramRelation>,
}

impl ClassDiagram {
    /// The classes with objects made, most bytes first (then by name).
    pub fn classes_by_bytes(&self) -> Vec<&DiagramClass> {
        let mut ranked: Vec<&DiagramClass> = self
            .classes
            .iter()
            .filter(|class| class.created > 0)
            .collect();
        ranked.sort_by(|a, b| {
            b.created_bytes
                .cmp(&a.created_bytes)
                .then_with(|| a.class.cmp(&b.class))
        });
        ranked
    }

    /// What a window can show of a real program's hundreds of classes: the `most` classes
    /// whose objects took the most bytes, the types their fields' objects were counted under
    /// when those have none of their own (an interface or abstract base: `Proc.body → Node`;
    /// at most `most / 2` of them, those claiming the most objects first), and the relations
    /// among them. Order as in `self`.
    pub fn focus(&self, most: usize) -> ClassDiagram {
        let heavy: BTreeSet<&str> = self
            .classes_by_bytes()
            .into_iter()
            .take(most)
            .map(|class| class.class.as_str())
            .collect();
        let mut targets: BTreeMap<&str, u64> = BTreeMap::new();
        for relation in &self.relations {
            if relation.kind == "field"
                && relation.parts > 0
                && heavy.contains(relation.from.as_str())
                && !heavy.contains(relation.to.as_str())
            {
                *targets.entry(relation.to.as_str()).or_default() += relation.parts;
            }
        }
        let mut targets: Vec<(&str, u64)> = targets.into_iter().collect();
        targets.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut keep = heavy;
        keep.extend(targets.iter().take(most / 2).map(|(class, _)| *class));
        ClassDiagram {
            classes: self
                .classes
                .iter()
                .filter(|class| keep.contains(class.class.as_str()))
                .cloned()
                .collect(),
            relations: self
                .relations
                .iter()
                .filter(|r| keep.contains(r.from.as_str()) && keep.contains(r.to.as_str()))
                .cloned()
                .collect(),
        }
    }
}

fn kind_name(kind: RelationKind) -> &'static str {
    match kind {
        RelationKind::Extends => "extends",
        RelationKind::Implements => "implements",
        RelationKind::Field => "field",
    }
}

/// Replays the recording at `path` a second time, now that its relations are known, and
/// builds the diagram: every class a relation names with its objects created, each relation,
/// and for each field the objects of its class (and subclasses) made with each owner object.
/// `names`: each class id's display name.
pub fn class_diagram(
    path: &Path,
    names: &HashMap<u32, String>,
    relations: &[ClassRelation],
) -> Result<ClassDiagram, ReportError> {
    let name_of = |id: u32| name_or_id(names, id);
    // Subtypes, so a field of an interface's type counts its implementations' objects.
    let mut subtypes: HashMap<u32, Vec<u32>> = HashMap::new();
    for relation in relations {
        if relation.kind != RelationKind::Field {
            subtypes
                .entry(relation.to_class)
                .or_default()
                .push(relation.from_class);
        }
    }
    let with_subtypes = |class_id: u32| {
        let mut seen: BTreeSet<u32> = BTreeSet::from([class_id]);
        let mut todo = vec![class_id];
        while let Some(next) = todo.pop() {
            for &sub in subtypes.get(&next).map_or(&[][..], Vec::as_slice) {
                if seen.insert(sub) {
                    todo.push(sub);
                }
            }
        }
        seen.into_iter().collect::<Vec<u32>>()
    };
    let fields: Vec<&ClassRelation> = relations
        .iter()
        .filter(|relation| relation.kind == RelationKind::Field)
        .collect();
    let counted_relations: Vec<(u32, Vec<u32>)> = fields
        .iter()
        .map(|relation| (relation.from_class, with_subtypes(relation.to_class)))
        .collect();
    let (mut processor, _) = replay_into(path, move |_hello| {
        CountingSink::new(Multiplicities::new(counted_relations.clone()))
    })?;
    let sink = processor.sink_mut().ok_or_else(|| ReportError::NoSession {
        path: path.to_path_buf(),
    })?;
    let created = std::mem::take(&mut sink.created);
    let counter = std::mem::replace(&mut sink.counter, Multiplicities::new(Vec::new()));
    let counted: HashMap<&ClassRelation, PartsPerOwner> =
        fields.iter().copied().zip(counter.finish()).collect();

    let mut rows: Vec<DiagramRelation> = relations
        .iter()
        .map(|relation| {
            let found = counted.get(relation).copied().unwrap_or_default();
            DiagramRelation {
                from: name_of(relation.from_class),
                to: name_of(relation.to_class),
                kind: kind_name(relation.kind),
                field: relation.field.clone(),
                many: relation.many,
                per_owner: found.per_owner(),
                max_per_owner: (found.owners > 0).then_some(found.max_per_owner),
                owners: found.owners,
                parts: found.parts,
                parts_total: found.parts_total,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.kind != "field")
            .cmp(&(b.kind != "field"))
            .then(
                b.per_owner
                    .unwrap_or(-1.0)
                    .total_cmp(&a.per_owner.unwrap_or(-1.0)),
            )
            .then_with(|| (&a.from, &a.to, &a.field).cmp(&(&b.from, &b.to, &b.field)))
    });
    let mut by_name: BTreeMap<String, DiagramClass> = BTreeMap::new();
    for relation in relations {
        for class_id in [relation.from_class, relation.to_class] {
            let (count, bytes) = created.get(&class_id).copied().unwrap_or_default();
            by_name
                .entry(name_of(class_id))
                .or_insert_with(|| DiagramClass {
                    class: name_of(class_id),
                    created: count,
                    created_bytes: bytes,
                    mean_size_bytes: if count == 0 {
                        0.0
                    } else {
                        bytes as f64 / count as f64
                    },
                });
        }
    }
    Ok(ClassDiagram {
        classes: by_name.into_values().collect(),
        relations: rows,
    })
}

/// The second replay: objects created per class, and the multiplicities.
struct CountingSink {
    counter: Multiplicities,
    created: HashMap<u32, (u64, u64)>,
}

impl CountingSink {
    fn new(counter: Multiplicities) -> Self {
        Self {
            counter,
            created: HashMap::new(),
        }
    }
}

impl SessionSink for CountingSink {
    type Snapshot = ();
    type Command = ();

    fn define_methods(&mut self, _definitions: &[MethodDef]) {}
    fn thread_started(&mut self, _thread_id: u64, _name: &str, _timestamp_ns: u64) {}
    fn thread_ended(&mut self, thread_id: u64, _timestamp_ns: u64) {
        self.counter.thread_ended(thread_id);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.counter.apply(thread_id, events, &[]);
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        self.counter.apply(thread_id, events, amounts);
        let mut amounts = amounts.iter();
        for event in events
            .iter()
            .filter(|event| event.kind == EventKind::Memory)
        {
            match amounts.next() {
                Some(amount) if !amount.free => {
                    let sums = self.created.entry(event.method_id).or_default();
                    sums.0 += amount.count;
                    sums.1 += amount.bytes;
                }
                Some(_) => {}
                None => break,
            }
        }
    }
    fn resync(&mut self, thread_id: u64, _timestamp_ns: u64, stack: &[u32]) {
        self.counter.resync(thread_id, stack);
    }
    fn heartbeat(&mut self, _timestamp_ns: u64) {}
    fn command(&mut self, _command: ()) {}
    fn snapshot(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, created: u64, size: u64) -> DiagramClass {
        DiagramClass {
            class: name.into(),
            created,
            created_bytes: created * size,
            mean_size_bytes: size as f64,
        }
    }

    fn relation(from: &str, kind: &'static str, to: &str, parts: u64) -> DiagramRelation {
        DiagramRelation {
            from: from.into(),
            to: to.into(),
            kind,
            field: if kind == "field" {
                "f".into()
            } else {
                String::new()
            },
            many: false,
            per_owner: None,
            max_per_owner: None,
            owners: 1,
            parts,
            parts_total: parts,
        }
    }

    #[test]
    fn focus_keeps_the_heaviest_classes_and_the_abstract_types_their_fields_count() {
        // Alphabetical, as class_diagram gives them: Body and Name heavy, Node abstract (no
        // objects of its own) but Body's field counts 40 of its subclasses' objects; Idle none.
        let diagram = ClassDiagram {
            classes: vec![
                class("a.Body", 10, 64),
                class("a.Idle", 0, 0),
                class("a.Name", 100, 32),
                class("a.Node", 0, 0),
                class("a.Tiny", 1, 16),
            ],
            relations: vec![
                relation("a.Body", "field", "a.Node", 40),
                relation("a.Body", "field", "a.Tiny", 0),
                relation("a.Name", "extends", "a.Node", 0),
                relation("a.Idle", "field", "a.Name", 0),
                relation("a.Tiny", "extends", "a.Node", 0),
            ],
        };
        let focused = diagram.focus(2);
        let names: Vec<&str> = focused.classes.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(names, ["a.Body", "a.Name", "a.Node"]);
        let kept: Vec<(&str, &str)> = focused
            .relations
            .iter()
            .map(|r| (r.from.as_str(), r.to.as_str()))
            .collect();
        assert_eq!(kept, [("a.Body", "a.Node"), ("a.Name", "a.Node")]);
        // Room for all: every class with objects, plus Node; never Idle (none made, no parts).
        assert_eq!(diagram.focus(10).classes.len(), 4);
        // `most` 1 leaves no room for abstract targets (most / 2 = 0).
        assert_eq!(diagram.focus(1).classes.len(), 1);
    }
}
