//! The allocation-site tree as the viewer lays it out (Fernandez Blanco et al. 2018, Figure 1):
//! a session's calling-context tree ([`ContextTree`]) reduced to the contexts that create
//! objects directly or through their callees (or, showing time, every context), placed
//! horizontally — roots left, callees right, branches top to bottom in order of first call,
//! each parent level with its first child. The CCT already unites sibling branches of the same
//! method (the paper's merged branches). Excluded classes are left out of every number, and
//! branches left without objects are pruned. Plain data, built once per tree change; the egui
//! view (`ui::sites`) draws only what is on screen.

use std::collections::BTreeSet;

use highrise_aggregate::ContextTree;

/// What the tree shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SitesShow {
    /// Contexts that create objects; node colour by bytes (the paper's view).
    #[default]
    Allocations,
    /// Every context; node colour by time (a live call tree).
    Time,
}

/// One shown context.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteNode {
    /// Its node in the [`ContextTree`].
    pub context: u32,
    /// The method (`highrise_aggregate::OTHER_CONTEXTS` for "(other contexts)").
    pub method_id: u32,
    /// Its parent among the shown nodes (`None` for roots: each thread's outermost methods).
    pub parent: Option<u32>,
    /// Column: 0 for roots.
    pub column: u16,
    /// Row of its top edge (leaves take one row each; a parent stands level with its first
    /// child).
    pub row: u32,
    /// Calls through this context.
    pub calls: u64,
    /// Time in this context's frames, callees included.
    pub time_ns: u64,
    /// Objects (and their bytes) created here and in callees, excluded classes left out.
    pub count: u64,
    pub bytes: u64,
    /// Per class created here (the paper's inner boxes): (class id, count, bytes), most first.
    pub direct: Vec<(u32, u64, u64)>,
    /// Per class created here or in callees: (class id, count, bytes), by class id.
    pub inclusive: Vec<(u32, u64, u64)>,
}

impl SiteNode {
    /// True when this context or a callee creates `class_id` (the class list's highlight).
    pub fn creates(&self, class_id: u32) -> bool {
        self.inclusive
            .binary_search_by_key(&class_id, |&(id, _, _)| id)
            .is_ok()
    }
}

/// One class of the class list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteClass {
    pub class_id: u32,
    pub count: u64,
    pub bytes: u64,
    pub excluded: bool,
}

/// The laid-out tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteTree {
    /// In depth-first order (children after their parent, in order of first call).
    pub nodes: Vec<SiteNode>,
    pub rows: u32,
    pub columns: u16,
    /// The largest values over the shown nodes (colour and width scales).
    pub max_bytes: u64,
    /// The fewest bytes of a shown node that created any (the cold end of the colour scale).
    pub min_bytes: u64,
    pub max_time_ns: u64,
    /// The least time of a shown node with any (the cold end when showing time).
    pub min_time_ns: u64,
    pub max_calls: u64,
    pub max_direct_count: u64,
    /// Every class created in the tree, most instances first (excluded ones too, marked).
    pub classes: Vec<SiteClass>,
    /// Nodes of the whole tree, and whether its node cap was reached (calls then went to
    /// "(other contexts)" nodes).
    pub context_nodes: usize,
    pub capped_calls: u64,
}

/// Lays out `tree` for `show`, leaving `excluded` classes out.
pub fn site_tree(tree: &ContextTree, show: SitesShow, excluded: &BTreeSet<u32>) -> SiteTree {
    let count = tree.nodes.len();
    // Parents from the preorder depths.
    let mut parent = vec![u32::MAX; count];
    let mut last_at_depth: Vec<u32> = Vec::new();
    for (index, node) in tree.nodes.iter().enumerate() {
        let depth = usize::from(node.depth);
        last_at_depth.truncate(depth);
        if depth > 0 {
            parent[index] = last_at_depth.get(depth - 1).copied().unwrap_or(0);
        }
        last_at_depth.push(index as u32);
    }
    // Inclusive amounts per class, children folded into parents (reverse preorder).
    let mut inclusive: Vec<Vec<(u32, u64, u64)>> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(index, _)| {
            tree.direct(index)
                .iter()
                .filter(|(class_id, amount)| amount.count > 0 && !excluded.contains(class_id))
                .map(|(class_id, amount)| (*class_id, amount.count, amount.bytes))
                .collect()
        })
        .collect();
    for index in (1..count).rev() {
        let up = parent[index] as usize;
        if inclusive[index].is_empty() || up >= count {
            continue;
        }
        let child = std::mem::take(&mut inclusive[index]);
        inclusive[up] = merge(&inclusive[up], &child);
        inclusive[index] = child;
    }
    let totals = |entries: &[(u32, u64, u64)]| {
        entries
            .iter()
            .fold((0u64, 0u64), |(c, b), &(_, count, bytes)| {
                (c + count, b + bytes)
            })
    };
    let shown =
        |index: usize| index > 0 && (show == SitesShow::Time || totals(&inclusive[index]).0 > 0);
    let mut out = SiteTree {
        context_nodes: count.saturating_sub(1),
        capped_calls: tree.capped_calls,
        ..SiteTree::default()
    };
    // Shown node index per context (parents of shown nodes are shown: counts only grow up).
    let mut shown_index = vec![u32::MAX; count];
    let shown_list: Vec<usize> = (0..count).filter(|&index| shown(index)).collect();
    let mut row = 0u32;
    for (position, &index) in shown_list.iter().enumerate() {
        let node = &tree.nodes[index];
        let (count_here, bytes_here) = totals(&inclusive[index]);
        let mut direct: Vec<(u32, u64, u64)> = tree
            .direct(index)
            .iter()
            .filter(|(class_id, amount)| amount.count > 0 && !excluded.contains(class_id))
            .map(|(class_id, amount)| (*class_id, amount.count, amount.bytes))
            .collect();
        direct.sort_by_key(|&(class_id, count, _)| (std::cmp::Reverse(count), class_id));
        let column = node.depth.saturating_sub(1);
        let up = parent[index] as usize;
        out.max_bytes = out.max_bytes.max(bytes_here);
        if bytes_here > 0 && (out.min_bytes == 0 || bytes_here < out.min_bytes) {
            out.min_bytes = bytes_here;
        }
        out.max_time_ns = out.max_time_ns.max(node.time_ns);
        if node.time_ns > 0 && (out.min_time_ns == 0 || node.time_ns < out.min_time_ns) {
            out.min_time_ns = node.time_ns;
        }
        out.max_calls = out.max_calls.max(node.calls);
        out.max_direct_count = direct
            .iter()
            .map(|&(_, count, _)| count)
            .fold(out.max_direct_count, u64::max);
        out.columns = out.columns.max(column + 1);
        shown_index[index] = out.nodes.len() as u32;
        out.nodes.push(SiteNode {
            context: index as u32,
            method_id: node.method_id,
            parent: (up < count && up > 0)
                .then(|| shown_index[up])
                .filter(|&p| p != u32::MAX),
            column,
            row,
            calls: node.calls,
            time_ns: node.time_ns,
            count: count_here,
            bytes: bytes_here,
            direct,
            inclusive: std::mem::take(&mut inclusive[index]),
        });
        // A leaf (the next shown node is no deeper) takes its row; a parent shares its first
        // child's.
        let next_depth = shown_list
            .get(position + 1)
            .map(|&next| tree.nodes[next].depth);
        if next_depth.is_none_or(|depth| depth <= node.depth) {
            row += 1;
        }
    }
    out.rows = row;
    // The class list: every class in the tree's own nodes, excluded ones included.
    let mut classes: std::collections::BTreeMap<u32, (u64, u64)> = Default::default();
    for index in 1..count {
        for (class_id, amount) in tree.direct(index) {
            let entry = classes.entry(*class_id).or_default();
            entry.0 += amount.count;
            entry.1 += amount.bytes;
        }
    }
    out.classes = classes
        .into_iter()
        .filter(|(_, (count, _))| *count > 0)
        .map(|(class_id, (count, bytes))| SiteClass {
            class_id,
            count,
            bytes,
            excluded: excluded.contains(&class_id),
        })
        .collect();
    out.classes
        .sort_by_key(|class| (std::cmp::Reverse(class.count), class.class_id));
    out
}

/// Two per-class lists (sorted by class id) added up.
fn merge(a: &[(u32, u64, u64)], b: &[(u32, u64, u64)]) -> Vec<(u32, u64, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1 + y.1, x.2 + y.2));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                out.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                out.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_aggregate::{Amount, ContextNode};

    /// The paper's running example as a context tree: main (A) makes a Canvas, calls
    /// Canvas.new (B, a ShapeFactory), createCircles → create (15 Circles), createBoxes →
    /// create (8 Boxes), createShape twice → create (15 Circles and 8 Boxes), and a logger
    /// that creates nothing.
    pub(crate) fn paper_tree() -> ContextTree {
        const CANVAS: u32 = 0;
        const FACTORY: u32 = 1;
        const CIRCLE: u32 = 2;
        const BOX: u32 = 3;
        let made = |class_id: u32, count: u64| {
            (
                class_id,
                Amount {
                    count,
                    bytes: count * 24,
                    ..Amount::default()
                },
            )
        };
        // (method, depth, calls, direct classes)
        type Node = (u32, u16, u64, Vec<(u32, Amount)>);
        let shape: Vec<Node> = vec![
            (u32::MAX, 0, 0, vec![]),
            (0, 1, 1, vec![made(CANVAS, 1)]),   // main
            (1, 2, 1, vec![made(FACTORY, 1)]),  // Canvas.new
            (2, 2, 1, vec![]),                  // createCircles
            (4, 3, 15, vec![made(CIRCLE, 15)]), // create
            (3, 2, 1, vec![]),                  // createBoxes
            (4, 3, 8, vec![made(BOX, 8)]),      // create
            (5, 2, 2, vec![]),                  // createShape
            (4, 3, 23, vec![made(CIRCLE, 15), made(BOX, 8)]),
            (6, 2, 40, vec![]), // log: nothing
        ];
        let mut amounts = Vec::new();
        let mut nodes: Vec<ContextNode> = shape
            .iter()
            .map(|(method_id, depth, calls, direct)| {
                let start = amounts.len() as u32;
                amounts.extend(direct.iter().cloned());
                ContextNode {
                    method_id: *method_id,
                    depth: *depth,
                    calls: *calls,
                    time_ns: *calls * 1_000,
                    direct: start..amounts.len() as u32,
                    subtree_len: 1,
                }
            })
            .collect();
        // Subtree lengths from the depths.
        for index in (0..nodes.len()).rev() {
            let depth = nodes[index].depth;
            let len = nodes[index + 1..]
                .iter()
                .take_while(|n| n.depth > depth)
                .count();
            nodes[index].subtree_len = len as u32 + 1;
        }
        ContextTree {
            nodes,
            amounts,
            capped_calls: 0,
            max_nodes: 1 << 20,
            generation: 1,
        }
    }

    fn rows(tree: &SiteTree) -> Vec<(u32, u16, u32, u64)> {
        tree.nodes
            .iter()
            .map(|n| (n.method_id, n.column, n.row, n.count))
            .collect()
    }

    /// The paper's Figure 1: main, then Canvas.new, and the three branches to create, top
    /// to bottom in order of first call; the logger (no objects) is not shown.
    #[test]
    fn the_paper_example_lays_out_as_figure_one() {
        let tree = site_tree(&paper_tree(), SitesShow::Allocations, &BTreeSet::new());
        assert_eq!(
            rows(&tree),
            vec![
                (0, 0, 0, 48),
                (1, 1, 0, 1),
                (2, 1, 1, 15),
                (4, 2, 1, 15),
                (3, 1, 2, 8),
                (4, 2, 2, 8),
                (5, 1, 3, 23),
                (4, 2, 3, 23),
            ]
        );
        assert_eq!((tree.rows, tree.columns), (4, 3));
        assert_eq!(tree.nodes[3].parent, Some(2));
        assert_eq!(tree.nodes[0].direct, vec![(0, 1, 24)]);
        assert_eq!(tree.nodes[7].direct, vec![(2, 15, 360), (3, 8, 192)]);
        assert!(tree.nodes[6].creates(2) && tree.nodes[6].creates(3));
        assert!(!tree.nodes[3].creates(3));
        assert_eq!(tree.max_direct_count, 15);
        let classes: Vec<(u32, u64)> = tree.classes.iter().map(|c| (c.class_id, c.count)).collect();
        assert_eq!(classes, vec![(2, 30), (3, 16), (0, 1), (1, 1)]);
    }

    /// Excluding Circle removes its boxes and the branch left without objects; the class
    /// list still lists it, marked.
    #[test]
    fn excluding_a_class_prunes_the_branches_it_leaves_empty() {
        let excluded = BTreeSet::from([2]);
        let tree = site_tree(&paper_tree(), SitesShow::Allocations, &excluded);
        assert_eq!(
            rows(&tree),
            vec![
                (0, 0, 0, 18),
                (1, 1, 0, 1),
                (3, 1, 1, 8),
                (4, 2, 1, 8),
                (5, 1, 2, 8),
                (4, 2, 2, 8),
            ]
        );
        assert!(tree.classes.iter().any(|c| c.class_id == 2 && c.excluded));
    }

    /// Showing time, every context is there, the logger too.
    #[test]
    fn time_shows_every_context() {
        let tree = site_tree(&paper_tree(), SitesShow::Time, &BTreeSet::new());
        assert_eq!(tree.nodes.len(), 9);
        assert_eq!(tree.nodes[8].method_id, 6);
        assert_eq!((tree.nodes[8].row, tree.nodes[8].count), (4, 0));
        assert_eq!(tree.max_calls, 40);
    }
}
